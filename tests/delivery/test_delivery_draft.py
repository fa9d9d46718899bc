"""ReviewDraft.from_plan: the review the poster posts, made straight from a `ReviewPlan`."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from review_quorum.checked_plan import identity
from review_quorum.delivery.draft import DraftComment, ReviewDraft, not_rechecked
from review_quorum.errors import Skipped
from review_quorum.identity import CodeLines, code_hash
from review_quorum.markup.markers import FINDING, find_markers, marked_code, marker
from review_quorum.model import CommentSource, NormalizedFinding
from review_quorum.plan import AwaitedBots, ReviewPlan, Settings, assemble, review
from review_quorum.render.github_review import payload
from review_quorum.render.review import inline_comment
from review_quorum.render.serialize import plain
from review_quorum.scope import DiffScope
from review_quorum.scoring.confidence import Disposition

DIFF = DiffScope.parse("--- a/app.py\n+++ b/app.py\n@@ -1,0 +1,20 @@\n" + "+x\n" * 20)
URL = "https://github.com/o/r/pull/7#discussion_r"


def finding(bot: str, line: int | None, title: str, **extra: Any) -> NormalizedFinding:
    return NormalizedFinding.create(
        bot=bot,
        finding_id=f"{bot}:{line}:{title}",
        severity=extra.pop("severity", "high"),
        category=extra.pop("category", "security"),
        title=title,
        file=extra.pop("file", "app.py"),
        line=line,
        **extra,
    )


def agreed(line: int, title: str, **extra: Any) -> list[NormalizedFinding]:
    return [finding(bot, line, title, **extra) for bot in ("bandit", "semgrep")]


def test_a_plan_becomes_a_draft() -> None:
    findings = [*agreed(4, "SQL injection"), *agreed(7, "XSS", end_line=9)]
    findings.append(finding("pylint", 12, "Unused name", severity="low", category="style"))
    plan = msgspec.structs.replace(review(findings, diff=DIFF), commit_id="c" * 40)
    draft = ReviewDraft.from_plan(plan, source="plan.json")
    sql, xss, unused = plan.findings
    assert draft.comments == (
        DraftComment("app.py", 4, inline_comment(sql), sql.fingerprint),
        DraftComment("app.py", 9, inline_comment(xss), xss.fingerprint, "RIGHT", 7, "RIGHT"),
    )
    assert [comment.payload() for comment in draft.comments] == plain(payload(plan))["comments"]
    assert (draft.event, draft.commit_id, draft.skipped, draft.gate) == (
        "COMMENT",
        "c" * 40,
        (),
        plan.gate,
    )
    assert draft.body == payload(plan).body
    assert draft.summary == draft.body and draft.summary.startswith(marker("summary"))
    assert unused.disposition is Disposition.SUMMARY
    assert draft.fingerprints() == {sql.fingerprint, xss.fingerprint, unused.fingerprint}
    assert ReviewDraft.from_plan(plan, event="REQUEST_CHANGES").event == "REQUEST_CHANGES"


def test_a_summary_without_its_marker_gets_one() -> None:
    plan = review(agreed(4, "SQL injection"))
    draft = ReviewDraft.from_plan(plan)
    assert draft.summary.startswith(f"{marker('summary')}\n")
    assert find_markers(draft.summary).count(("summary", "")) == 1


def test_findings_the_plan_still_reports_are_not_gone() -> None:
    plan = review(
        [*agreed(4, "SQL injection"), finding("pylint", 30, "Style", category="style")],
        diff=DIFF,
    )
    inline, dropped = plan.findings
    assert dropped.disposition is Disposition.DROPPED  # line 30 is not in the diff
    audited = msgspec.structs.replace(inline, disposition=Disposition.AUDIT)
    plan = assemble([inline, audited, dropped], plan.settings, bots_ran=3)
    inline, audited, dropped = plan.findings  # each with an identity of its own
    assert len({inline.fingerprint, audited.fingerprint, dropped.fingerprint}) == 3
    draft = ReviewDraft.from_plan(plan)
    assert draft.reported == {inline.fingerprint, audited.fingerprint}
    assert dropped.fingerprint not in draft.fingerprints()
    assert [item.reported for item in draft.findings] == [True, False, False]


def test_a_link_mode_plan_posts_no_comments_of_its_own() -> None:
    plan = review(agreed(4, "SQL injection"), settings=Settings(inline_mode="link"))
    draft = ReviewDraft.from_plan(plan)
    assert (draft.comments, draft.inline_mode) == ((), "link")
    assert draft.fingerprints() == {plan.findings[0].fingerprint}


def test_each_finding_names_the_bot_comments_its_members_came_from() -> None:
    rabbit = CommentSource("review_comment", 31, "PRRC_31", f"{URL}31", "coderabbitai[bot]")
    members = [finding("coderabbit", 4, "SQL injection", source=rabbit)]
    members.append(finding("bandit", 4, "SQL injection"))  # an analyser: no comment
    plan = review(members)
    [item] = ReviewDraft.from_plan(plan).findings
    named = plan.findings[0].finding.members[0]
    assert item.comments == (("coderabbit", rabbit),)
    assert item.identities == (identity(named),)
    assert (item.link, item.bots) == (rabbit, frozenset({"coderabbit"}))


def with_changed(plan: ReviewPlan, index: int, **changes: Any) -> ReviewPlan:
    """`plan` with one finding changed as a saved plan may say (`saved_plan` keeps these)."""
    items = list(plan.findings)
    items[index] = msgspec.structs.replace(items[index], **changes)
    return assemble(items, plan.settings, bots_ran=plan.bots_ran)


@pytest.mark.parametrize(
    ("file", "changes", "reason"),
    [
        (" ", {}, "comment has no path"),
        ("app.py", {"span_end": 2}, "start_line 4 must be before line 2"),
        (
            "app.py",
            {"span_end": 2**31},
            "comment line must be a line number from 1 to 2147483647, not 2147483648",
        ),
    ],
)
def test_one_unusable_comment_is_skipped_with_its_position(
    file: str, changes: dict[str, Any], reason: str
) -> None:
    plan = review([*agreed(4, "SQL injection", file=file), *agreed(9, "XSS")])
    draft = ReviewDraft.from_plan(with_changed(plan, 0, **changes), source="plan.json")
    assert [comment.line for comment in draft.comments] == [9]
    assert draft.skipped == (Skipped("plan.json", "/github_review/comments/0", reason),)
    # Listed in the summary with its reason: the counts say what was posted.
    assert "### 1 finding posted inline" in draft.summary
    assert "SQL injection" in draft.summary and "1 finding posted inline" in draft.body


def test_two_findings_with_the_same_bots_file_category_and_title_are_both_posted() -> None:
    plan = review([*agreed(4, "SQL injection"), *agreed(90, "SQL injection")])
    first, second = plan.findings
    assert first.fingerprint != second.fingerprint  # two findings, two identities
    draft = ReviewDraft.from_plan(plan, source="plan.json")
    assert [comment.line for comment in draft.comments] == [4, 90]
    assert draft.skipped == ()
    for item, comment in zip(plan.findings, draft.comments, strict=True):
        assert (FINDING, item.fingerprint) in find_markers(comment.body)


def test_the_bots_that_ran_are_those_with_findings_and_the_awaited_ones_that_reported() -> None:
    plan = review([*agreed(4, "SQL injection"), finding("my bot[1]", 30, "Style")], diff=DIFF)
    awaited = AwaitedBots(("copilot", "cursor"), missing=("cursor",))
    draft = ReviewDraft.from_plan(msgspec.structs.replace(plan, awaited=awaited))
    assert draft.ran == frozenset({"bandit", "semgrep", "my_bot_1_", "copilot"})  # dropped too
    gone = f"{marker('finding', 'f' * 32)}\n{marker('by', 'bandit:cursor')}\nold"
    assert not_rechecked(draft, gone) == ("cursor",)
    assert not_rechecked(draft, f"{marker('finding', 'f' * 32)}\nolder") == ()


def test_each_inline_comment_records_its_flagged_lines_hash_and_the_draft_the_code() -> None:
    lines = CodeLines(diff=DIFF)
    plan = review(agreed(4, "SQL injection"), diff=DIFF, lines=lines)
    [item] = plan.findings
    assert item.code == code_hash("x")
    draft = ReviewDraft.from_plan(plan, lines=lines)
    assert marked_code(draft.comments[0].body) == code_hash("x")
    assert draft.lines is lines
    assert ReviewDraft.from_plan(plan).lines is None


def test_a_bot_the_coverage_shows_reviewing_the_head_ran_though_it_found_nothing() -> None:
    from review_quorum.history.coverage import BotCoverage, State

    found = agreed(4, "SQL injection")
    covered = [BotCoverage("coderabbit", State.REVIEWED), BotCoverage("cursor", State.STALE)]
    draft = ReviewDraft.from_plan(review(found, diff=DIFF, coverage=covered))
    assert draft.ran == frozenset({"bandit", "semgrep", "coderabbit"})
    gone = f"{marker('finding', 'f' * 32)}\n{marker('by', 'coderabbit:cursor')}\nold"
    assert not_rechecked(draft, gone) == ("cursor",)
    assert ReviewDraft.from_plan(review(found, diff=DIFF)).ran == frozenset({"bandit", "semgrep"})
    alone = review(found, diff=DIFF, coverage=covered[:1])  # every expected bot reviewed
    assert ReviewDraft.from_plan(alone).ran == frozenset({"bandit", "semgrep", "coderabbit"})
