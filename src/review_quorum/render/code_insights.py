"""A plan as a Bitbucket Code Insights report and its annotations (pure).

The Bitbucket analogue of the check run (`render.check_run`): the report's ``result`` comes
from the gate (``FAILED`` when it failed, else ``PASSED``), its ``details`` say the gate's
result in a line, and its ``data`` count the findings and those that block. The findings
annotated are the check run's (`check_run.annotated_findings`: every reported finding on a
line, and those dropped for lying outside the diff), blocking ones first; each becomes an
annotation keyed by its fingerprint (``external_id``), so that a re-run updates it in place.
Bitbucket shows annotations as plain text: bot text goes through `escape.plain`, cut to
Bitbucket's limits (a summary of 450 characters). A report holds at most 1,000
annotations; the rest are counted in `left_out`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from review_quorum.markup import escape
from review_quorum.model import Severity
from review_quorum.plan import PlannedFinding, ReviewPlan
from review_quorum.render.check_run import annotated_findings, title
from review_quorum.scoring.confidence import Disposition

MAX_ANNOTATIONS = 1_000
MAX_SUMMARY = 450
MAX_DETAILS = 2_000
MAX_TITLE = 450
EXTERNAL_PREFIX = "quorum-"
_SEVERITY = {
    Severity.CRITICAL: "CRITICAL",
    Severity.HIGH: "HIGH",
    Severity.MEDIUM: "MEDIUM",
    Severity.LOW: "LOW",
    Severity.INFO: "LOW",
}
_SMELLS = frozenset({"maintainability", "documentation", "testing", "performance"})


class InsightsReport(msgspec.Struct, frozen=True):
    """The report's body, its annotations (each keyed by ``external_id``) and how many
    findings on a line did not fit."""

    report: dict[str, Any]
    annotations: tuple[dict[str, Any], ...]
    left_out: int


def insights_report(plan: ReviewPlan, *, name: str, link: str = "") -> InsightsReport:
    """The Code Insights report of `plan`, titled `name`, linking to `link` if given."""
    annotated = annotated_findings(plan)
    blocking = {item.fingerprint for item in plan.gate.blocking}
    reported = len(plan.findings) - len(plan.with_disposition(Disposition.DROPPED))
    report: dict[str, Any] = {
        "title": escape.plain(name, limit=MAX_TITLE),
        "details": escape.plain(title(plan), limit=MAX_DETAILS),
        "report_type": "BUG",
        "reporter": "review-quorum",
        "result": "FAILED" if plan.gate.failed else "PASSED",
        "data": [
            {"title": "Findings", "type": "NUMBER", "value": reported},
            {"title": "Blocking", "type": "NUMBER", "value": len(blocking)},
            {"title": "Gate passed", "type": "BOOLEAN", "value": not plan.gate.failed},
        ],
    }
    if link:
        report["link"] = link
    chosen = annotated[:MAX_ANNOTATIONS]
    annotations = tuple(annotation(item, item.fingerprint in blocking) for item in chosen)
    return InsightsReport(report, annotations, max(len(annotated) - MAX_ANNOTATIONS, 0))


def annotation(item: PlannedFinding, blocking: bool) -> dict[str, Any]:
    """One finding as an annotation; only a blocking one is marked ``FAILED``."""
    finding = item.finding
    assert finding.line is not None  # only findings on a line are annotated
    outside = "Outside the diff: " if item.in_diff is False else ""
    summary = f"{outside}{finding.severity.label.upper()} ({finding.category}) {finding.title}"
    bots = ", ".join(finding.detected_by)
    agreement = f"{finding.detected_by_count}/{finding.bots_ran}"
    details = f"{finding.title}\n\n{finding.level.value}: found by {bots} ({agreement} bots)."
    if item.confidence is not None:
        details += f" Confidence {item.confidence.band.value}, {item.confidence.score}/100."
    if finding.category == "security":
        kind = "VULNERABILITY"
    else:
        kind = "CODE_SMELL" if finding.category in _SMELLS else "BUG"
    data: dict[str, Any] = {
        "external_id": EXTERNAL_PREFIX + item.fingerprint,
        "annotation_type": kind,
        "summary": escape.plain(summary, limit=MAX_SUMMARY),
        "details": escape.plain(details, limit=MAX_DETAILS),
        "severity": _SEVERITY[finding.severity],
        "path": finding.file,
        "line": finding.line,
    }
    if blocking:
        data["result"] = "FAILED"
    return data
