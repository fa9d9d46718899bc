"""The review body of a plan, as markdown: the sticky summary and the review's own body.

A plan becomes the `ReviewBody` view model of `render.review_body`: every finding carries
its provenance tag and detecting bots, verified ones also their confidence band and score.
Inline findings that cannot anchor on a line of the diff (no line, or a line GitHub will
not accept) are listed in their own section instead of being posted inline. In link mode
nothing is posted inline: every finding links to the bot comment that raised it.
"""

from __future__ import annotations

from review_quorum.comment_links import web_url
from review_quorum.markup import escape
from review_quorum.model import CommentSource
from review_quorum.plan import AwaitedBots, PlannedFinding, ReviewPlan, State, said
from review_quorum.render.consensus import render_provenance
from review_quorum.render.review_body import (
    BodyItem,
    ReviewBody,
    render_inline_comment,
    render_item_line,
    render_review_body,
)
from review_quorum.scoring.confidence import Disposition


def body_item(item: PlannedFinding, *, linked: bool = False) -> BodyItem:
    """One planned finding as the review shows it (with its link to a bot comment)."""
    finding = item.finding
    confidence = item.confidence
    link = item.link if linked else None
    return BodyItem(
        file=finding.file,
        line=finding.line,
        end_line=finding.end_line,
        severity=finding.severity.label,
        category=finding.category,
        title=finding.title,
        details=_details(item),
        band=confidence.band.value if confidence else None,
        score=confidence.score if confidence else None,
        provenance=render_provenance(finding),
        detected_by=finding.detected_by,
        level=finding.level,
        reason=item.reason,
        fingerprint=item.fingerprint,
        link=(web_url(link.html_url) or "") if link else "",
        link_bot=_bot_of(item, link) if link else "",
        code=item.code,
    )


def _bot_of(item: PlannedFinding, link: CommentSource) -> str:
    return next((m.bot for m in item.finding.members if m.source == link), link.author)


def _details(item: PlannedFinding) -> str:
    """What each bot said (and the verifier's note): plain text, escaped when rendered."""
    lines = [f"{member.bot}: {member.title}" for member in item.finding.members]
    if item.verdict is not None and item.verdict.details:
        lines.append(f"verifier ({item.verdict.verdict.value}): {item.verdict.details}")
    return "\n".join(lines)


def inline_comment(item: PlannedFinding) -> str:
    return render_inline_comment(body_item(item))


def anchored(plan: ReviewPlan) -> tuple[PlannedFinding, ...]:
    """The inline findings GitHub will accept as line comments."""
    return tuple(item for item in plan.inline if item.addressable)


def awaited_notes(awaited: AwaitedBots | None) -> list[str]:
    """What the summary says about the bots the review waited for (names escaped)."""
    if awaited is None:
        return []
    notes: list[str] = []
    if awaited.missing:
        names = ", ".join(escape.inline(name) for name in awaited.missing)
        notes.append(
            f"⏳ **Not reported when this review was made** (after waiting "
            f"{_duration(awaited.waited)}): {names}. Their findings are not in this review."
        )
    if awaited.skipped:
        names = ", ".join(escape.inline(name) for name in awaited.skipped)
        notes.append(f"Said they skipped this pull request: {names}.")
    if not notes:
        count = len(awaited.names)
        notes.append(f"All {count} awaited bot{'s' if count != 1 else ''} reported.")
    return notes


def _duration(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 90 else f"{round(seconds / 60)} min"


def review_body(plan: ReviewPlan) -> ReviewBody:
    if plan.settings.inline_mode == "link":
        return _linked_body(plan)
    unanchored = [item for item in plan.inline if not item.addressable]
    notes = [*awaited_notes(plan.awaited), *plan.notes, *history_notes(plan), *baseline_notes(plan)]
    if notes and unanchored:
        notes.append("")
    if unanchored:
        count = len(unanchored)
        notes.append(f"### {count} finding{'s' if count != 1 else ''} not on a diff line")
        notes.append("")
        notes.extend(render_item_line(body_item(item)) for item in unanchored)
    return ReviewBody(
        assessment=plan.assessment,
        inline=[body_item(item) for item in anchored(plan)],
        summary=[
            body_item(item)
            for item in plan.with_disposition(Disposition.SUMMARY)
            if item.baseline_state != "unchanged"
        ],
        audit=[body_item(item) for item in plan.with_disposition(Disposition.AUDIT)],
        dropped_count=len(plan.with_disposition(Disposition.DROPPED)),
        skipped_count=len(plan.skipped),
        notes=tuple(notes),
    )


def history_notes(plan: ReviewPlan) -> list[str]:
    """What the history said before planning: the findings writers triaged (not posted
    again, not gating), then the expected bots that did not review the head commit."""
    notes: list[str] = []
    triaged = [item for item in plan.findings if item.triage is not None]
    if triaged:
        lines = [_triaged_line(item) for item in triaged]
        notes.append("**Acknowledged** (not posted again, not gating):\n" + "\n".join(lines))
    missing = [c for c in plan.coverage if c.state is not State.REVIEWED]
    if missing:
        parts = [
            f"{escape.inline(c.bot)} ({c.state.value}"
            f"{f': {escape.inline(c.why)}' if c.why else ''})"
            for c in missing
        ]
        notes.append(f"**Did not review this commit:** {'; '.join(parts)}.")
    return notes


def _triaged_line(item: PlannedFinding) -> str:
    finding, decision = item.finding, item.triage
    assert decision is not None  # only triaged findings are listed
    where = f"{finding.file}:{finding.line}" if finding.line else finding.file
    why = f": {escape.inline(decision.reason)}" if decision.reason else ""
    return (
        f"- {escape.inline(finding.title)} ({escape.inline(where)}): "
        f"{said(decision)} by @{escape.inline(decision.actor)}{why}"
    )


def baseline_notes(plan: ReviewPlan) -> list[str]:
    """With a baseline: the pre-existing findings in one collapsed list, and how many
    findings of the base branch this pull request fixed."""
    if plan.baseline is None:
        return []
    old = [
        item
        for item in plan.findings
        if item.baseline_state == "unchanged" and item.disposition is not Disposition.DROPPED
    ]
    fixed = len(plan.baseline.absent)
    lines = [
        f"**Compared with the base branch:** {len(old)} pre-existing, "
        f"{fixed} fixed by this pull request."
    ]
    if old:
        lines += [
            "",
            f"<details><summary>{len(old)} pre-existing (not added by this pull request)</summary>",
            "",
        ]
        lines += [render_item_line(body_item(item)) for item in old]
        lines += ["", "</details>"]
    return lines


def _linked_body(plan: ReviewPlan) -> ReviewBody:
    """Link mode: no inline comments of ours, every finding links to a bot's comment."""

    def items(findings: tuple[PlannedFinding, ...]) -> list[BodyItem]:
        return [body_item(item, linked=True) for item in findings]

    return ReviewBody(
        assessment=plan.assessment,
        inline=items(plan.inline),
        summary=items(plan.with_disposition(Disposition.SUMMARY)),
        audit=items(plan.with_disposition(Disposition.AUDIT)),
        dropped_count=len(plan.with_disposition(Disposition.DROPPED)),
        skipped_count=len(plan.skipped),
        notes=(*awaited_notes(plan.awaited), *plan.notes, *history_notes(plan)),
        linked=True,
    )


def render(plan: ReviewPlan) -> str:
    """The review body as markdown (also the sticky summary comment)."""
    return render_review_body(review_body(plan))
