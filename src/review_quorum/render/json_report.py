"""The JSON report of a plan: everything, for machines (and for `quorum post PLAN.json`).

The document is `report.ReviewReport` (its JSON Schema ships as
`review_quorum/schemas/review-report.schema.json`). Each finding has every
ConsensusFinding field, its full members, its disposition and the reason for it, its
confidence (null when no verdict applied), and the bot comment it links to (`link`; each
member names the comment it came from as `source`). Every input finding is a member of
exactly one finding, or it is listed in `skipped`. The report also carries the exact
GitHub review payload and the sticky summary, so a saved plan can be posted later.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
from msgspec import UNSET

from review_quorum.baseline import Baseline
from review_quorum.model import ConsensusLevel
from review_quorum.plan import AwaitedBots, Decision, PlannedFinding, ReviewPlan, Settings
from review_quorum.render.github_review import payload
from review_quorum.render.json_stream import Stream, document
from review_quorum.render.review import render as render_body
from review_quorum.render.serialize import (
    LABELS,
    Shares,
    consensus_entry,
    number,
    parts,
    plain,
    skipped_entry,
)
from review_quorum.report import (
    LevelCounts,
    ReportAwaited,
    ReportBaseline,
    ReportConfidence,
    ReportCounts,
    ReportFinding,
    ReportGate,
    ReportSettings,
    ReportTriage,
    ReviewReport,
)
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.scorer import ConfidenceResult
from review_quorum.verifier.figures import Figures

_STREAMED = ("findings", "skipped")  # the two long lists, written a few items at a time


def finding_entry(item: PlannedFinding, shares: Shares | None = None) -> ReportFinding:
    finding = item.finding
    members, end_line, model, contributions = parts(finding, shares)
    detected_by = finding.detected_by
    return ReportFinding(
        file=finding.file,
        line=finding.line,
        end_line=end_line,
        category=finding.category,
        title=finding.title,
        severity=LABELS[finding.severity],
        detected_by=detected_by,
        detected_by_count=len(detected_by),
        bots_ran=finding.bots_ran,
        agreement_ratio=finding.agreement_ratio,
        max_confidence=number(finding.max_confidence),
        consensus_score=number(finding.consensus_score),
        level=finding.level,
        members=members,
        model=model,
        contributions=contributions,
        disposition=item.disposition,
        forced=item.forced,
        reason=item.reason,
        fingerprint=item.fingerprint,
        code=item.code,
        baseline_state=item.baseline_state,
        in_diff=item.in_diff,
        addressable=item.addressable,
        span_end=item.span_end,
        confidence=_confidence(item.confidence),
        verdict=item.verdict,
        link=item.link,
        triage=UNSET if item.triage is None else _triage(item.triage, item),
    )


def _triage(decision: Decision, item: PlannedFinding) -> ReportTriage:
    return ReportTriage(
        decision.action,  # type: ignore[arg-type]  # a silencing action (`plan.SILENCING`)
        decision.actor,
        decision.acted_at,
        decision.reason,
        decision.via,
        item.untriaged or item.disposition,  # a dropped finding stays dropped
    )


def _confidence(result: ConfidenceResult | None) -> ReportConfidence | None:
    if result is None:
        return None
    return ReportConfidence(result.score, result.band, result.rule, result.breakdown)


def finding_data(item: PlannedFinding) -> dict[str, Any]:
    return plain(finding_entry(item))  # type: ignore[no-any-return]


def _gate_findings_by_level(plan: ReviewPlan) -> LevelCounts:
    """How many findings the plan's gate weighs at each level (`plan.Gate.weighed`), so
    the counts at and above the gate's level add up to its count."""
    counts = plan.gate.weighed_by_level()
    return LevelCounts(
        confirmed=counts[ConsensusLevel.CONFIRMED],
        needs_verification=counts[ConsensusLevel.NEEDS_VERIFICATION],
        unverified=counts[ConsensusLevel.UNVERIFIED],
    )


def _baseline(baseline: Baseline | None) -> ReportBaseline | None:
    """What the findings were compared with; the base findings this pull request fixed."""
    if baseline is None:
        return None
    return ReportBaseline(
        baseline.sources, tuple(consensus_entry(finding) for finding in baseline.absent)
    )


def _awaited(awaited: AwaitedBots | None) -> ReportAwaited | None:
    if awaited is None:
        return None
    return ReportAwaited(
        awaited.names, awaited.skipped, awaited.missing, number(round(awaited.waited, 3))
    )


def settings_entry(settings: Settings) -> ReportSettings:
    return ReportSettings(
        model=settings.model,
        bots_ran=settings.bots_ran,
        line_window=settings.line_window,
        title_overlap=number(settings.title_overlap),
        order=settings.order,
        filter_mode=settings.filter_mode,
        context_lines=settings.context_lines,
        post_threshold=settings.post_threshold,
        comment_cap=settings.comment_cap,
        inline_level=settings.inline_level,
        gate_level=settings.gate_level.value if settings.gate_level else "none",
        inline_mode=settings.inline_mode,
        gate_on=settings.gate_on,
    )


def report(plan: ReviewPlan, *, event: str = "COMMENT", whole: bool = True) -> ReviewReport:
    """The plan's document; without `whole`, its findings and skipped records left empty
    (the writer streams them)."""
    counts = {kind: len(plan.with_disposition(kind)) for kind in Disposition}
    body = render_body(plan)  # once: the review payload carries it too
    verification = plan.extra.get("verification")
    shares: Shares = {}
    return ReviewReport(
        assessment=plan.assessment,
        bots_ran=plan.bots_ran,
        input_findings=plan.input_count,
        counts=ReportCounts(
            inline=counts[Disposition.INLINE],
            summary=counts[Disposition.SUMMARY],
            audit=counts[Disposition.AUDIT],
            dropped=counts[Disposition.DROPPED],
        ),
        gate=ReportGate(
            level=plan.gate.level.value if plan.gate.level else "none",
            failed=plan.gate.failed,
            count=len(plan.gate.blocking),
        ),
        gate_findings_by_level=_gate_findings_by_level(plan),
        settings=settings_entry(plan.settings),
        findings=tuple(finding_entry(item, shares) for item in plan.findings) if whole else (),
        skipped=tuple(map(skipped_entry, plan.skipped)) if whole else (),
        awaited=_awaited(plan.awaited),
        baseline=_baseline(plan.baseline),
        github_review=payload(plan, event=event, body=body),
        summary_markdown=body,
        verification=UNSET if verification is None else msgspec.convert(verification, Figures),
    )


def report_data(plan: ReviewPlan, *, event: str = "COMMENT") -> dict[str, Any]:
    """The report as plain data (dicts and lists in the document's order)."""
    return plain(report(plan, event=event))  # type: ignore[no-any-return]


def _members(plan: ReviewPlan, event: str) -> list[tuple[str, object]]:
    """The report's members in order, its two long lists as `Stream`s."""
    head = report(plan, event=event, whole=False)
    shares: Shares = {}
    streams = {
        "findings": Stream(plan.findings, lambda item: finding_entry(item, shares)),
        "skipped": Stream(plan.skipped, skipped_entry),
    }
    return [
        (name, streams[name] if name in _STREAMED else getattr(head, name))
        for name in ReviewReport.__struct_fields__
        if getattr(head, name) is not UNSET
    ]


def chunks(plan: ReviewPlan) -> Iterator[bytes | memoryview]:
    """The report as UTF-8 chunks, a few findings at a time (see `json_stream`)."""
    return document(_members(plan, "COMMENT"))


def render(plan: ReviewPlan) -> str:
    return b"".join(chunks(plan)).decode()


def content_digest(plan: ReviewPlan) -> str:
    """The SHA-256 of the plan's report as canonical JSON (sorted keys): a run's identity
    in the history, the same for a plan and for that plan saved and read back."""
    import hashlib  # OpenSSL, for a document of any size: loaded when a run is recorded

    canonical = msgspec.json.encode(report(plan), order="sorted")
    return hashlib.sha256(canonical).hexdigest()
