"""Plain-data views of findings for JSON outputs: every field, nothing renamed or lost.

These run once per finding and member of a million-finding output, so they read each
field once and build each dict in one literal.
"""

from __future__ import annotations

from typing import Any

from review_quorum.errors import Skipped
from review_quorum.model import (
    NO_PRIORITY,
    CommentSource,
    ConsensusFinding,
    Contribution,
    Evidence,
    NormalizedFinding,
    Severity,
)

_LABELS = tuple(severity.label for severity in Severity)  # indexed by severity


def member_data(finding: NormalizedFinding) -> dict[str, Any]:
    evidence = finding.evidence
    source = finding.source
    related = finding.related
    data = {
        "bot": finding.bot,
        "finding_id": finding.finding_id,
        "severity": _LABELS[finding.severity],
        "category": finding.category,
        "title": finding.title,
        "evidence": {
            "file": evidence.file,
            "line": evidence.line,
            "end_line": evidence.end_line,
            "snippet": evidence.snippet,
            "symbol": evidence.symbol,
        },
        "confidence": finding.confidence,
        "rule_id": finding.rule_id,
        "source": None if source is None else source_data(source),
        "suggestion": finding.suggestion,
        "related": [_place(place) for place in related] if related else [],
    }
    # Written only when set, so every other member serialises as before; a saved plan
    # needs them to rebuild the same clusters (`saved_plan`, `checked_plan`).
    if finding.cwes:
        data["cwes"] = list(finding.cwes)
    if finding.use_only:
        data["use_only"] = True
    if finding.priority != NO_PRIORITY:
        data["priority"] = finding.priority
    return data


def _place(evidence: Evidence) -> dict[str, Any]:
    return {"file": evidence.file, "line": evidence.line, "end_line": evidence.end_line}


def source_data(source: CommentSource | None) -> dict[str, Any] | None:
    """The GitHub comment a finding came from (what hiding duplicates acts on), or None."""
    if source is None:
        return None
    return {
        "kind": source.kind,
        "rest_id": source.rest_id,
        "node_id": source.node_id,
        "html_url": source.html_url,
        "author": source.author,
    }


def consensus_data(
    finding: ConsensusFinding, *, shares: dict[int, list[dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """A consensus finding; the reliability model adds its model and each member's share.

    Clusters of the same sources share one tuple of contributions, so a caller rendering
    many findings can pass `shares` to build each tuple's data once (the lists are then
    shared; they are keyed by the tuple's identity, so the findings must outlive it).
    """
    members = finding.members
    detected_by = finding.detected_by
    line = finding.line
    if len(members) == 1:  # most findings: the member's data inline, its evidence read once
        member = members[0]
        evidence = member.evidence
        end = evidence.end_line
        source = member.source
        related = member.related
        members_data = [
            {
                "bot": member.bot,
                "finding_id": member.finding_id,
                "severity": _LABELS[member.severity],
                "category": member.category,
                "title": member.title,
                "evidence": {
                    "file": evidence.file,
                    "line": evidence.line,
                    "end_line": end,
                    "snippet": evidence.snippet,
                    "symbol": evidence.symbol,
                },
                "confidence": member.confidence,
                "rule_id": member.rule_id,
                "source": None if source is None else source_data(source),
                "suggestion": member.suggestion,
                "related": [_place(place) for place in related] if related else [],
            }
        ]
        if member.cwes:
            members_data[0]["cwes"] = list(member.cwes)
        if member.use_only:
            members_data[0]["use_only"] = True
        if member.priority != NO_PRIORITY:
            members_data[0]["priority"] = member.priority
        # ConsensusFinding.end_line of one member, without the property's call
        end_line = None if line is None or end is None or end <= line else end
    else:
        members_data = list(map(member_data, members))
        end_line = finding.end_line
    data = {
        "file": finding.file,
        "line": line,
        "end_line": end_line,
        "category": finding.category,
        "title": finding.title,
        "severity": _LABELS[finding.severity],
        "detected_by": list(detected_by),
        "detected_by_count": len(detected_by),
        "bots_ran": finding.bots_ran,
        "agreement_ratio": finding.agreement_ratio,
        "max_confidence": finding.max_confidence,
        "consensus_score": finding.consensus_score,
        "level": finding.level._value_,  # the value without the enum property's cost
        "members": members_data,
    }
    if finding.model != "agreement":
        data["model"] = finding.model
        contributions = finding.contributions
        if shares is None:
            data["contributions"] = [contribution_data(item) for item in contributions]
        else:
            shared = shares.get(id(contributions))
            if shared is None:
                shared = shares[id(contributions)] = [
                    contribution_data(item) for item in contributions
                ]
            data["contributions"] = shared
    return data


def contribution_data(contribution: Contribution) -> dict[str, Any]:
    return {
        "source": contribution.source,
        "family": contribution.family,
        "reliability": round(contribution.reliability, 4),
        "origin": contribution.origin,
        "counted": contribution.counted,
        "log_odds": round(contribution.weight, 4),
    }


def skipped_data(skipped: Skipped) -> dict[str, str]:
    return {"source": skipped.source, "position": skipped.position, "reason": skipped.reason}
