"""A readable table of a plan for local use, drawn with rich; colours only on a TTY.

rich is imported when a table is drawn, not with the module: every other output format
would otherwise pay for its import on each run.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from review_quorum.plan import PlannedFinding, ReviewPlan
from review_quorum.render.consensus import agreement_percent
from review_quorum.render.escape import one_line
from review_quorum.scoring.confidence import Disposition

if TYPE_CHECKING:
    from rich.text import Text

STYLES = {
    Disposition.INLINE: "bold red",
    Disposition.SUMMARY: "yellow",
    Disposition.AUDIT: "magenta",
    Disposition.DROPPED: "dim",
}


def _row(item: PlannedFinding) -> list[Text]:
    from rich.text import Text

    finding = item.finding
    place = finding.file or "(global)"
    if finding.line is not None:
        place += f":{finding.line}"
    confidence = f"{item.confidence.score} {item.confidence.band.value}" if item.confidence else "-"
    agreement = agreement_percent(finding.detected_by_count, finding.bots_ran)
    style = STYLES[item.disposition]
    return [
        Text(item.disposition.value, style=style),
        Text(finding.severity.label),
        Text(one_line(place)),
        Text(one_line(finding.title)),
        Text(f"{finding.detected_by_count}/{finding.bots_ran} ({agreement}%)"),
        Text(finding.level.value),
        Text(confidence),
    ]


def render(plan: ReviewPlan, *, color: bool = False, width: int = 120) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, title=f"Review assessment: {plan.assessment.value}")
    for heading in ("placed", "severity", "where", "title", "bots", "level", "confidence"):
        table.add_column(heading, overflow="fold")
    ordered = (
        *plan.inline,
        *(item for item in plan.findings if item.disposition is not Disposition.INLINE),
    )
    for item in ordered:
        table.add_row(*_row(item))
    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False
    )
    console.print(table)
    gate = plan.gate
    verdict = "failed" if gate.failed else "passed"
    level = gate.level.value if gate.level else "none"
    console.print(
        f"Gate ({level}): {verdict}, {len(gate.blocking)} blocking; "
        f"{len(plan.skipped)} input record(s) skipped"
    )
    return buffer.getvalue()
