"""Plain-data views of findings for JSON outputs: every field, nothing renamed or lost."""

from __future__ import annotations

from typing import Any

from review_quorum.errors import Skipped
from review_quorum.model import (
    CommentSource,
    ConsensusFinding,
    Contribution,
    Evidence,
    NormalizedFinding,
)


def finding_data(finding: NormalizedFinding) -> dict[str, Any]:
    evidence = finding.evidence
    return {
        "bot": finding.bot,
        "finding_id": finding.finding_id,
        "severity": finding.severity.label,
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
        "source": source_data(finding.source),
        "suggestion": finding.suggestion,
        "related": [_place(place) for place in finding.related],
    }


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


def consensus_data(finding: ConsensusFinding) -> dict[str, Any]:
    """A consensus finding; the reliability model adds its model and each member's share."""
    data = {
        "file": finding.file,
        "line": finding.line,
        "end_line": finding.end_line,
        "category": finding.category,
        "title": finding.title,
        "severity": finding.severity.label,
        "detected_by": list(finding.detected_by),
        "detected_by_count": finding.detected_by_count,
        "bots_ran": finding.bots_ran,
        "agreement_ratio": finding.agreement_ratio,
        "max_confidence": finding.max_confidence,
        "consensus_score": finding.consensus_score,
        "level": finding.level.value,
        "members": [finding_data(member) for member in finding.members],
    }
    if finding.model != "agreement":
        data["model"] = finding.model
        data["contributions"] = [contribution_data(item) for item in finding.contributions]
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
