"""SARIF 2.1.0 for a plan, ready for GitHub code scanning upload.

One run, tool `review-quorum`, one rule per category. Each result keeps its provenance
(detected_by, agreement, consensus score and level) and, when verified, its confidence
(score, band, disposition, reason) in `properties`; `rank` carries the 0-100 score
(confidence when verified, else consensus score x 100). `partialFingerprints` hold the
plan's line-independent fingerprint, so an alert survives moved code. GitHub's limits
hold: one run (of at most 20) and at most 25,000 results, the highest ranked kept, with a
notification saying how many were left out. Dropped (out-of-scope) findings are omitted.
"""

from __future__ import annotations

from typing import Any

import orjson

from review_quorum.model import ConsensusFinding, Severity
from review_quorum.plan import PlannedFinding, ReviewPlan
from review_quorum.scoring.confidence import Disposition

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
MAX_RESULTS = 25_000
FINGERPRINT_KEY = "reviewQuorum/v1"
LEVELS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "2.0",
    Severity.INFO: "0.1",
}


def _rank(item: PlannedFinding) -> float:
    if item.confidence is not None:
        return float(item.confidence.score)
    return round(item.finding.consensus_score * 100, 1)


def _location(item: PlannedFinding) -> list[dict[str, Any]]:
    return _where(item.finding)


def _where(finding: ConsensusFinding) -> list[dict[str, Any]]:
    if not finding.file:
        return []
    # A URI reference: readers decode its %XX escapes, so a path's own % is escaped.
    uri = finding.file.replace("%", "%25")
    physical: dict[str, Any] = {"artifactLocation": {"uri": uri}}
    if finding.line is not None:
        region: dict[str, Any] = {"startLine": finding.line}
        if finding.end_line is not None:
            region["endLine"] = finding.end_line
        physical["region"] = region
    return [{"physicalLocation": physical}]


def _result(item: PlannedFinding) -> dict[str, Any]:
    finding = item.finding
    properties: dict[str, Any] = {
        "detected_by": list(finding.detected_by),
        "bots_ran": finding.bots_ran,
        "agreement_ratio": finding.agreement_ratio,
        "consensus_score": finding.consensus_score,
        "consensus_level": finding.level.value,
        "severity": finding.severity.label,
        "disposition": item.disposition.value,
        "reason": item.reason,
    }
    if item.confidence is not None:
        properties["confidence"] = {
            "score": item.confidence.score,
            "band": item.confidence.band.value,
            "disposition": item.confidence.disposition.value,
            "reason": item.confidence.reason,
        }
    result = {
        "ruleId": finding.category or "other",
        "level": LEVELS[finding.severity],
        "rank": _rank(item),
        "message": {"text": finding.title or finding.category or "finding"},
        "locations": _location(item),
        "partialFingerprints": {FINGERPRINT_KEY: item.fingerprint},
        "properties": properties,
    }
    if item.baseline_state is not None:
        result["baselineState"] = item.baseline_state
    return result


def _absent(finding: ConsensusFinding) -> dict[str, Any]:
    """A base finding this pull request fixed, where the base branch had it."""
    return {
        "ruleId": finding.category or "other",
        "level": LEVELS[finding.severity],
        "message": {"text": finding.title or finding.category or "finding"},
        "locations": _where(finding),
        "baselineState": "absent",
        "properties": {"detected_by": list(finding.detected_by)},
    }


def _rules(findings: list[ConsensusFinding]) -> list[dict[str, Any]]:
    worst: dict[str, Severity] = {}
    for finding in findings:
        category = finding.category or "other"
        worst[category] = max(worst.get(category, Severity.INFO), finding.severity)
    return [
        {
            "id": category,
            "name": category.replace("_", "-"),
            "shortDescription": {"text": f"{category.replace('_', ' ')} findings"},
            "properties": _rule_properties(category, severity),
        }
        for category, severity in sorted(worst.items())
    ]


def _rule_properties(category: str, severity: Severity) -> dict[str, Any]:
    if category == "security":
        return {"tags": ["security"], "security-severity": SECURITY_SEVERITY[severity]}
    return {"tags": [category]}


def sarif_data(plan: ReviewPlan) -> dict[str, Any]:
    items = [item for item in plan.findings if item.disposition is not Disposition.DROPPED]
    items.sort(key=_rank, reverse=True)
    kept, left_out = items[:MAX_RESULTS], len(items) - MAX_RESULTS
    results = [_result(item) for item in kept]
    absent = list(plan.baseline.absent) if plan.baseline is not None else []
    results += [_absent(finding) for finding in absent[: max(MAX_RESULTS - len(results), 0)]]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if left_out > 0:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "warning",
                "message": {
                    "text": f"{left_out} lower-ranked results left out to stay within "
                    f"GitHub's limit of {MAX_RESULTS:,} results per run"
                },
            }
        ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "review-quorum",
                        "informationUri": "https://pypi.org/project/review-quorum/",
                        "rules": _rules([item.finding for item in kept] + absent),
                    }
                },
                "invocations": [invocation],
                "results": results,
                "properties": {"bots_ran": plan.bots_ran, "assessment": plan.assessment.value},
            }
        ],
    }


def render(plan: ReviewPlan) -> str:
    return orjson.dumps(sarif_data(plan), option=orjson.OPT_INDENT_2).decode() + "\n"
