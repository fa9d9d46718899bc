"""Honouring the history on the next run: triaged findings stay quiet, coverage is said.

`honour_triage` takes a plan and the pull request's stored decisions: a finding a writer
marked a false positive, won't fix or acknowledged is moved to the audit list (so it is
not posted again), leaves the gate, and is named in the summary with who triaged it and
how. `with_coverage` adds the lines naming the expected bots that did not review the head
commit. Both return a new plan; everything else in it is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from review_quorum.history.coverage import BotCoverage, notes, reviewers
from review_quorum.history.triage import Decision
from review_quorum.markup import escape
from review_quorum.plan import Gate, PlannedFinding, ReviewPlan
from review_quorum.scoring.confidence.posting import Disposition

_SAID = {"false-positive": "false positive", "wont-fix": "won't fix", "ack": "acknowledged"}


def honour_triage(plan: ReviewPlan, decisions: Sequence[Decision]) -> ReviewPlan:
    """`plan` with every finding a writer triaged kept out of the comments and the gate."""
    latest = {d.fingerprint: d for d in decisions if d.silences}
    hit = [item for item in plan.findings if item.fingerprint in latest]
    if not hit:
        return plan
    findings = tuple(_quiet(item, latest.get(item.fingerprint)) for item in plan.findings)
    gate = Gate(
        plan.gate.level, tuple(i for i in plan.gate.blocking if i.fingerprint not in latest)
    )
    lines = [_line(item, latest[item.fingerprint]) for item in hit]
    note = "**Acknowledged** (not posted again, not gating):\n" + "\n".join(lines)
    return replace(
        plan,
        findings=findings,
        inline=tuple(i for i in plan.inline if i.fingerprint not in latest),
        gate=gate,
        notes=(*plan.notes, note),
    )


def _quiet(item: PlannedFinding, decision: Decision | None) -> PlannedFinding:
    if decision is None or item.disposition is Disposition.DROPPED:
        return item
    said = f"{_SAID[decision.action]} by {decision.actor}"
    return replace(item, disposition=Disposition.AUDIT, reason=f"{item.reason}; {said}")


def _line(item: PlannedFinding, decision: Decision) -> str:
    finding = item.finding
    where = f"{finding.file}:{finding.line}" if finding.line else finding.file
    why = f": {escape.inline(decision.reason)}" if decision.reason else ""
    return (
        f"- {escape.inline(finding.title)} ({escape.inline(where)}): "
        f"{_SAID[decision.action]} by @{escape.inline(decision.actor)}{why}"
    )


def with_coverage(plan: ReviewPlan, covered: Sequence[BotCoverage]) -> ReviewPlan:
    """`plan` naming in its summary the expected bots that did not review the head, and
    knowing those that did (`ReviewPlan.reviewed`), findings or not."""
    lines, reviewed = notes(covered), reviewers(covered)
    if not lines and not reviewed:
        return plan
    return replace(plan, notes=(*plan.notes, *lines), reviewed=(*plan.reviewed, *reviewed))
