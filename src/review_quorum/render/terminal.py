"""A readable table of a plan for local use, drawn with rich; colours only on a TTY.

The table fills the `width` it is given (the CLI passes the terminal's). When the short
columns leave a title at least `TITLE_COLUMNS` wide, each finding is one row; otherwise
each finding's short columns are one aligned line and its title wraps on the indented
lines below, so an 80-column terminal still reads whole titles.
rich is imported when a table is drawn, not with the module: every other output format
would otherwise pay for its import on each run.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from review_quorum.markup.escape import one_line
from review_quorum.plan import PlannedFinding, ReviewPlan
from review_quorum.render.consensus import agreement_percent
from review_quorum.scoring.confidence import Disposition

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

TITLE_COLUMNS = 60
"""The narrowest title column of the one-row-per-finding table (else titles go below)."""
HEADINGS = ("placed", "severity", "where", "title", "bots", "level", "confidence")
_TITLE = HEADINGS.index("title")
_INDENT = 4
_GAP = 2

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
    from rich.console import Console

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=color, no_color=not color, width=width, highlight=False
    )
    ordered = (
        *plan.inline,
        *(item for item in plan.findings if item.disposition is not Disposition.INLINE),
    )
    rows = [_row(item) for item in ordered]
    title = f"Review assessment: {plan.assessment.value}"
    widths = _short_widths(rows)
    if width - sum(widths) - 2 * len(HEADINGS) >= TITLE_COLUMNS:  # 2: a cell's padding
        _wide(console, title, rows)
    else:
        _narrow(console, title, rows, widths)
    gate = plan.gate
    verdict = "failed" if gate.failed else "passed"
    level = gate.level.value if gate.level else "none"
    console.print(
        f"Gate ({level}): {verdict}, {len(gate.blocking)} blocking; "
        f"{len(plan.skipped)} input record(s) skipped"
    )
    if color:
        return buffer.getvalue()
    # rich pads every line to the full width: without colours, nothing needs the padding
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _wide(console: Console, title: str, rows: list[list[Text]]) -> None:
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, title=title, expand=True)
    for heading in HEADINGS:
        wraps = heading in ("where", "title")
        ratio = 1 if heading == "title" else None  # what is left goes to the titles
        table.add_column(heading, overflow="fold", no_wrap=not wraps, ratio=ratio)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def _short_widths(rows: list[list[Text]]) -> list[int]:
    """The width of each column but the title's: its widest cell, or its heading."""
    return [
        max([len(heading), *(row[index].cell_len for row in rows)])
        for index, heading in enumerate(HEADINGS)
        if index != _TITLE
    ]


def _narrow(console: Console, title: str, rows: list[list[Text]], widths: list[int]) -> None:
    """The short columns on one line per finding, aligned, and its title on the lines below."""
    from rich.padding import Padding
    from rich.text import Text

    short = [index for index in range(len(HEADINGS)) if index != _TITLE]
    heads = [Text(HEADINGS[index]) for index in short]
    lines = [[row[index] for index in short] for row in rows]
    where = short.index(HEADINGS.index("where"))
    others = sum(widths) - widths[where] + _GAP * (len(widths) - 1)
    widths[where] = max(min(widths[where], console.width - others), len("where"))
    console.print(title)
    console.print()
    console.print(_aligned(heads, widths))
    console.print(Padding(Text("title"), (0, 0, 0, _INDENT)))
    console.print("─" * min(console.width, others + widths[where]))
    for row, line in zip(rows, lines, strict=True):
        console.print(_aligned(line, widths))
        console.print(Padding(row[_TITLE], (0, 0, 0, _INDENT)))
    console.print()


def _aligned(cells: list[Text], widths: list[int]) -> Text:
    """`cells` left-aligned in columns of `widths` (a longer cell pushes the rest along)."""
    from rich.text import Text

    padded = []
    for cell, width in zip(cells, widths, strict=True):
        copy = cell.copy()
        copy.pad_right(max(width - cell.cell_len, 0))
        padded.append(copy)
    line = Text(" " * _GAP).join(padded)
    line.rstrip()
    return line
