"""Verifier verdicts attached to consensus findings (SPEC sections 4 and 5).

A verdict read from a verifier file names a file and a line; `attach_verdicts` gives it
to the consensus finding of that file nearest that line, within the line window, and
reports a verdict that matches no finding, or lands on a finding already judged, as a
counted `Skipped` record. `scoring_input` makes the scorer's record of a finding and its
verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from review_quorum.errors import Skipped
from review_quorum.model import ConsensusFinding
from review_quorum.scoring.confidence.verdicts import (
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    Verdict,
    VerifierSeverity,
)

_SEED_CATEGORIES = {category.value: category for category in Category}


class AttachedVerdict(msgspec.Struct, frozen=True):
    """A verifier's verdict on one consensus finding, and where it came from."""

    verdict: Verdict
    severity: VerifierSeverity
    evidence_strength: EvidenceStrength
    context_completeness: ContextCompleteness
    in_changed_code: bool
    issue: str
    details: str
    source: str
    position: str


class AttachedVerdictInput(msgspec.Struct, frozen=True):
    """A verdict as read from a verifier file, before it is attached to a finding."""

    file: str
    line: int
    verdict: AttachedVerdict


def attach_verdicts(
    consensus: Sequence[ConsensusFinding],
    verdicts: Sequence[AttachedVerdictInput],
    window: int,
) -> tuple[dict[int, AttachedVerdict], list[Skipped]]:
    """Each verdict on the consensus finding of its file nearest its line (within window).

    Equally near findings go to the first in consensus order. Findings are looked up by
    (file, line), so this stays linear however many verdicts and findings there are.
    """
    if not verdicts:
        return {}, []
    at: dict[tuple[str, int], int] = {}
    for index, finding in enumerate(consensus):
        if finding.line is not None:
            at.setdefault((finding.file, finding.line), index)
    attached: dict[int, AttachedVerdict] = {}
    unmatched: list[Skipped] = []
    for item in verdicts:
        target = _nearest(at, item.file, item.line, window)
        place = f"{item.file}:{item.line}"
        where = (item.verdict.source, item.verdict.position)
        if target is None:
            unmatched.append(Skipped(*where, f"verdict for {place} matches no finding"))
        elif target in attached:
            unmatched.append(
                Skipped(*where, f"verdict for {place} is a second verdict on one finding")
            )
        else:
            attached[target] = item.verdict
    return attached, unmatched


def _nearest(at: Mapping[tuple[str, int], int], file: str, line: int, window: int) -> int | None:
    for distance in range(window + 1):
        found = [
            index
            for candidate in {line - distance, line + distance}
            if (index := at.get((file, candidate))) is not None
        ]
        if found:
            return min(found)
    return None


def scoring_input(
    finding: ConsensusFinding, verdict: AttachedVerdict, in_diff: bool | None
) -> FindingInput:
    """The scorer's record of a consensus finding and the verdict attached to it."""
    return FindingInput(
        file=finding.file,
        line=finding.line or 1,
        category=_SEED_CATEGORIES.get(finding.category, Category.OTHER),
        verdict=verdict.verdict,
        evidence_strength=verdict.evidence_strength,
        context_completeness=verdict.context_completeness,
        drafter_severity=VerifierSeverity.from_severity(finding.severity),
        verifier_severity=verdict.severity,
        in_diff=in_diff is not False,
        in_changed_code=verdict.in_changed_code,
        issue=verdict.issue,
        details=verdict.details,
    )
