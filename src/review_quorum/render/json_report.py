"""The JSON report of a plan: everything, for machines (and for `quorum post PLAN.json`).

Each finding has every ConsensusFinding field, its full members, its disposition and the
reason for it, its confidence (null when no verdict applied), and the bot comment it links
to (`link`; each member names the comment it came from as `source`). Every input finding is a
member of exactly one finding, or it is listed in `skipped`. The report also carries the
exact GitHub review payload and the sticky summary, so a saved plan can be posted later.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import orjson

from review_quorum.baseline import Baseline
from review_quorum.model import ConsensusLevel
from review_quorum.plan import AwaitedBots, PlannedFinding, ReviewPlan
from review_quorum.render.github_review import payload
from review_quorum.render.json_stream import Stream, document
from review_quorum.render.review import render as render_body
from review_quorum.render.serialize import consensus_data, skipped_data, source_data
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict


def finding_data(item: PlannedFinding) -> dict[str, Any]:
    data = consensus_data(item.finding)
    data.update(
        disposition=item.disposition.value,
        forced=item.forced,
        reason=item.reason,
        fingerprint=item.fingerprint,
        code=item.code,
        baseline_state=item.baseline_state,
        in_diff=item.in_diff,
        addressable=item.addressable,
        span_end=item.span_end,
        confidence=_confidence(item),
        verdict=_verdict(item.verdict),
        link=source_data(item.link),
    )
    return data


def _confidence(item: PlannedFinding) -> dict[str, Any] | None:
    result = item.confidence
    if result is None:
        return None
    breakdown = result.breakdown
    return {
        "score": result.score,
        "band": result.band.value,
        "rule": result.rule.value,
        "breakdown": {
            "subtotal": breakdown.subtotal,
            "concordance": breakdown.concordance,
            "severity_distance": breakdown.severity_distance,
            "gate": breakdown.gate.value if breakdown.gate else None,
        },
    }


def _verdict(verdict: AttachedVerdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {
        "verdict": verdict.verdict.value,
        "severity": verdict.severity.value,
        "evidence_strength": verdict.evidence_strength.value,
        "context_completeness": verdict.context_completeness.value,
        "in_changed_code": verdict.in_changed_code,
        "issue": verdict.issue,
        "details": verdict.details,
        "source": verdict.source,
        "position": verdict.position,
    }


def _gate_findings_by_level(plan: ReviewPlan) -> dict[str, int]:
    """How many findings the gate would weigh (in scope, not dismissed) at each level."""
    counts = {level.value: 0 for level in ConsensusLevel}
    for item in plan.findings:
        if item.disposition is not Disposition.DROPPED and item.believed:
            counts[item.finding.level.value] += 1
    return counts


def _baseline(baseline: Baseline | None) -> dict[str, Any] | None:
    """What the findings were compared with; the base findings this pull request fixed."""
    if baseline is None:
        return None
    return {
        "sources": list(baseline.sources),
        "absent": [consensus_data(finding) for finding in baseline.absent],
    }


def _awaited(awaited: AwaitedBots | None) -> dict[str, Any] | None:
    if awaited is None:
        return None
    return {
        "bots": list(awaited.names),
        "skipped": list(awaited.skipped),
        "missing": list(awaited.missing),
        "waited_seconds": round(awaited.waited, 3),
    }


def report_data(plan: ReviewPlan, *, event: str = "COMMENT") -> dict[str, Any]:
    members = dict(_members(plan, event))
    members["findings"] = [finding_data(item) for item in plan.findings]
    members["skipped"] = [skipped_data(skipped) for skipped in plan.skipped]
    return members


def _members(plan: ReviewPlan, event: str) -> list[tuple[str, object]]:
    """The report's members in order, its two long lists as `Stream`s."""
    counts = {kind.value: len(plan.with_disposition(kind)) for kind in Disposition}
    body = render_body(plan)  # once: the review payload carries it too
    extra = plan.extra
    verification = [("verification", extra["verification"])] if "verification" in extra else []
    return [
        ("assessment", plan.assessment.value),
        ("bots_ran", plan.bots_ran),
        ("input_findings", plan.input_count),
        ("counts", counts),
        (
            "gate",
            {
                "level": plan.gate.level.value if plan.gate.level else "none",
                "failed": plan.gate.failed,
                "count": len(plan.gate.blocking),
            },
        ),
        ("gate_findings_by_level", _gate_findings_by_level(plan)),
        ("settings", plan.settings.as_data()),
        ("findings", Stream(plan.findings, finding_data)),
        ("skipped", Stream(plan.skipped, skipped_data)),
        ("awaited", _awaited(plan.awaited)),
        ("baseline", _baseline(plan.baseline)),
        ("github_review", payload(plan, event=event, body=body)),
        ("summary_markdown", body),
        *verification,
    ]


def chunks(plan: ReviewPlan) -> Iterator[bytes | memoryview]:
    """The report as UTF-8 chunks, a few findings at a time (see `json_stream`)."""
    return document(_members(plan, "COMMENT"))


def render(plan: ReviewPlan) -> str:
    return b"".join(chunks(plan)).decode()


def content_digest(plan: ReviewPlan) -> str:
    """The SHA-256 of the plan's report as canonical JSON (sorted keys): a run's identity
    in the history, the same for a plan and for that plan saved and read back."""
    canonical = orjson.dumps(report_data(plan), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()
