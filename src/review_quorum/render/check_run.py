"""A plan as a GitHub check run: its conclusion, its output and its annotations (pure).

The conclusion comes from the gate: ``failure`` when it failed, ``success`` when it passed,
``neutral`` when the plan was made with no gate (``--gate-level none``). The output's title
says the gate's result in one line; its summary is the review body (the sticky summary's
markdown) cut to GitHub's 65,535 characters, after one line saying why the gate and the
review's assessment differ when they seem to contradict each other (`gate_note`). Every
reported finding on a line becomes an annotation: the inline and summary findings, and also
the findings dropped for lying outside the diff (which a review could not anchor, so a check
run is where they show). Bot text is untrusted: annotation titles and messages go through
`escape.plain`, the summary through the same renderer as the sticky comment. Annotations are
ordered as the gate ranks them (blocking first, then by severity), and at most
`MAX_ANNOTATIONS` are made, a limit of ours that keeps a run readable and its record of what
it annotated small.
"""

from __future__ import annotations

from typing import Any

import msgspec

from review_quorum.markup import escape
from review_quorum.model import Severity
from review_quorum.plan import PlannedFinding, ReviewPlan
from review_quorum.render.review import review_body
from review_quorum.render.review_body import render_review_body
from review_quorum.scoring.confidence import Assessment, Disposition

# GitHub: output.summary and output.text hold at most 65,535 characters each, an
# annotation title 255 characters, a message and raw_details 64 KB each.
MAX_OUTPUT = 65_535
MAX_TITLE = 255
MAX_MESSAGE = 4_000  # well inside 64 KB however many bytes each character takes
MAX_DETAILS = 16_000
MAX_ANNOTATIONS = 1_000
_OUTSIDE = "Outside the diff: "
_LEVELS = {
    Severity.CRITICAL: "failure",
    Severity.HIGH: "failure",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}


class Annotation(msgspec.Struct, frozen=True):
    """One check-run annotation and the finding it stands for (its fingerprint)."""

    fingerprint: str
    payload: dict[str, Any]
    outside_diff: bool = False


class CheckOutput(msgspec.Struct, frozen=True):
    """What the check run says: conclusion, title, summary, and its annotations."""

    conclusion: str
    title: str
    summary: str
    annotations: tuple[Annotation, ...]
    left_out: int  # findings on a line past MAX_ANNOTATIONS

    @property
    def outside_diff(self) -> int:
        return sum(1 for annotation in self.annotations if annotation.outside_diff)


def check_output(plan: ReviewPlan) -> CheckOutput:
    """The check run of `plan`."""
    annotated = annotated_findings(plan)
    note = gate_note(plan)
    summary = render_review_body(review_body(plan), limit=MAX_OUTPUT - len(note))
    return CheckOutput(
        conclusion=conclusion(plan),
        title=title(plan),
        summary=note + summary,
        annotations=tuple(annotation(item) for item in annotated[:MAX_ANNOTATIONS]),
        left_out=max(len(annotated) - MAX_ANNOTATIONS, 0),
    )


def conclusion(plan: ReviewPlan) -> str:
    if plan.gate.level is None:
        return "neutral"
    return "failure" if plan.gate.failed else "success"


def title(plan: ReviewPlan) -> str:
    count = len(plan.findings) - len(plan.with_disposition(Disposition.DROPPED))
    found = f"{count} finding{'s' if count != 1 else ''}"
    if plan.gate.level is None:
        return f"{found}, no gate"
    level = plan.gate.level.value
    if plan.gate.failed:
        return f"Gate failed: {len(plan.gate.blocking)} of {found} at or above {level}"
    return f"Gate passed: {found}, none at or above {level}"


def gate_note(plan: ReviewPlan) -> str:
    """One line saying why the gate and the assessment below it differ, when they seem to
    contradict each other (a green check over a CRITICAL assessment, or a red one over
    APPROVE), else nothing: the gate counts consensus levels, the assessment severities."""
    level = plan.gate.level
    if level is None:
        return ""
    if not plan.gate.failed and plan.assessment is not Assessment.APPROVE:
        return (
            f"**Gate passed**: no finding reaches {level.value}, the level the gate stops at. "
            f"The assessment below ({plan.assessment.value}) rates the severity of the "
            "findings posted, however few bots agree on them.\n\n"
        )
    if plan.gate.failed and plan.assessment is Assessment.APPROVE:
        count = len(plan.gate.blocking)
        return (
            f"**Gate failed**: {count} finding{'s' if count != 1 else ''} at or above "
            f"{level.value}. The assessment below (APPROVE) rates only the severity of the "
            "findings posted, and none is medium or above.\n\n"
        )
    return ""


def annotated_findings(plan: ReviewPlan) -> list[PlannedFinding]:
    """The findings a check run annotates, blocking ones first, then by severity."""
    blocking = {item.fingerprint for item in plan.gate.blocking}
    chosen = [item for item in plan.findings if _annotates(item)]
    return sorted(
        chosen,
        key=lambda item: (item.fingerprint not in blocking, -item.finding.severity),
    )


def _annotates(item: PlannedFinding) -> bool:
    if item.finding.line is None or not item.finding.file:
        return False
    if item.disposition is Disposition.DROPPED:
        return item.in_diff is False
    return item.disposition in (Disposition.INLINE, Disposition.SUMMARY)


def annotation(item: PlannedFinding) -> Annotation:
    finding = item.finding
    assert finding.line is not None  # only findings on a line are annotated
    outside = item.in_diff is False
    heading = f"{finding.severity.label.upper()} ({finding.category}) {finding.title}"
    bots = ", ".join(finding.detected_by)
    agreement = f"{finding.detected_by_count}/{finding.bots_ran}"
    message = f"{finding.title}\n\n{finding.level.value}: found by {bots} ({agreement} bots)."
    if item.confidence is not None:
        message += f" Confidence {item.confidence.band.value}, {item.confidence.score}/100."
    payload: dict[str, Any] = {
        "path": finding.file,
        "start_line": finding.line,
        "end_line": max(finding.end_line or finding.line, finding.line),
        "annotation_level": "notice" if outside else _LEVELS[finding.severity],
        "title": escape.plain((_OUTSIDE if outside else "") + heading, limit=MAX_TITLE),
        "message": escape.plain(message, limit=MAX_MESSAGE),
    }
    details = "\n".join(f"{member.bot}: {member.title}" for member in finding.members)
    if details:
        payload["raw_details"] = escape.plain(details, limit=MAX_DETAILS)
    return Annotation(item.fingerprint, payload, outside)
