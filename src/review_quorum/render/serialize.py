"""Findings as the JSON documents' Structs (`review_quorum.report`): every field, nothing
renamed or lost, and msgspec encodes them without a dict in between.

These run once per finding and member of a million-finding output, so they read each
field once and build each Struct in one call. The `*_data` functions are the same values
as plain data (what a test or a digest compares).
"""

from __future__ import annotations

from typing import Any, cast

import msgspec
import orjson
from msgspec import UNSET

from review_quorum.errors import Skipped
from review_quorum.model import (
    NO_PRIORITY,
    CommentSource,
    ConsensusFinding,
    Contribution,
    NormalizedFinding,
    Severity,
)
from review_quorum.report import (
    ConsensusEntry,
    ReportContribution,
    ReportEvidence,
    ReportMember,
    ReportPlace,
    ReportSkipped,
    SeverityLabel,
)

LABELS = cast(tuple[SeverityLabel, ...], tuple(severity.label for severity in Severity))
Shares = dict[int, tuple[ReportContribution, ...]]


def number(value: float) -> float:
    """`value` as orjson writes it: msgspec writes 1e16 and beyond without the exponent's
    '+' (1e16, where orjson writes 1e+16), so those few are handed over already written.
    Out-of-range confidences are kept as given (`model.NormalizedFinding`)."""
    if -1e16 < value < 1e16:
        return value
    return msgspec.Raw(orjson.dumps(value))  # type: ignore[return-value]  # encodes as given


def plain(value: object) -> Any:
    """A document's Struct (or part of one) as the JSON it is read back as: dicts in the
    document's order, lists, numbers as written (not on the output path: for comparing)."""
    return msgspec.json.decode(msgspec.json.encode(value))


def member_entry(finding: NormalizedFinding) -> ReportMember:
    evidence = finding.evidence
    related = finding.related
    confidence = finding.confidence
    return ReportMember(
        finding.bot,
        finding.finding_id,
        LABELS[finding.severity],
        finding.category,
        finding.title,
        ReportEvidence(
            evidence.file, evidence.line, evidence.end_line, evidence.snippet, evidence.symbol
        ),
        confidence if -1e16 < confidence < 1e16 else number(confidence),
        finding.rule_id,
        finding.source,
        finding.suggestion,
        tuple([ReportPlace(p.file, p.line, p.end_line) for p in related]) if related else (),
        # written only when set, so every other member reads as before; a saved plan needs
        # them to rebuild the same clusters (`saved_plan`, `checked_plan`)
        finding.cwes if finding.cwes else UNSET,
        True if finding.use_only else UNSET,
        UNSET if finding.priority == NO_PRIORITY else finding.priority,
    )


def consensus_entry(finding: ConsensusFinding, shares: Shares | None = None) -> ConsensusEntry:
    """A consensus finding; the reliability model adds its model and each member's share.

    Clusters of the same sources share one tuple of contributions, so a caller writing
    many findings can pass `shares` to build each tuple's Structs once (keyed by the
    tuple's identity, so the findings must outlive `shares`).
    """
    members, end_line, model, contributions = parts(finding, shares)
    detected_by = finding.detected_by
    top, score = finding.max_confidence, finding.consensus_score
    return ConsensusEntry(
        finding.file,
        finding.line,
        end_line,
        finding.category,
        finding.title,
        LABELS[finding.severity],
        detected_by,
        len(detected_by),
        finding.bots_ran,
        finding.agreement_ratio,
        top if -1e16 < top < 1e16 else number(top),
        score if -1e16 < score < 1e16 else number(score),
        finding.level,
        members,
        model,
        contributions,
    )


def consensus_head(finding: ConsensusFinding) -> ConsensusEntry:
    """`consensus_entry` with no members and no contributions (empty tuples; UNSET
    contributions with the agreement model), for a writer that writes a big cluster's
    members and contributions a run at a time (`json_stream`)."""
    one = msgspec.structs.replace(finding, members=finding.members[:1], contributions=())
    return msgspec.structs.replace(consensus_entry(one), end_line=finding.end_line, members=())


def parts(finding: ConsensusFinding, shares: Shares | None) -> tuple[Any, Any, Any, Any]:
    """A consensus finding's members, end line, model and contributions as written."""
    members = finding.members
    if len(members) == 1:  # most findings: ConsensusFinding.end_line without the property
        line, end = finding.line, members[0].evidence.end_line
        end_line = None if line is None or end is None or end <= line else end
        written: tuple[ReportMember, ...] = (member_entry(members[0]),)
    else:
        end_line = finding.end_line
        written = tuple(map(member_entry, members))
    if finding.model == "agreement":
        return written, end_line, UNSET, UNSET
    contributions = finding.contributions
    if shares is None:
        return written, end_line, finding.model, contributions_entry(contributions)
    shared = shares.get(id(contributions))
    if shared is None:
        shared = shares[id(contributions)] = contributions_entry(contributions)
    return written, end_line, finding.model, shared


def contributions_entry(contributions: tuple[Contribution, ...]) -> tuple[ReportContribution, ...]:
    return tuple(
        [
            ReportContribution(
                item.source,
                item.family,
                round(item.reliability, 4),
                item.origin,
                item.counted,
                round(item.weight, 4),
            )
            for item in contributions
        ]
    )


def skipped_entry(skipped: Skipped) -> ReportSkipped:
    return ReportSkipped(skipped.source, skipped.position, skipped.reason)


def member_data(finding: NormalizedFinding) -> dict[str, Any]:
    return plain(member_entry(finding))  # type: ignore[no-any-return]


def source_data(source: CommentSource | None) -> dict[str, Any] | None:
    """The comment a finding came from (what hiding duplicates acts on), or None."""
    return plain(source)  # type: ignore[no-any-return]


def consensus_data(finding: ConsensusFinding, *, shares: Shares | None = None) -> dict[str, Any]:
    return plain(consensus_entry(finding, shares))  # type: ignore[no-any-return]


def skipped_data(skipped: Skipped) -> dict[str, str]:
    return plain(skipped_entry(skipped))  # type: ignore[no-any-return]
