"""Which clusters are verified: only where a verdict can change the review."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from review_quorum.model import Severity
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)
from review_quorum.scoring.reliability import (
    CONFIRMED_PROBABILITY,
    NEEDS_VERIFICATION_PROBABILITY,
)
from review_quorum.verifier import select as selection
from verifier.conftest import (
    CONFIRMED,
    LONE_HIGH,
    LOW_STYLE,
    TWO_FAMILIES,
    UNCERTAIN,
    Workspace,
    finding,
)


def places(workspace: Workspace, limit: int = 10) -> tuple[list[tuple[str, int]], dict[str, str]]:
    plan = workspace.plan()
    chosen = selection.select(plan.findings, limit)
    sent = [
        (plan.findings[c.index].finding.file, plan.findings[c.index].finding.line or 0)
        for c in chosen.chosen
    ]
    why = {
        f"{plan.findings[p.index].finding.file}:{plan.findings[p.index].finding.line}": p.reason
        for p in chosen.passed
    }
    return sent, why


def test_only_clusters_a_verdict_can_move_are_sent(workspace: Workspace) -> None:
    sent, why = places(workspace)
    assert sorted(sent) == sorted([UNCERTAIN, LONE_HIGH, TWO_FAMILIES])
    assert why == {
        "app/calc.py:18": selection.CONFIRMED_BY_FAMILIES,
        "app/calc.py:19": selection.LOW_VALUE,
        "app/other.py:3": selection.OUT_OF_DIFF,
    }
    assert CONFIRMED not in sent and LOW_STYLE not in sent


def test_eligible_clusters_go_by_expected_value_and_the_rest_say_budget(
    workspace: Workspace,
) -> None:
    plan = workspace.plan()
    values = {
        (item.finding.file, item.finding.line): selection.expected_value(item.finding)
        for item in plan.findings
    }
    sent, why = places(workspace, limit=2)
    ranked = sorted([UNCERTAIN, LONE_HIGH, TWO_FAMILIES], key=lambda p: -values[p])
    assert sent == ranked[:2]
    left = ranked[2]
    assert why[f"{left[0]}:{left[1]}"] == selection.BUDGET


def test_expected_value_weighs_severity_by_uncertainty(workspace: Workspace) -> None:
    plan = workspace.plan()
    item = next(i for i in plan.findings if (i.finding.file, i.finding.line) == LONE_HIGH)
    p = item.finding.consensus_score
    assert selection.expected_value(item.finding) == 3.0 * p * (1 - p)


def test_a_finding_with_a_given_verdict_is_not_sent_again(workspace: Workspace) -> None:
    given = AttachedVerdict(
        Verdict.CONFIRMED,
        VerifierSeverity.HIGH,
        EvidenceStrength.DIRECT,
        ContextCompleteness.FULL,
        True,
        "",
        "",
        "file",
        "/verdicts/0",
    )
    plan = workspace.plan([AttachedVerdictInput(*LONE_HIGH, given)])
    chosen = selection.select(plan.findings, 10)
    reasons = {plan.findings[p.index].finding.line: p.reason for p in chosen.passed}
    assert reasons[LONE_HIGH[1]] == selection.VERDICT_GIVEN


def test_a_lone_high_finding_is_sent_even_when_not_in_the_middle(workspace: Workspace) -> None:
    plan = workspace.plan()
    item = next(i for i in plan.findings if (i.finding.file, i.finding.line) == LONE_HIGH)
    assert item.finding.consensus_score < 0.5  # below the middle: eligible for being alone
    assert selection.reason_to_pass(item, 1) is None
    assert selection.reason_to_pass(item, 2) == selection.NOT_UNCERTAIN


def test_a_lone_medium_finding_below_the_middle_is_not_sent(workspace: Workspace) -> None:
    workspace.findings = [finding("coderabbit", 12, Severity.MEDIUM, "logic_error", "odd")]
    sent, why = places(workspace)
    assert sent == []
    assert why == {"app/calc.py:12": selection.NOT_UNCERTAIN}


def test_families_come_from_the_reliability_model_or_known_families(workspace: Workspace) -> None:
    workspace.findings = [
        finding("bandit", 12, Severity.MEDIUM, "security", "eval of input"),
        finding("ruff", 12, Severity.MEDIUM, "security", "eval of input"),
    ]
    plan = workspace.plan()
    assert selection.families(plan.findings[0].finding) == ("bandit-ruff",)


def test_two_families_that_confirm_a_cluster_are_not_second_guessed(
    workspace: Workspace,
) -> None:
    workspace.findings = [
        finding("alpha", 12, Severity.MEDIUM, "logic_error", "off by one in the loop bound"),
        finding("beta", 12, Severity.MEDIUM, "logic_error", "loop bound is off by one"),
    ]
    plan = workspace.plan()
    [item] = plan.findings
    assert item.finding.consensus_score >= 0.8
    assert selection.families(item.finding) == ("alpha", "beta")
    assert selection.reason_to_pass(item, 2) == selection.CONFIRMED_BY_FAMILIES


def test_the_middle_starts_at_the_needs_verification_cut(workspace: Workspace) -> None:
    workspace.findings = [finding("bandit", 12, Severity.MEDIUM, "logic_error", "odd loop")]
    plan = workspace.plan()
    [item] = plan.findings
    assert item.finding.consensus_score == 0.5
    assert selection.reason_to_pass(item, 1) is None


CUT, LOW_CUT = CONFIRMED_PROBABILITY, NEEDS_VERIFICATION_PROBABILITY


@pytest.mark.parametrize(
    ("families", "severity", "probability", "reason"),
    [
        (1, Severity.HIGH, 0.95, None),  # one family alone: a high finding is verified
        (2, Severity.HIGH, 0.95, selection.CONFIRMED_BY_FAMILIES),
        (2, Severity.MEDIUM, CUT, selection.CONFIRMED_BY_FAMILIES),
        (2, Severity.MEDIUM, CUT - 0.01, None),  # two families, not yet confirmed
        (1, Severity.MEDIUM, CUT, selection.NOT_UNCERTAIN),  # the confirmed cut is not
        (1, Severity.MEDIUM, CUT - 0.01, None),  # uncertain; just below it is
        (1, Severity.MEDIUM, LOW_CUT, None),  # the needs-verification cut is uncertain
        (1, Severity.MEDIUM, LOW_CUT - 0.01, selection.NOT_UNCERTAIN),
    ],
)
def test_the_uncertain_middle_and_a_lone_high_finding_are_verified_at_their_edges(
    workspace: Workspace,
    families: int,
    severity: Severity,
    probability: float,
    reason: str | None,
) -> None:
    item = workspace.plan().findings[0]
    cluster = replace(item.finding, severity=severity, consensus_score=probability)
    item = replace(
        item, finding=cluster, verdict=None, in_diff=True, disposition=Disposition.INLINE
    )
    assert cluster.line is not None and cluster.file
    assert selection.reason_to_pass(item, families) == reason
