"""The gate a user sees, decided in `plan.py` alone: one test per rule (docs/architecture.md).

The rules: a finding at or above the gate level gates; a dropped one, one a verifier
dismissed, one a writer triaged (``/quorum false-positive``, ``wont-fix``, ``ack``; a
reaction is not triage) and, with a baseline and gate-on "new", a pre-existing one do
not; a decision on an earlier identity follows its finding to where the history
recorded it; triage comes after the comment cap and leaves the assessment as the
comments made it; who votes when ``--bots`` is not given (`voters`); the gate stays on
consensus after a verifier re-plans (`kept_gate`); and the review event asks for
changes only on what the gate would count (`choose_event`). `history/` only reads:
`test_the_history_holds_no_gate_policy` keeps it so.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from msgspec.structs import replace

import review_quorum
from review_quorum.cli.posting import choose_event
from review_quorum.model import ConsensusLevel, Evidence, NormalizedFinding, Severity
from review_quorum.plan import (
    NO_TRIAGE,
    AwaitedBots,
    BotCoverage,
    Decision,
    PlannedFinding,
    ReviewPlan,
    Settings,
    State,
    Triage,
    assemble,
    gate_at,
    kept_gate,
    review,
    voters,
)
from review_quorum.render.review import render
from review_quorum.scope import DiffScope
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)

LEVEL = ConsensusLevel.UNVERIFIED
SETTINGS = Settings(bots_ran=2, inline_level=LEVEL, gate_level=LEVEL)


def finding(
    bot: str, line: int | None, title: str, category: str = "security"
) -> NormalizedFinding:
    return NormalizedFinding(
        bot, f"{bot}-{line}", Severity.MEDIUM, category, title, Evidence("app/db.py", line)
    )


SQL = [finding("bandit", 10, "SQL injection in query"), finding("semgrep", 10, "SQL injection")]
ASSERT = finding("bandit", 40, "Use of assert detected")


def plan(triage: Triage = NO_TRIAGE, settings: Settings = SETTINGS) -> ReviewPlan:
    return review([*SQL, ASSERT], settings=settings, triage=triage)


def at(plan: ReviewPlan, line: int) -> PlannedFinding:
    return next(item for item in plan.findings if item.finding.line == line)


def decide(item: PlannedFinding, action: str = "false-positive", actor: str = "alice") -> Decision:
    return Decision(item.fingerprint, action, actor, "2026-01-01", "test only", "x:1")


def gated(plan: ReviewPlan) -> list[int | None]:
    return [item.finding.line for item in plan.gate.blocking]


# --- the gate's own rules ----------------------------------------------------------------


def test_a_finding_at_or_above_the_level_gates_one_below_does_not_and_none_never() -> None:
    assert gated(plan()) == [10, 40]
    # one bot of two is "unverified"; two of two is "confirmed"
    confirmed = replace(SETTINGS, gate_level=ConsensusLevel.CONFIRMED)
    assert gated(plan(settings=confirmed)) == [10]
    assert gated(plan(settings=replace(SETTINGS, gate_level=None))) == []
    assert plan(settings=replace(SETTINGS, gate_level=None)).gate.level is None


def test_a_dropped_finding_never_gates() -> None:
    diff = DiffScope.parse(
        "diff --git a/app/db.py b/app/db.py\n--- a/app/db.py\n+++ b/app/db.py\n"
        "@@ -9,0 +10,1 @@\n+query = 1\n"
    )
    scoped = review([*SQL, ASSERT], settings=SETTINGS, diff=diff)
    assert at(scoped, 40).disposition is Disposition.DROPPED
    assert gated(scoped) == [10]


def _verdict(line: int, kind: Verdict) -> AttachedVerdictInput:
    attached = AttachedVerdict(
        verdict=kind,
        severity=VerifierSeverity.HIGH,
        evidence_strength=EvidenceStrength.DIRECT,
        context_completeness=ContextCompleteness.FULL,
        in_changed_code=True,
        issue="",
        details="read the call site",
        source="v.json",
        position="/verdicts/0",
    )
    return AttachedVerdictInput("app/db.py", line, attached)


def test_a_finding_a_verifier_dismissed_does_not_gate_a_confirmed_one_does() -> None:
    dismissed = review(
        [*SQL, ASSERT], settings=SETTINGS, verdicts=[_verdict(40, Verdict.DISMISSED)]
    )
    assert gated(dismissed) == [10]
    confirmed = review(
        [*SQL, ASSERT], settings=SETTINGS, verdicts=[_verdict(40, Verdict.CONFIRMED)]
    )
    assert gated(confirmed) == [10, 40]


@pytest.mark.parametrize(("on", "expected"), [("new", [10]), ("all", [10, 40])])
def test_a_pre_existing_finding_gates_only_with_gate_on_all(on: str, expected: list[int]) -> None:
    settings = replace(SETTINGS, gate_on=on)
    compared = review([*SQL, ASSERT], settings=settings, baseline=[ASSERT], baseline_sources=["b"])
    assert at(compared, 40).baseline_state == "unchanged"
    assert gated(compared) == expected


# --- triage: an input to planning --------------------------------------------------------


@pytest.mark.parametrize("action", ["false-positive", "wont-fix", "ack"])
def test_a_triaged_finding_leaves_the_comments_and_the_gate_and_is_named(action: str) -> None:
    before = plan()
    target = at(before, 40)
    assert target in before.inline and target in before.gate.blocking
    after = plan(Triage((decide(target, action),)))
    quiet = at(after, 40)
    assert quiet.disposition is Disposition.AUDIT
    assert quiet.triage is not None and quiet.triage.actor == "alice"
    said = {"false-positive": "false positive", "wont-fix": "won't fix", "ack": "acknowledged"}
    assert quiet.reason == f"{target.reason}; {said[action]} by alice"
    assert [i.finding.line for i in after.inline] == [10]
    assert gated(after) == [10]
    assert f"Use of assert detected (app/db.py:40): {said[action]} by @alice: test only" in render(
        after
    )


@pytest.mark.parametrize("action", ["thumbs-up", "thumbs-down"])
def test_a_reaction_is_evidence_not_a_decision(action: str) -> None:
    after = plan(Triage((decide(at(plan(), 40), action),)))
    assert after == plan()
    assert "Acknowledged" not in render(after)


def test_the_latest_decision_on_a_finding_is_the_one_named() -> None:
    target = at(plan(), 40)
    after = plan(Triage((decide(target, "ack", "alice"), decide(target, "wont-fix", "bob"))))
    assert at(after, 40).reason.endswith("; won't fix by bob")
    assert at(after, 40).triage == decide(target, "wont-fix", "bob")


def test_a_decision_on_an_earlier_identity_follows_its_finding_to_its_recorded_place() -> None:
    old = "0123456789abcdef01234567"
    decision = Decision(old, "false-positive", "alice", "t", "", "x:1")
    followed = plan(Triage((decision,), {old: ("app/db.py", "security", 40)}))
    assert at(followed, 40).disposition is Disposition.AUDIT and gated(followed) == [10]
    assert at(followed, 40).triage == replace(decision, fingerprint=at(followed, 40).fingerprint)
    nowhere = plan(Triage((decision,), {old: ("app/db.py", "security", 41)}))
    unknown = plan(Triage((decision,)))
    assert nowhere == plan() and unknown == plan()
    # a decision on an identity this review has stays with it, wherever its id was seen
    target = at(plan(), 40)
    elsewhere = {target.fingerprint: ("app/db.py", "security", 10)}
    assert gated(plan(Triage((decide(target),), elsewhere))) == [10]


def test_a_triaged_dropped_finding_stays_dropped_and_is_still_named() -> None:
    diff = DiffScope.parse(
        "diff --git a/app/db.py b/app/db.py\n--- a/app/db.py\n+++ b/app/db.py\n"
        "@@ -9,0 +10,1 @@\n+query = 1\n"
    )
    target = at(review([*SQL, ASSERT], settings=SETTINGS, diff=diff), 40)
    after = review([*SQL, ASSERT], settings=SETTINGS, diff=diff, triage=Triage((decide(target),)))
    assert at(after, 40).disposition is Disposition.DROPPED
    assert at(after, 40).reason == target.reason
    assert "Use of assert detected (app/db.py:40): false positive by @alice" in render(after)


def test_triage_comes_after_the_cap_and_leaves_the_assessment() -> None:
    style = [
        finding("pylint", 10, "Too many branches", "maintainability"),
        finding("ruff", 10, "Too many branches", "maintainability"),
        finding("pylint", 40, "Unused variable", "maintainability"),
    ]
    capped = replace(SETTINGS, comment_cap=1)
    before = review(style, settings=capped)
    assert [i.finding.line for i in before.inline] == [10]
    assert at(before, 40).disposition is Disposition.SUMMARY
    after = review(style, settings=capped, triage=Triage((decide(at(before, 10)),)))
    # the comment the cap moved to the summary is not posted in the triaged one's place
    assert after.inline == ()
    assert at(after, 40).disposition is Disposition.SUMMARY
    assert at(after, 10).disposition is Disposition.AUDIT
    assert after.assessment is before.assessment
    assert gated(after) == [40]


def test_a_saved_plans_findings_assembled_again_honour_the_same_triage() -> None:
    before = plan()
    decision = decide(at(before, 40))
    triage = Triage((decision,))
    again = assemble(before.findings, SETTINGS, bots_ran=2, input_count=3, triage=triage)
    assert again == plan(Triage((decision,)))


def test_every_triage_command_silences() -> None:
    from review_quorum.history.triage import ACTIONS

    assert all(Decision("f", action, "a", "t", "", "v").silences for action in ACTIONS)


# --- coverage: who votes, and the summary ------------------------------------------------

COVERED = (
    BotCoverage("copilot", State.REVIEWED),
    BotCoverage("coderabbit", State.STALE),
    BotCoverage("gemini", State.DECLINED, "rate-limit notice"),
    BotCoverage("greptile", State.ABSENT),
)


def test_the_expected_bots_that_reviewed_vote_and_the_others_do_not() -> None:
    assert voters({"bandit"}, None, COVERED) == ("bandit", "copilot")
    assert voters({"copilot", "bandit"}, None, COVERED) is None  # nothing to add
    assert voters({"bandit"}, None, COVERED[1:]) is None
    assert voters(set(), None, ()) is None


def test_the_awaited_bots_that_reported_vote_before_coverage() -> None:
    awaited = AwaitedBots(("copilot", "sourcery", "greptile"), skipped=("greptile",))
    assert voters({"bandit"}, awaited, COVERED) == ("bandit", "copilot", "sourcery")
    assert voters({"bandit"}, AwaitedBots(("copilot",), missing=("copilot",)), COVERED) == (
        "bandit",
    )


def test_the_summary_names_the_bots_that_did_not_review() -> None:
    text = render(review([*SQL, ASSERT], settings=SETTINGS, coverage=COVERED))
    assert (
        "**Did not review this commit:** coderabbit (reviewed an older commit only); "
        "gemini (said it would not review: rate-limit notice); greptile (did not review)."
    ) in text
    quiet = review([*SQL, ASSERT], settings=SETTINGS, coverage=COVERED[:1])
    assert render(quiet) == render(plan())


def test_triage_is_said_before_coverage_and_after_the_plans_own_notes() -> None:
    triaged = review(
        [*SQL, ASSERT],
        settings=SETTINGS,
        coverage=COVERED,
        triage=Triage((decide(at(plan(), 40)),)),
    )
    text = render(replace(triaged, notes=("Verifier: a note.",)))
    assert text.index("Verifier: a note.") < text.index("**Acknowledged**")
    assert text.index("**Acknowledged**") < text.index("**Did not review this commit:**")


# --- the gate after a verifier, and the review event -------------------------------------


def test_the_gate_stays_on_consensus_after_a_verifier_re_plans() -> None:
    before = plan()
    after = review([*SQL, ASSERT], settings=SETTINGS, verdicts=[_verdict(40, Verdict.DISMISSED)])
    assert gated(after) == [10]
    kept = kept_gate(before, after)
    assert gated(kept) == [10, 40]
    assert kept.gate.blocking[1] is at(after, 40)  # the re-planned finding, not the old one
    assert kept.findings == after.findings


def test_request_changes_counts_what_the_gate_counts() -> None:
    only_assert = review([ASSERT], settings=SETTINGS)
    assert choose_event(only_assert, "unverified") == "REQUEST_CHANGES"
    assert choose_event(only_assert, None) == "COMMENT"
    triaged = review([ASSERT], settings=SETTINGS, triage=Triage((decide(at(only_assert, 40)),)))
    assert not triaged.gate.failed
    assert choose_event(triaged, "unverified") == "COMMENT"
    assert not gate_at(triaged.findings, LEVEL).failed


# --- the history only reads --------------------------------------------------------------

DECIDING = {"Gate", "gate_at", "kept_gate", "assemble", "review", "Disposition", "silenced"}
# What a history reader may copy with changed fields: how it reads a platform's comments
# (`ReadOptions`) and which pull request it reads (a platform's target), never a plan.
READING = {"options", "self.where"}


def test_the_history_holds_no_gate_policy() -> None:
    """No module of history/ makes or changes a plan: none imports what decides a gate or
    a disposition, none replaces fields of a struct other than its reading options, none
    returns a plan."""
    wrong: list[str] = []
    for path in sorted((Path(review_quorum.__file__).parent / "history").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                named = {alias.name for alias in node.names}
                if named & DECIDING:
                    wrong.append(f"{path.name}: from {node.module} import {sorted(named)}")
            elif isinstance(node, ast.Attribute) and node.attr in DECIDING:
                if isinstance(node.value, ast.Attribute) and node.value.attr == "structs":
                    wrong.append(f"{path.name}: msgspec.structs.{node.attr}")
            elif isinstance(node, ast.Call) and _replaces(node.func):
                first = ast.unparse(node.args[0]) if node.args else ""
                if first not in READING:
                    wrong.append(f"{path.name}: replace({first}, ...)")
            elif isinstance(node, ast.FunctionDef) and _returns_a_plan(node):
                wrong.append(f"{path.name}: {node.name} returns a plan")
    assert wrong == []


def _replaces(func: ast.expr) -> bool:
    """`replace(...)` or `msgspec.structs.replace(...)`, as history modules could call it
    (a string's `.replace` is not one)."""
    if isinstance(func, ast.Name):
        return func.id == "replace"
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "replace"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "structs"
    )


def _returns_a_plan(node: ast.FunctionDef) -> bool:
    returned = ast.unparse(node.returns) if node.returns is not None else ""
    return "ReviewPlan" in returned or "PlannedFinding" in returned


def test_link_mode_says_the_triage_and_coverage_too() -> None:
    linked = replace(SETTINGS, inline_mode="link")
    target = at(plan(settings=linked), 40)
    text = render(
        review([*SQL, ASSERT], settings=linked, coverage=COVERED, triage=Triage((decide(target),)))
    )
    assert "Use of assert detected (app/db.py:40): false positive by @alice" in text
    assert "**Did not review this commit:** coderabbit" in text


def test_the_gate_is_said_in_a_few_words_for_a_status() -> None:
    assert plan().gate.describe() == "2 finding(s) at unverified or above"
    passed = plan(Triage((decide(at(plan(), 10)), decide(at(plan(), 40)))))
    assert passed.gate.describe() == "no finding at unverified or above"
    assert plan(settings=replace(SETTINGS, gate_level=None)).gate.describe() == (
        "no finding at any or above"
    )


# --- the report's counts by level are the gate's ------------------------------------------


def by_level(plan: ReviewPlan) -> dict[str, int]:
    from review_quorum.render.json_report import report_data

    document = report_data(plan)
    assert document["gate"]["count"] == len(plan.gate.blocking)
    return dict(document["gate_findings_by_level"])


def test_the_reports_counts_by_level_leave_out_a_triaged_finding_as_the_gate_does() -> None:
    assert by_level(plan()) == {"confirmed": 1, "needs-verification": 0, "unverified": 1}
    after = plan(Triage((decide(at(plan(), 40)),)))
    assert gated(after) == [10]
    assert by_level(after) == {"confirmed": 1, "needs-verification": 0, "unverified": 0}


@pytest.mark.parametrize(("on", "unverified"), [("new", 0), ("all", 1)])
def test_the_reports_counts_by_level_follow_gate_on_for_a_pre_existing_finding(
    on: str, unverified: int
) -> None:
    settings = replace(SETTINGS, gate_on=on)
    compared = review([*SQL, ASSERT], settings=settings, baseline=[ASSERT], baseline_sources=["b"])
    counts = by_level(compared)
    assert counts == {"confirmed": 1, "needs-verification": 0, "unverified": unverified}
    assert counts["confirmed"] + counts["unverified"] == len(compared.gate.blocking)


def test_the_reports_counts_by_level_are_weighed_even_without_a_gate_level() -> None:
    ungated = plan(settings=replace(SETTINGS, gate_level=None))
    assert ungated.gate.blocking == ()
    assert by_level(ungated) == {"confirmed": 1, "needs-verification": 0, "unverified": 1}


def test_the_reports_counts_by_level_stay_on_consensus_with_the_kept_gate() -> None:
    after = review([*SQL, ASSERT], settings=SETTINGS, verdicts=[_verdict(40, Verdict.DISMISSED)])
    assert by_level(after) == {"confirmed": 1, "needs-verification": 0, "unverified": 0}
    kept = kept_gate(plan(), after)
    assert gated(kept) == [10, 40]
    assert by_level(kept) == {"confirmed": 1, "needs-verification": 0, "unverified": 1}
    assert kept.gate.weighed[1] is at(after, 40)


def _verified(plan: ReviewPlan, gate: str) -> ReviewPlan:
    """`plan` with a verification's figures, as the verifier stage leaves them."""
    import msgspec

    from review_quorum.verifier.figures import Figures

    figures = Figures(
        model="m",
        endpoint="openai",
        verified=1,
        cached=0,
        not_verified={},
        skipped={},
        dismissed_for_review_by_hand=0,
        review_by_hand=[],
        injection_suspected=[],
        verdicts={"DISMISSED": 1},
        placements_changed=1,
        requests=1,
        tokens_in=10,
        tokens_out=5,
        latency_p50_s=0.5,
        latency_p95_s=0.5,
        problems=[],
        gate=gate,
    )
    return replace(plan, extra={"verification": msgspec.to_builtins(figures)})


@pytest.mark.parametrize(("gate", "expected"), [("consensus", [10, 40]), ("verified", [10])])
def test_a_saved_verified_plan_reads_back_with_the_gate_it_was_given(
    gate: str, expected: list[int]
) -> None:
    import orjson

    from review_quorum.render.json_report import report_data
    from review_quorum.saved_plan import read_saved_plan

    after = review([*SQL, ASSERT], settings=SETTINGS, verdicts=[_verdict(40, Verdict.DISMISSED)])
    verified = _verified(kept_gate(plan(), after) if gate == "consensus" else after, gate)
    assert gated(verified) == expected
    document = orjson.loads(orjson.dumps(report_data(verified)))
    assert document["gate"]["count"] == len(expected)
    read = read_saved_plan(document, "plan.json")
    assert gated(read) == expected
    again = orjson.loads(orjson.dumps(report_data(read)))
    rendered = ("summary_markdown", "github_review")  # the summary adds the figures' notes
    assert {k: v for k, v in again.items() if k not in rendered} == {
        k: v for k, v in document.items() if k not in rendered
    }


def test_the_reports_counts_by_level_count_every_finding_at_a_level() -> None:
    more = [finding("bandit", 70, "Hard-coded password"), finding("semgrep", 90, "Bare except")]
    counts = by_level(review([*SQL, ASSERT, *more], settings=SETTINGS))
    assert counts == {"confirmed": 1, "needs-verification": 1, "unverified": 2}


def test_the_gate_kept_on_consensus_leaves_out_a_finding_out_of_the_diff() -> None:
    diff = DiffScope.parse(
        "diff --git a/app/db.py b/app/db.py\n--- a/app/db.py\n+++ b/app/db.py\n"
        "@@ -9,0 +10,1 @@\n+query = 1\n"
    )
    before = review([*SQL, ASSERT], settings=SETTINGS, diff=diff)
    after = review(
        [*SQL, ASSERT], settings=SETTINGS, diff=diff, verdicts=[_verdict(10, Verdict.CONFIRMED)]
    )
    assert at(after, 40).disposition is Disposition.DROPPED
    kept = kept_gate(before, after)
    assert gated(kept) == [10]
    assert by_level(kept) == {"confirmed": 1, "needs-verification": 0, "unverified": 0}
