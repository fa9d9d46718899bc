"""The check run of a plan: what is annotated, within GitHub's sizes, bot text made inert."""

from __future__ import annotations

import pytest

from review_quorum.markup import escape
from review_quorum.model import ConsensusLevel, NormalizedFinding
from review_quorum.plan import ReviewPlan, Settings, review
from review_quorum.render import check_run
from review_quorum.scope import DiffScope

DIFF = "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1,3 @@\n+x\n+y\n+z\n"


def plan_of(titles: list[str], lines: tuple[int, ...] = (2,)) -> check_run.CheckOutput:
    findings = [
        NormalizedFinding.create(
            bot=bot,
            finding_id=f"{bot}{i}",
            severity="medium",
            category="security",
            title=title,
            file="a.py",
            line=lines[i % len(lines)],
        )
        for i, title in enumerate(titles)
        for bot in ("ruff", "bandit")
    ]
    plan = review(findings, settings=Settings(bots_ran=2), diff=DiffScope.parse(DIFF))
    return check_run.check_output(plan)


def test_a_huge_hostile_title_fits_and_is_inert() -> None:
    title = "@everyone \u202ereversed\u202c " + "x" * 200_000
    [annotation] = plan_of([title]).annotations
    assert len(annotation.payload["title"]) == check_run.MAX_TITLE
    assert len(annotation.payload["message"]) <= check_run.MAX_MESSAGE
    for text in (annotation.payload["title"], annotation.payload["message"]):
        assert "\u202e" not in text and "@everyone" not in text
    assert annotation.payload["annotation_level"] == "warning"


def test_findings_past_the_cap_are_counted_not_annotated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_run, "MAX_ANNOTATIONS", 2)
    words = ["alpha", "bravo", "charlie"]
    output = plan_of([f"Problem with {word}" for word in words], lines=(1, 2, 3))
    assert (len(output.annotations), output.left_out) == (2, 1)


def test_plain_keeps_line_breaks_and_cuts_with_an_ellipsis() -> None:
    assert escape.plain("one\r\ntwo\rthree", limit=100) == "one\ntwo\nthree"
    assert escape.plain("abcdef", limit=4) == "abc…"


def one_finding(severity: str, bots_ran: int, gate: ConsensusLevel | None) -> ReviewPlan:
    finding = NormalizedFinding.create(
        bot="bandit", finding_id="b1", severity=severity, category="security",
        title="Query built from input", file="a.py", line=2,
    )  # fmt: skip
    settings = Settings(bots_ran=bots_ran, gate_level=gate)
    return review([finding], settings=settings, diff=DiffScope.parse(DIFF))


def test_a_green_check_over_a_critical_assessment_says_why() -> None:
    """Issue 33 item 8: `--bots 1`-like plans pass the gate (nothing confirmed) while the
    assessment is CRITICAL (a high-severity finding posted): one line says why."""
    plan = one_finding("high", bots_ran=3, gate=ConsensusLevel.CONFIRMED)
    output = check_run.check_output(plan)
    assert (output.conclusion, plan.assessment.value) == ("success", "CRITICAL")
    first, rest = output.summary.split("\n\n", 1)
    assert first == (
        "**Gate passed**: no finding reaches confirmed, the level the gate stops at. The "
        "assessment below (CRITICAL) rates the severity of the findings posted, however few "
        "bots agree on them."
    )
    assert "Review assessment: 🔴 CRITICAL" in rest


def test_a_red_check_over_an_approve_assessment_says_why() -> None:
    plan = one_finding("low", bots_ran=3, gate=ConsensusLevel.UNVERIFIED)
    output = check_run.check_output(plan)
    assert (output.conclusion, plan.assessment.value) == ("failure", "APPROVE")
    assert output.summary.startswith(
        "**Gate failed**: 1 finding at or above unverified. The assessment below (APPROVE) "
        "rates only the severity of the findings posted, and none is medium or above.\n\n"
    )


@pytest.mark.parametrize(
    ("severity", "gate"),
    [("high", ConsensusLevel.UNVERIFIED), ("low", ConsensusLevel.CONFIRMED), ("high", None)],
)
def test_no_note_when_gate_and_assessment_agree(severity: str, gate: ConsensusLevel | None) -> None:
    output = check_run.check_output(one_finding(severity, bots_ran=3, gate=gate))
    assert output.summary.startswith("<!-- review-quorum:summary -->")


def test_the_note_and_the_summary_fit_githubs_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_run, "MAX_OUTPUT", 1_400)
    findings = [
        NormalizedFinding.create(
            bot="bandit", finding_id=f"b{n}", severity="high", category="security",
            title=f"Query {n} built from input " + "word " * 60, file=f"m{n}.py", line=1,
        )
        for n in range(400)
    ]  # fmt: skip
    settings = Settings(bots_ran=3, gate_level=ConsensusLevel.CONFIRMED)
    diff = "".join(f"--- /dev/null\n+++ b/m{n}.py\n@@ -0,0 +1 @@\n+x\n" for n in range(400))
    plan = review(findings, settings=settings, diff=DiffScope.parse(diff))
    summary = check_run.check_output(plan).summary
    assert summary.startswith("**Gate passed**")
    assert len(summary) <= 1_400 and "_Cut: " in summary
