"""`quorum stats --html FILE`: one self-contained page, charts as inline SVG, nothing to fetch.

The page carries its own styles and charts; its Content-Security-Policy forbids every load
(``default-src 'none'``; only inline styles are allowed), so it opens the same offline and
can never call out. The mostly ignored bots stand out: red bars and a marked table row.
Every bot name and rule id is escaped.
"""

from __future__ import annotations

from html import escape

from review_quorum.history.report import IGNORED_MARK, percent
from review_quorum.history.stats import IGNORED_MIN, IGNORED_RATE, Stats, Tally
from review_quorum.history.svg import (
    BAD,
    GOOD,
    NEUTRAL,
    Bar,
    Segment,
    month_lines,
    rate_bars,
    stacked_bars,
)

CSP = "default-src 'none'; style-src 'unsafe-inline'"
STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #212121; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; } th, td { padding: 3px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tr.ignored td { background: #ffebee; color: #b71c1c; font-weight: 600; }
.chart text { font: 12px system-ui, sans-serif; fill: #212121; }
.chart .grid { stroke: #e0e0e0; } .chart .muted { fill: #9e9e9e; }
p.note { color: #616161; }
"""


def render_html(stats: Stats, *, title: str = "review-quorum: what reviewers did") -> str:
    ranked = stats.ranked()
    bars = [Bar(bot, tally.addressed_rate, tally.ignored, _decided(tally)) for bot, tally in ranked]
    outcomes = [
        (
            bot,
            [
                Segment("addressed", tally.addressed, GOOD),
                Segment("dismissed", tally.dismissed, BAD),
                Segment("unknown", tally.unknown, NEUTRAL),
            ],
        )
        for bot, tally in ranked
    ]
    duplicates = [
        Bar(bot, tally.duplicate_rate, False, f"of {tally.findings}") for bot, tally in ranked
    ]
    months = stats.month_names
    trend = [
        (bot, [(stats.months.get((bot, m)) or Tally()).addressed_rate for m in months])
        for bot, _ in ranked
    ]
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="note">{stats.pull_requests} pull request(s). Addressed rate = addressed / '
        f"(addressed + dismissed). Mostly ignored: below {percent(IGNORED_RATE)} with at least "
        f"{IGNORED_MIN} decided findings.</p>",
        "<h2>Addressed rate per bot</h2>",
        rate_bars(bars, "Addressed rate per bot", chart="addressed"),
        "<h2>Outcomes per bot</h2>",
        stacked_bars(outcomes, "Outcomes per bot"),
        "<h2>Duplicates of other bots</h2>",
        rate_bars(duplicates, "Share of each bot's findings another bot also made", **_BLUE),
        "<h2>Addressed rate by month</h2>",
        month_lines(months, trend, "Addressed rate by month"),
        "<h2>Bots</h2>",
        _bot_table(stats),
        "<h2>Rules</h2>",
        _rule_table(stats),
        "<h2>Agreement between bots</h2>",
        _agreement_table(stats),
    ]
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
    )
    return head + "<body>" + "\n".join(sections) + "</body></html>\n"


_BLUE = {"chart": "duplicates", "color": "#1565c0"}


def _decided(tally: Tally) -> str:
    return f"of {tally.decided}, mostly ignored" if tally.ignored else f"of {tally.decided}"


_COLUMNS = ["comments", "findings", "duplicates", "addressed", "dismissed", "unknown", "rate"]


def _cells(tally: Tally) -> str:
    values = [tally.comments, tally.findings, tally.duplicates, tally.addressed]
    values += [tally.dismissed, tally.unknown]
    return (
        "".join(f"<td>{value}</td>" for value in values)
        + f"<td>{percent(tally.addressed_rate)}</td>"
    )


def _head(first: str, columns: list[str]) -> str:
    return "<tr>" + "".join(f"<th>{escape(name)}</th>" for name in [first, *columns]) + "</tr>"


def _bot_table(stats: Stats) -> str:
    rows = [
        f'<tr class="{"ignored" if tally.ignored else "bot"}"><td>{escape(bot)}'
        f"{' ' + escape(IGNORED_MARK) if tally.ignored else ''}</td>{_cells(tally)}</tr>"
        for bot, tally in stats.ranked()
    ]
    return f'<table id="bots">{_head("bot", _COLUMNS)}{"".join(rows)}</table>'


def _rule_table(stats: Stats) -> str:
    rows = [
        f"<tr><td>{escape(bot)} {escape(rule) or '(no rule id)'}</td>{_cells(tally)}</tr>"
        for (bot, rule), tally in sorted(stats.rules.items())
    ]
    return f'<table id="rules">{_head("bot rule", _COLUMNS)}{"".join(rows)}</table>'


def _agreement_table(stats: Stats) -> str:
    rows = [
        f"<tr><td>{escape(a.bot)} + {escape(a.other)}</td><td>{a.shared}</td>"
        f"<td>{percent(a.jaccard)}</td></tr>"
        for a in stats.agreements
    ]
    return f'<table id="agreement">{_head("bots", ["shared", "jaccard"])}{"".join(rows)}</table>'
