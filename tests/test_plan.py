"""Composition of consensus, verdicts and diff scope into one review plan (SPEC 5)."""

from __future__ import annotations

import msgspec
import pytest

from review_quorum import Profile
from review_quorum.model import ConsensusLevel, Evidence, NormalizedFinding, Severity
from review_quorum.plan import (
    Settings,
    fingerprint,
    review,
)
from review_quorum.scope import DiffScope, FilterMode
from review_quorum.scoring.confidence import Assessment, Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)

DIFF = """\
diff --git a/app/db.py b/app/db.py
--- a/app/db.py
+++ b/app/db.py
@@ -8,3 +8,6 @@
 import sqlite3
+def find(name):
+    query = f"SELECT * FROM t WHERE n = '{name}'"
+    return db.execute(query)
 x = 1
 y = 2
"""


def finding(
    bot: str,
    line: int | None,
    *,
    file: str = "app/db.py",
    category: str = "security",
    severity: Severity = Severity.MEDIUM,
    title: str = "SQL injection",
) -> NormalizedFinding:
    return NormalizedFinding(bot, f"{bot}-{line}", severity, category, title, Evidence(file, line))


def verdict(
    file: str, line: int, kind: Verdict = Verdict.CONFIRMED, severity: str = "high"
) -> AttachedVerdictInput:
    attached = AttachedVerdict(
        verdict=kind,
        severity=VerifierSeverity(severity),
        evidence_strength=EvidenceStrength.DIRECT,
        context_completeness=ContextCompleteness.FULL,
        in_changed_code=True,
        issue="",
        details="checked the call site",
        source="v.json",
        position="/verdicts/0",
    )
    return AttachedVerdictInput(file, line, attached)


def placements(plan) -> list[tuple[str, str, bool]]:  # type: ignore[no-untyped-def]
    return [
        (f"{i.finding.file}:{i.finding.line}", i.disposition.value, i.forced) for i in plan.findings
    ]


def test_unverified_findings_are_placed_by_consensus() -> None:
    items = [
        finding("a", 10), finding("b", 11),  # security, 2/4 -> forced inline
        finding("a", 30, category="logic_error", severity=Severity.HIGH),  # 1/4, high, unverified
        finding("a", 50, category="logic_error"), finding("b", 50, category="logic_error"),
        finding("c", 50, category="logic_error"),  # 3/4 confirmed -> inline, not forced
        finding("a", 70, category="style", severity=Severity.HIGH),
        finding("b", 70, category="style", severity=Severity.HIGH),  # 2/4 high -> forced
    ]  # fmt: skip
    plan = review(items, settings=Settings(bots_ran=4, model="agreement"))
    assert sorted(placements(plan)) == [
        ("app/db.py:10", "inline", True),
        ("app/db.py:30", "summary", False),
        ("app/db.py:50", "inline", False),
        ("app/db.py:70", "inline", True),
    ]
    reasons = {i.finding.line: i.reason for i in plan.findings}
    assert reasons[10] == "security finding at level needs-verification: always inline"
    assert reasons[30] == "consensus level unverified is below the inline level confirmed"
    assert reasons[70] == "high severity at level needs-verification: always inline"
    assert plan.assessment is Assessment.CRITICAL


def test_inline_level_can_be_lowered() -> None:
    items = [finding("a", 30, category="logic_error")]
    settings = Settings(bots_ran=4, inline_level=ConsensusLevel.UNVERIFIED)
    assert placements(review(items, settings=settings)) == [("app/db.py:30", "inline", False)]


def test_one_cap_across_verified_and_unverified_never_counting_forced() -> None:
    items = [finding(bot, line, category="logic_error") for line in (10, 20, 30) for bot in "ab"]
    items.append(finding("a", 90))  # security, 1/2 -> forced, never counted
    plan = review(
        items, settings=Settings(bots_ran=2, comment_cap=1), verdicts=[verdict("app/db.py", 20)]
    )
    by_line = {i.finding.line: i for i in plan.findings}
    assert by_line[20].disposition is Disposition.INLINE  # verified high: forced by policy
    assert by_line[90].forced
    assert [by_line[line].disposition for line in (10, 30)] == [
        Disposition.INLINE,
        Disposition.SUMMARY,
    ]
    assert "over the comment cap of 1" in by_line[30].reason
    assert [i.finding.line for i in plan.inline][-1] == 10


def test_verdicts_attach_to_the_nearest_finding_and_leftovers_are_reported() -> None:
    items = [finding("a", 10, category="logic_error"), finding("a", 14, category="logic_error")]
    verdicts = [
        verdict("app/db.py", 13, Verdict.LIKELY, "medium"),
        verdict("app/db.py", 14),
        verdict("app/db.py", 99),
        verdict("other.py", 10),
    ]
    plan = review(items, settings=Settings(bots_ran=1), verdicts=verdicts)
    attached = {i.finding.line: i.verdict.verdict for i in plan.findings if i.verdict}
    assert attached == {14: Verdict.LIKELY}
    assert [s.reason for s in plan.skipped] == [
        "verdict for app/db.py:14 is a second verdict on one finding",
        "verdict for app/db.py:99 matches no finding",
        "verdict for other.py:10 matches no finding",
    ]


def test_verified_findings_follow_the_confidence_policy() -> None:
    items = [finding("a", 10, category="logic_error", severity=Severity.HIGH)]
    # one bot of one: confirmed, so the finding alone fails the gate...
    settings = Settings(model="agreement", bots_ran=1)
    assert review(items, settings=settings).gate.failed
    plan = review(
        items, settings=settings, verdicts=[verdict("app/db.py", 10, Verdict.DISMISSED, "high")]
    )
    [item] = plan.findings
    assert item.disposition is Disposition.DROPPED
    assert item.confidence is not None and item.confidence.score == 0
    # ...until the verifier dismisses it
    assert not plan.gate.failed


def test_out_of_scope_findings_are_dropped_with_a_reason_and_never_gate() -> None:
    items = [finding(bot, line) for line in (10, 12, 40) for bot in "ab"]
    items.append(finding("a", 5, file="app/other.py"))
    diff = DiffScope.parse(DIFF)
    plan = review(items, settings=Settings(bots_ran=2), diff=diff)
    reasons = {
        (i.finding.file, i.finding.line): (i.disposition.value, i.reason) for i in plan.findings
    }
    assert reasons[("app/db.py", 10)] == (
        "inline",
        "security finding at level confirmed: always inline",
    )
    assert reasons[("app/db.py", 40)] == (
        "dropped",
        "out of the diff scope (added): line 40 is not an added line",
    )
    assert reasons[("app/other.py", 5)] == (
        "dropped",
        "out of the diff scope (added): file not changed in this pull request",
    )
    assert [i.finding.line for i in plan.gate.blocking] == [10]
    wide = review(items, settings=Settings(bots_ran=2, filter_mode=FilterMode.NOFILTER), diff=diff)
    assert not wide.with_disposition(Disposition.DROPPED)


def test_gate_levels_and_none() -> None:
    items = [finding("a", 10, category="logic_error")]
    assert review(items, settings=Settings(model="agreement", bots_ran=1)).gate.failed
    assert not review(items, settings=Settings(model="agreement", bots_ran=4)).gate.failed
    loose = Settings(model="agreement", bots_ran=4, gate_level=ConsensusLevel.UNVERIFIED)
    assert review(items, settings=loose).gate.failed
    assert not review(
        items, settings=Settings(model="agreement", bots_ran=1, gate_level=None)
    ).gate.failed


def test_every_input_finding_is_a_member_exactly_once() -> None:
    items = [finding(bot, line) for line in range(1, 60, 2) for bot in "abc"]
    plan = review(items, settings=Settings(bots_ran=3), diff=DiffScope.parse(DIFF))
    members = [m for item in plan.findings for m in item.finding.members]
    assert sorted(map(repr, members)) == sorted(map(repr, items))


def test_fingerprint_follows_the_code_and_survives_a_new_agreeing_bot() -> None:
    code = "    cursor.execute(query)\n"
    first = "--- a/app/db.py\n+++ b/app/db.py\n@@ -10,1 +10,1 @@\n-old\n+" + code
    pushed = "--- a/app/db.py\n+++ b/app/db.py\n@@ -25,1 +25,2 @@\n-old\n+" + code + "+x\n"
    [before] = review(
        [finding("b", 10)], settings=Settings(bots_ran=2), diff=DiffScope.parse(first)
    ).findings
    moved = [finding("b", 25), finding("c", 26, title="A much longer SQL injection title")]
    [after] = review(moved, settings=Settings(bots_ran=2), diff=DiffScope.parse(pushed)).findings
    assert before.fingerprint == after.fingerprint
    other = msgspec.structs.replace(before.finding, file="app/x.py")
    assert fingerprint(other, before.code) != before.fingerprint


def test_zero_findings_is_an_approve_review() -> None:
    plan = review([])
    assert plan.assessment is Assessment.APPROVE
    assert plan.findings == () and not plan.gate.failed


@pytest.mark.parametrize("cap", [0, 3])
def test_multi_line_spans_anchor_only_when_every_line_is_addressable(cap: int) -> None:
    span = NormalizedFinding(
        "a", "x", Severity.HIGH, "security", "t", Evidence("app/db.py", 9, end_line=11)
    )
    long = NormalizedFinding(
        "a", "y", Severity.HIGH, "logic_error", "t", Evidence("app/db.py", 11, end_line=16)
    )
    plan = review(
        [span, long], settings=Settings(bots_ran=1, comment_cap=cap), diff=DiffScope.parse(DIFF)
    )
    ends = {i.finding.line: i.span_end for i in plan.findings}
    assert ends == {9: 11, 11: None}


def test_the_comment_cap_keeps_the_findings_their_tool_ranks_first() -> None:
    # Three lone findings of one rule tie on probability and severity; the tool's SARIF rank
    # (its priority) decides which one the cap of one comment keeps inline.
    ranked = [
        msgspec.structs.replace(
            finding("scan", line, file=f"app/m{line}.py", category="logic_error"), priority=priority
        )
        for line, priority in ((10, 0.2), (20, 0.9), (30, 0.5))
    ]
    settings = Settings(
        comment_cap=1,
        model="reliability",
        profile=Profile(),
        inline_level=ConsensusLevel.UNVERIFIED,
    )
    plan = review(ranked, settings=settings)
    inline = [i.finding.file for i in plan.findings if i.disposition is Disposition.INLINE]
    assert inline == ["app/m20.py"]
