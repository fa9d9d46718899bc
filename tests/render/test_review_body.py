"""The review body and inline comments (SPEC 4): exact text, escaping, markers, the size limit."""

from __future__ import annotations

import msgspec
import pytest

from review_quorum.markup.markers import SUMMARY, find_markers, marker
from review_quorum.model import ConsensusLevel
from review_quorum.render import review_body as review_body_module
from review_quorum.render.consensus import LEVEL_HEADINGS
from review_quorum.render.review_body import (
    ASSESSMENT_ICONS,
    GITHUB_LIMIT,
    BodyItem,
    ReviewBody,
    body_from_report,
    render_inline_comment,
    render_item_line,
    render_review_body,
    utf16_size,
)
from review_quorum.scoring.confidence import Assessment, FindingInput, score_findings
from verified import verified

VERIFIED = BodyItem(
    file="src/db/query.py",
    line=40,
    end_line=42,
    severity="high",
    category="security",
    title="Query built from request input",
    details="Use bound parameters.\nThe id comes from the URL.",
    band="strong",
    score=92,
    provenance="[detected by 2/4 bots, agreement 50%]",
    detected_by=("bandit", "semgrep"),
    fingerprint="3f9a0c",
)
WEAK = BodyItem(
    "src/util.py", 8, None, "low", "logic_error", "Loop stops one early", band="weak", score=41
)
UNVERIFIED = BodyItem(
    "src/util.py",
    None,
    None,
    "medium",
    "other",
    "Duplicated branch",
    provenance="[detected by 1/4 bots, agreement 25%]",
    detected_by=("ruff",),
    level=ConsensusLevel.UNVERIFIED,
)
DISMISSED = BodyItem(
    "src/auth.py", 3, None, "medium", "security", "Hard-coded salt", band="negligible", score=0
)


def test_a_full_body_renders_exactly() -> None:
    body = ReviewBody(
        Assessment.CRITICAL,
        inline=[VERIFIED],
        summary=[WEAK, UNVERIFIED],
        audit=[DISMISSED],
        dropped_count=3,
        skipped_count=1,
        notes=("_Posting threshold 55._",),
    )
    assert render_review_body(body) == (
        "<!-- review-quorum:summary -->\n"
        "## Review assessment: 🔴 CRITICAL\n"
        "\n"
        "**1** posted inline · **2** lower-confidence · **1** dismissed security · "
        "**3** dropped · **1** input record skipped\n"
        "\n"
        "_Posting threshold 55._\n"
        "\n"
        "### 1 finding posted inline\n"
        "\n"
        "- **HIGH** Query built from request input — `src/db/query.py:40-42` — "
        "confidence strong, 92/100 — [detected by 2/4 bots, agreement 50%] bandit, semgrep\n"
        "\n"
        "### 2 lower-confidence findings (not posted inline)\n"
        "\n"
        "- **LOW** Loop stops one early — `src/util.py:8` — confidence weak, 41/100\n"
        "\n"
        "#### Unverified (1)\n"
        "\n"
        "- **MEDIUM** Duplicated branch — `src/util.py` — "
        "[detected by 1/4 bots, agreement 25%] ruff\n"
        "\n"
        "### 1 dismissed security finding (review manually)\n"
        "\n"
        "- **MEDIUM** Hard-coded salt — `src/auth.py:3` — dismissed by the verifier\n"
    )


def test_zero_findings_still_render_an_approve_review() -> None:
    assert render_review_body(ReviewBody(Assessment.APPROVE)) == (
        "<!-- review-quorum:summary -->\n## Review assessment: 🟢 APPROVE\n\nNo findings.\n"
    )


@pytest.mark.parametrize(
    ("assessment", "heading"),
    [
        (Assessment.CRITICAL, "## Review assessment: 🔴 CRITICAL"),
        (Assessment.NEEDS_ATTENTION, "## Review assessment: 🟡 NEEDS ATTENTION"),
        (Assessment.APPROVE, "## Review assessment: 🟢 APPROVE"),
    ],
)
def test_assessment_heading(assessment: Assessment, heading: str) -> None:
    assert render_review_body(ReviewBody(assessment)).splitlines()[1] == heading


@pytest.mark.parametrize(
    ("body", "headings"),
    [
        (
            ReviewBody(Assessment.APPROVE, summary=[WEAK]),
            ["### 1 lower-confidence finding (not posted inline)"],
        ),
        (
            ReviewBody(Assessment.APPROVE, audit=[DISMISSED]),
            ["### 1 dismissed security finding (review manually)"],
        ),
        (ReviewBody(Assessment.APPROVE, inline=[WEAK]), ["### 1 finding posted inline"]),
        (ReviewBody(Assessment.APPROVE, dropped_count=2), []),
    ],
)
def test_empty_sections_are_omitted(body: ReviewBody, headings: list[str]) -> None:
    text = render_review_body(body)
    assert [line for line in text.splitlines() if line.startswith("###")] == headings
    assert ("No findings." in text) is (body == ReviewBody(Assessment.APPROVE))


def test_the_lower_confidence_list_groups_by_consensus_level_when_present() -> None:
    confirmed = BodyItem(
        "a.py",
        1,
        None,
        "low",
        "other",
        "Confirmed one",
        score=60,
        band="moderate",
        level=ConsensusLevel.CONFIRMED,
    )
    needs = BodyItem(
        "a.py", 2, None, "low", "other", "Needs one", level=ConsensusLevel.NEEDS_VERIFICATION
    )
    body = ReviewBody(Assessment.APPROVE, summary=[UNVERIFIED, needs, WEAK, confirmed])
    lines = render_review_body(body).splitlines()
    start = lines.index("### 4 lower-confidence findings (not posted inline)")
    assert [line for line in lines[start:] if line] == [
        "### 4 lower-confidence findings (not posted inline)",
        "- **LOW** Loop stops one early — `src/util.py:8` — confidence weak, 41/100",
        "#### Confirmed (1)",
        "- **LOW** Confirmed one — `a.py:1` — confidence moderate, 60/100",
        "#### Needs verification (1)",
        "- **LOW** Needs one — `a.py:2`",
        "#### Unverified (1)",
        "- **MEDIUM** Duplicated branch — `src/util.py` — "
        "[detected by 1/4 bots, agreement 25%] ruff",
    ]


def test_inline_comment_ends_with_the_confidence_line() -> None:
    assert render_inline_comment(VERIFIED) == (
        "<!-- review-quorum:finding 3f9a0c -->\n"
        "<!-- review-quorum:by bandit:semgrep -->\n"
        "**HIGH** (security) Query built from request input\n"
        "\n"
        "Use bound parameters.  \n"
        "The id comes from the URL.\n"
        "\n"
        "[detected by 2/4 bots, agreement 50%] bandit, semgrep\n"
        "\n"
        "Confidence: **strong** (92/100)\n"
    )
    assert find_markers(render_inline_comment(VERIFIED)) == [
        ("finding", "3f9a0c"),
        ("by", "bandit:semgrep"),
    ]


def test_an_unverified_inline_comment_ends_with_its_provenance_and_has_no_marker_without_id() -> (
    None
):
    assert render_inline_comment(UNVERIFIED) == (
        "**MEDIUM** (other) Duplicated branch\n\n[detected by 1/4 bots, agreement 25%] ruff\n"
    )


def test_a_fingerprint_that_could_break_the_marker_is_refused() -> None:
    with pytest.raises(ValueError, match="marker payload"):
        render_inline_comment(BodyItem("a.py", 1, None, "low", "other", "t", fingerprint="x -->"))


HOSTILE = BodyItem(
    file="src/`evil`.py",
    line=1,
    end_line=None,
    severity="high<script>",
    category="security_</details>",
    title="<!-- review-quorum:summary --> @octocat [click](https://x.invalid) <img src=x>",
    details="<!-- review-quorum:finding fake -->\n# heading\n> quote\n@team please",
    band="strong",
    score=90,
    detected_by=("@bot<b>",),
)


@pytest.mark.parametrize(
    "text",
    [
        render_review_body(ReviewBody(Assessment.CRITICAL, inline=[HOSTILE], summary=[HOSTILE])),
        render_inline_comment(HOSTILE),
    ],
    ids=["body", "comment"],
)
def test_untrusted_text_is_inert(text: str) -> None:
    assert find_markers(text) in ([("summary", "")], [])
    assert "<script" not in text and "<img" not in text and "</details" not in text
    assert "@octocat" not in text and "@team" not in text and "@bot" not in text
    assert "[click](" not in text
    assert "\n# heading" not in text and "\n> quote" not in text


def test_rendering_is_deterministic() -> None:
    body = ReviewBody(Assessment.NEEDS_ATTENTION, inline=[VERIFIED, WEAK], summary=[UNVERIFIED])
    assert render_review_body(body) == render_review_body(body)
    assert render_inline_comment(VERIFIED) == render_inline_comment(VERIFIED)


# --- the size limit ------------------------------------------------------------------------


def many(count: int, title: str) -> list[BodyItem]:
    return [
        BodyItem(
            f"src/module_{n}.py",
            n + 1,
            None,
            "medium",
            "other",
            f"{title} {n}",
            band="weak",
            score=40,
        )
        for n in range(count)
    ]


@pytest.mark.parametrize(
    ("title", "limit"),
    [("x" * 150, GITHUB_LIMIT), ("😀" * 120, GITHUB_LIMIT), ("long title " * 10, 5_000)],
    ids=["ascii", "astral", "small-limit"],
)
def test_a_long_body_is_cut_within_the_limit_with_a_note(title: str, limit: int) -> None:
    body = ReviewBody(
        Assessment.NEEDS_ATTENTION,
        inline=many(400, title),
        summary=many(900, title),
        audit=many(50, title),
    )
    text = render_review_body(body, limit=limit)
    assert utf16_size(text) <= limit
    assert text.startswith(
        "<!-- review-quorum:summary -->\n## Review assessment: 🟡 NEEDS ATTENTION\n"
    )
    assert "**400** posted inline · **900** lower-confidence · **50** dismissed security" in text
    shown = sum(1 for line in text.splitlines() if line.startswith("- **"))
    note = text.rstrip("\n").splitlines()[-1]
    assert note == (
        f"_Cut: {1350 - shown} of 1350 findings not listed here, to stay within GitHub's "
        "65,536-character limit for a review body._"
    )
    assert 0 < shown < 1350
    assert not text.rstrip("\n").splitlines()[-3].startswith("###")  # no heading left empty
    assert render_review_body(body, limit=limit) == text


def test_a_body_that_fits_is_not_cut() -> None:
    body = ReviewBody(Assessment.APPROVE, summary=many(10, "fine"))
    assert "_Cut:" not in render_review_body(body)


def test_utf16_size_counts_astral_characters_twice() -> None:
    assert (utf16_size("abc"), utf16_size("é"), utf16_size("😀")) == (3, 1, 2)


def test_the_limit_has_a_floor() -> None:
    with pytest.raises(ValueError, match="limit must be at least 1024"):
        render_review_body(ReviewBody(Assessment.APPROVE), limit=100)


def test_long_details_are_cut_in_the_inline_comment_with_a_note() -> None:
    item = BodyItem(
        "a.py", 1, None, "low", "other", "t", details="word " * 30_000, band="weak", score=31
    )
    text = render_inline_comment(item)
    assert utf16_size(text) < GITHUB_LIMIT
    assert "_Details cut to stay within GitHub's comment size limit._" in text
    assert text.endswith("Confidence: **weak** (31/100)\n")


# --- from a score report ------------------------------------------------------------------


def scored(**changes: object) -> FindingInput:
    return verified(**changes)


@pytest.mark.parametrize(
    ("inputs", "assessment"),
    [
        ([], Assessment.APPROVE),
        ([scored(verifier_severity="low")], Assessment.APPROVE),
        ([scored()], Assessment.NEEDS_ATTENTION),
        ([scored(verdict="LIKELY", verifier_severity="high")], Assessment.CRITICAL),
        # A high-severity finding that is not inline does not make the review critical.
        (
            [scored(verdict="DISMISSED", category="security", verifier_severity="high")],
            Assessment.APPROVE,
        ),
    ],
)
def test_body_from_report_assessment(inputs: list[FindingInput], assessment: Assessment) -> None:
    assert body_from_report(score_findings(inputs)).assessment is assessment


def test_body_from_report_items() -> None:
    report = score_findings(
        [
            scored(issue="Wrong total", details="Sums the wrong column."),
            scored(line=11, verdict="DISMISSED", category="security"),
            scored(line=12, in_diff=False),
        ]
    )
    body = body_from_report(report, skipped_count=2, notes=("note",))
    assert body.inline == [
        BodyItem(
            "src/app.py",
            10,
            None,
            "medium",
            "logic_error",
            "Wrong total",
            "Sums the wrong column.",
            band="strong",
            score=100,
            reason="rule 4 (threshold): score 100 is at or above the threshold 55",
        )
    ]
    assert [item.title for item in body.audit] == ["security"]  # no issue text: the category
    assert (body.dropped_count, body.skipped_count, body.notes) == (1, 2, ("note",))


def whole_sections(body: ReviewBody) -> list[tuple[str, bool]]:
    blocks: list[tuple[str, bool]] = []
    if body.inline:
        blocks.append((f"\n### {len(body.inline)} findings posted inline\n", False))
        blocks += [(render_item_line(item), True) for item in body.inline]
    if body.summary:
        blocks.append(
            (f"\n### {len(body.summary)} lower-confidence findings (not posted inline)\n", False)
        )
        listed = [(render_item_line(item), True) for item in body.summary if item.level is None]
        for level, heading in LEVEL_HEADINGS.items():
            members = [item for item in body.summary if item.level is level]
            if members:
                gap = "\n" if listed else ""
                listed.append((f"{gap}#### {heading} ({len(members)})\n", False))
                listed += [(render_item_line(item), True) for item in members]
        blocks += listed
    if body.audit:
        blocks.append(
            (f"\n### {len(body.audit)} dismissed security findings (review manually)\n", False)
        )
        blocks += [(render_item_line(item, audit=True), True) for item in body.audit]
    return blocks


def whole_body(body: ReviewBody, limit: int) -> str:
    """The body as rendered before lines were made lazily: every line first, then cut."""
    icon = ASSESSMENT_ICONS[body.assessment]
    head = [marker(SUMMARY), f"## Review assessment: {icon} {body.assessment.value}", ""]
    head.append(review_body_module._counts(body))
    blocks = [("", False), *((note, False) for note in body.notes)] if body.notes else []
    blocks += whole_sections(body)
    full = "\n".join(head + [text for text, _ in blocks]) + "\n"
    if utf16_size(full) <= limit:
        return full
    total = sum(1 for _, is_item in blocks if is_item)
    note_room = utf16_size(review_body_module._cut_note(total, total)) + 2
    kept, used, shown = list(head), utf16_size("\n".join(head)) + 1, 0
    for text, is_item in blocks:
        if used + utf16_size(text) + 1 + note_room > limit:
            break
        kept.append(text)
        used += utf16_size(text) + 1
        shown += is_item
    while kept[-1].lstrip("\n").startswith("#"):
        kept.pop()
    return "\n".join([*kept, "", review_body_module._cut_note(total - shown, total)]) + "\n"


def test_only_the_lines_that_can_fit_are_rendered_with_the_same_result() -> None:
    levels = [None, ConsensusLevel.CONFIRMED, ConsensusLevel.UNVERIFIED, None]
    summary = [
        msgspec.structs.replace(item, level=levels[index % 4])
        for index, item in enumerate(many(60, "summary finding"))
    ]
    body = ReviewBody(
        Assessment.CRITICAL,
        inline=many(20, "inline finding " + "😀" * 3),
        summary=summary,
        audit=many(15, "audit finding"),
        notes=("a note", "", "another note"),
    )
    full = whole_body(body, 10**9)
    for limit in range(1_024, utf16_size(full) + 200, 97):
        assert render_review_body(body, limit=limit) == whole_body(body, limit)


def test_inline_comment_records_the_flagged_lines_text_hashed() -> None:
    coded = msgspec.structs.replace(VERIFIED, code="0123456789abcdef")
    assert find_markers(render_inline_comment(coded)) == [
        ("finding", "3f9a0c"),
        ("by", "bandit:semgrep"),
        ("code", "0123456789abcdef"),
    ]
    # without an identity there is no finding marker, and no code marker either
    unmarked = msgspec.structs.replace(coded, fingerprint="")
    assert find_markers(render_inline_comment(unmarked)) == []
