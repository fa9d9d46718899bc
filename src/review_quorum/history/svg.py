"""Small inline SVG charts drawn by hand: horizontal bars, stacked bars, and month lines.

Each function returns one ``<svg>`` element (no namespace needed inside HTML), sized by its
data, with a ``<title>`` for accessibility and every label escaped. Rates are in [0, 1];
a missing rate (nothing decided) draws no bar and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import msgspec

ROW = 26
LABEL = 170
PLOT = 420
PALETTE = ("#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#4e342e", "#546e7a")
GOOD, BAD, NEUTRAL, WARN = "#2e7d32", "#c62828", "#9e9e9e", "#c62828"


class Bar(msgspec.Struct, frozen=True):
    label: str
    rate: float | None
    flagged: bool = False
    note: str = ""


class Segment(msgspec.Struct, frozen=True):
    name: str
    value: int
    color: str


def _svg(chart: str, width: int, height: int, title: str, body: list[str]) -> str:
    head = (
        f'<svg class="chart" data-chart="{chart}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img"><title>{escape(title)}</title>'
    )
    return head + "".join(body) + "</svg>"


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def rate_bars(bars: Sequence[Bar], title: str, *, chart: str, color: str = GOOD) -> str:
    """One horizontal bar per label, its length the rate; flagged bars are drawn in red."""
    width, height = LABEL + PLOT + 140, ROW * len(bars) + 30
    body = [_axis(height - 20)]
    for index, bar in enumerate(bars):
        y = 10 + index * ROW
        body.append(_text(LABEL - 8, y + 15, bar.label, "end"))
        if bar.rate is None:
            body.append(_text(LABEL + 4, y + 15, "nothing decided yet", extra=' class="muted"'))
            continue
        fill = WARN if bar.flagged else color
        length = max(bar.rate * PLOT, 1.0)
        body.append(
            f'<rect class="bar{" flagged" if bar.flagged else ""}" x="{LABEL}" y="{y + 3}" '
            f'width="{length:.1f}" height="{ROW - 8}" fill="{fill}"/>'
        )
        note = f"{round(bar.rate * 100)}% {bar.note}".rstrip()
        body.append(_text(LABEL + length + 6, y + 15, note))
    return _svg(chart, width, height, title, body)


def _axis(y: float) -> str:
    ticks = [
        f'<line x1="{LABEL + PLOT * t / 4:.1f}" y1="4" x2="{LABEL + PLOT * t / 4:.1f}" '
        f'y2="{y:.1f}" class="grid"/>' + _text(LABEL + PLOT * t / 4, y + 14, f"{25 * t}%", "middle")
        for t in range(5)
    ]
    return "".join(ticks)


def stacked_bars(rows: Sequence[tuple[str, Sequence[Segment]]], title: str) -> str:
    """One bar per label, split into segments proportional to their counts."""
    width, height = LABEL + PLOT + 60, ROW * len(rows) + 40
    most = max((sum(s.value for s in segments) for _, segments in rows), default=0) or 1
    body: list[str] = []
    for index, (label, segments) in enumerate(rows):
        y = 10 + index * ROW
        body.append(_text(LABEL - 8, y + 15, label, "end"))
        x = float(LABEL)
        for segment in segments:
            length = segment.value / most * PLOT
            if length > 0:
                body.append(
                    f'<rect class="segment" x="{x:.1f}" y="{y + 3}" width="{length:.1f}" '
                    f'height="{ROW - 8}" fill="{segment.color}"><title>'
                    f"{escape(label)}: {segment.value} {escape(segment.name)}</title></rect>"
                )
            x += length
        body.append(_text(x + 6, y + 15, str(sum(s.value for s in segments))))
    legend_y = height - 10
    for number, segment in enumerate(rows[0][1] if rows else ()):
        x = LABEL + number * 120
        body.append(
            f'<rect x="{x}" y="{legend_y - 9}" width="10" height="10" fill="{segment.color}"/>'
        )
        body.append(_text(x + 14, legend_y, segment.name))
    return _svg("outcomes", width, height, title, body)


def month_lines(
    months: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], title: str
) -> str:
    """The rate of each series per month; a month without a rate breaks the line."""
    width, height, top, bottom, left = 640, 260, 10, 40, 50
    plot_w, plot_h = width - left - 150, height - top - bottom
    step = plot_w / max(len(months) - 1, 1)
    body = [
        f'<line x1="{left}" y1="{top + plot_h * (1 - t / 4):.1f}" x2="{left + plot_w}" '
        f'y2="{top + plot_h * (1 - t / 4):.1f}" class="grid"/>'
        + _text(left - 6, top + plot_h * (1 - t / 4) + 4, f"{25 * t}%", "end")
        for t in range(5)
    ]
    body += [
        _text(left + i * step, height - bottom + 18, month, "middle")
        for i, month in enumerate(months)
    ]
    for number, (name, rates) in enumerate(series):
        color = PALETTE[number % len(PALETTE)]
        points = [
            (left + i * step, top + plot_h * (1 - rate))
            for i, rate in enumerate(rates)
            if rate is not None
        ]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
            stroke = f'fill="none" stroke="{color}" stroke-width="2"'
            body.append(f'<polyline class="series" points="{path}" {stroke}/>')
        body += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}"/>' for x, y in points]
        body.append(
            _text(left + plot_w + 12, top + 14 + number * 18, name, extra=f' style="fill:{color}"')
        )
    return _svg("trend", width, height, title, body)
