"""Which clusters are verified (SPEC 12): only where a verdict can change the review.

Eligible: the uncertain middle (a consensus probability from the needs-verification cut
up to, not including, the confirmed cut) and findings of high or critical severity that
one witness family alone reported. Never: a cluster two or more independent families
already confirm, a finding out of the diff or without a line, a finding that already has
a verdict (`--verdicts`), or a low-severity, non-security finding the review keeps out of
the inline comments anyway. Eligible clusters are ordered by expected value, severity
weight x p(1-p), and the first `limit` are sent; the others are "not verified: budget".
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from review_quorum.model import ConsensusFinding, Severity
from review_quorum.plan import PlannedFinding
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.families import KNOWN_FAMILIES
from review_quorum.scoring.reliability import (
    CONFIRMED_PROBABILITY,
    NEEDS_VERIFICATION_PROBABILITY,
)

SEVERITY_WEIGHT = {
    Severity.CRITICAL: 4.0,
    Severity.HIGH: 3.0,
    Severity.MEDIUM: 2.0,
    Severity.LOW: 1.0,
    Severity.INFO: 0.5,
}
_FAMILY_OF = {bot: name for name, bots in KNOWN_FAMILIES.items() for bot in bots}

VERDICT_GIVEN = "a verdict was given"
OUT_OF_DIFF = "out of the diff"
NO_LINE = "no line to verify"
CONFIRMED_BY_FAMILIES = "confirmed by independent families"
LOW_VALUE = "low severity, bound for the summary"
NOT_UNCERTAIN = "consensus is not uncertain"
BUDGET = "budget"


class Candidate(msgspec.Struct, frozen=True):
    """An eligible cluster: its place in the plan, its families, its expected value."""

    index: int
    families: tuple[str, ...]
    value: float


class Passed(msgspec.Struct, frozen=True):
    """A cluster not sent, and why."""

    index: int
    reason: str


class Selection(msgspec.Struct, frozen=True):
    chosen: tuple[Candidate, ...]
    passed: tuple[Passed, ...]


def families(finding: ConsensusFinding) -> tuple[str, ...]:
    """The independent witness families that reported the cluster."""
    if finding.contributions:
        return tuple(sorted({part.family for part in finding.contributions}))
    return tuple(sorted({_FAMILY_OF.get(bot, bot) for bot in finding.detected_by}))


def reason_to_pass(item: PlannedFinding, family_count: int) -> str | None:
    """Why a verdict could not change where the finding goes, or None when it could."""
    finding = item.finding
    if item.verdict is not None:
        return VERDICT_GIVEN
    if item.in_diff is False:
        return OUT_OF_DIFF
    if finding.line is None or not finding.file:
        return NO_LINE
    probability = finding.consensus_score
    if family_count >= 2 and probability >= CONFIRMED_PROBABILITY:
        return CONFIRMED_BY_FAMILIES
    if (
        finding.severity <= Severity.LOW
        and finding.category != "security"
        and item.disposition is not Disposition.INLINE
    ):
        return LOW_VALUE
    if NEEDS_VERIFICATION_PROBABILITY <= probability < CONFIRMED_PROBABILITY:
        return None
    if family_count == 1 and finding.severity >= Severity.HIGH:
        return None
    return NOT_UNCERTAIN


def expected_value(finding: ConsensusFinding) -> float:
    probability = finding.consensus_score
    return SEVERITY_WEIGHT[finding.severity] * probability * (1.0 - probability)


def select(findings: Sequence[PlannedFinding], limit: int) -> Selection:
    """The clusters to verify, highest expected value first, at most `limit` of them."""
    eligible: list[Candidate] = []
    passed: list[Passed] = []
    for index, item in enumerate(findings):
        named = families(item.finding)
        reason = reason_to_pass(item, len(named))
        if reason is None:
            eligible.append(Candidate(index, named, expected_value(item.finding)))
        else:
            passed.append(Passed(index, reason))
    eligible.sort(key=lambda candidate: -candidate.value)  # stable: ties keep plan order
    chosen = eligible[: max(limit, 0)]
    passed.extend(Passed(candidate.index, BUDGET) for candidate in eligible[len(chosen) :])
    return Selection(tuple(chosen), tuple(sorted(passed, key=lambda p: p.index)))
