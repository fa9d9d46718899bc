"""`quorum stats --html FILE`: one self-contained page, charts as inline SVG, nothing to fetch.

The page carries its own styles and charts; its Content-Security-Policy forbids every load
(``default-src 'none'``; only inline styles are allowed), so it opens the same offline and
can never call out. The mostly ignored bots stand out: red bars and a marked table row.
The tables the text form has are all here (bots; sources, runs and reliability; what each
bot is worth; rules; agreement). A chart with nothing to draw says why instead of drawing
an empty plot. Every bot name and rule id is escaped.
"""

from __future__ import annotations

from html import escape

from review_quorum.history.report import (
    IGNORED_MARK,
    SOURCE_HEAD,
    WORTH_HEAD,
    percent,
    source_cells,
    worth,
)
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
p.empty { color: #616161; font-style: italic; border: 1px dashed #bdbdbd; padding: 1em;
  max-width: 40em; }
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
    decided = any(tally.decided for tally in stats.bots.values())
    outcome = any(
        tally.addressed + tally.dismissed + tally.unknown for tally in stats.bots.values()
    )
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<p class="note">{stats.pull_requests} pull request(s). Addressed rate = addressed / '
        f"(addressed + dismissed). Mostly ignored: below {percent(IGNORED_RATE)} with at least "
        f"{IGNORED_MIN} decided findings.</p>",
        "<h2>Addressed rate per bot</h2>",
        rate_bars(bars, "Addressed rate per bot", chart="addressed")
        if decided
        else _empty("addressed", NO_OUTCOMES),
        "<h2>Outcomes per bot</h2>",
        stacked_bars(outcomes, "Outcomes per bot") if outcome else _empty("outcomes", NO_FINDINGS),
        "<h2>Duplicates of other bots</h2>",
        rate_bars(duplicates, "Share of each bot's findings another bot also made", **_BLUE)
        if stats.bots
        else _empty("duplicates", NO_FINDINGS),
        "<h2>Addressed rate by month</h2>",
        month_lines(months, trend, "Addressed rate by month")
        if decided
        else _empty("trend", NO_OUTCOMES),
        "<h2>Bots</h2>",
        _bot_table(stats),
        "<h2>Sources, runs and reliability (95% interval)</h2>",
        _sources_table(stats),
        "<h2>What each bot is worth</h2>",
        '<p class="note">Only it: findings no other bot raised. Without it: the addressed '
        "findings the review would have lost, as a share of every bot's addressed findings. "
        "Cost per addressed finding: the configured <code>cost-per-run</code> times the runs it "
        "appeared in, over its addressed findings.</p>",
        _worth_table(stats),
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
NO_OUTCOMES = (
    "No outcomes yet: outcomes come from <code>quorum history sync</code> (what reviewers did "
    "with each bot's comments once a pull request is merged or closed)."
)
NO_FINDINGS = (
    "No findings stored: record runs with <code>--db</code>, or run "
    "<code>quorum history sync</code>."
)


def _empty(chart: str, why: str) -> str:
    """What stands where a chart has nothing to draw: why (`why` is our own markup)."""
    return f'<p class="empty" data-chart="{chart}">{why}</p>'


def _sources_table(stats: Stats) -> str:
    rows = [
        f"<tr><td>{escape(bot)}</td>"
        + "".join(f"<td>{escape(cell)}</td>" for cell in source_cells(tally))
        + "</tr>"
        for bot, tally in stats.ranked()
    ]
    return f'<table id="sources">{_head("bot", SOURCE_HEAD)}{"".join(rows)}</table>'


def _worth_table(stats: Stats) -> str:
    rows = [
        f"<tr><td>{escape(bot)}</td>"
        + "".join(f"<td>{escape(cell)}</td>" for cell in worth(stats, bot, tally))
        + "</tr>"
        for bot, tally in stats.ranked()
    ]
    return f'<table id="worth">{_head("bot", WORTH_HEAD)}{"".join(rows)}</table>'


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
    if not stats.agreements:  # as the text says "Agreement: none", not an empty table
        return (
            '<p class="empty" data-table="agreement">None: no two bots raised the same finding.</p>'
        )
    rows = [
        f"<tr><td>{escape(a.bot)} + {escape(a.other)}</td><td>{a.shared}</td>"
        f"<td>{percent(a.jaccard)}</td></tr>"
        for a in stats.agreements
    ]
    return f'<table id="agreement">{_head("bots", ["shared", "jaccard"])}{"".join(rows)}</table>'
