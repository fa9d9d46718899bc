"""`quorum stats` as text, JSON or CSV: pure functions of the computed `Stats`.

The text form is six tables: bots (best addressed rate first, the mostly ignored marked
``<< mostly ignored``), where each bot's findings came from with the plans' dispositions
and its reliability (a 95% interval, the outcomes behind it, ``(thin)`` when too few),
what each bot is worth (the findings only it raised, how many of those were addressed,
what the review would lose without it, and with a configured `cost-per-run` the cost of
one addressed finding), rules, agreement between bots, and the addressed rate per month.
Bot names and rule ids are untrusted text: control characters are removed.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

import orjson

from review_quorum.history.stats import Stats, Tally
from review_quorum.markup.escape import one_line

IGNORED_MARK = "<< mostly ignored"
THIN_MARK = "(thin)"
_HEAD = ["comments", "findings", "dup", "addressed", "dismissed", "unknown", "rate"]
SOURCE_HEAD = ["runs", "from", "posted", "kept", "dropped", "went away", "reliability", "n"]
WORTH_HEAD = ["only it", "only it addressed", "without it", "cost/addressed"]
POSTED, KEPT, DROPPED = ("inline",), ("summary", "audit"), ("dropped",)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{round(value * 100)}%"


def _counts(tally: Tally) -> list[str]:
    duplicates = f"{tally.duplicates} ({percent(tally.duplicate_rate)})"
    numbers = [tally.addressed, tally.dismissed, tally.unknown]
    return [str(tally.comments), str(tally.findings), duplicates, *map(str, numbers)] + [
        percent(tally.addressed_rate)
    ]


def disposition_count(tally: Tally, names: tuple[str, ...]) -> int:
    return sum(tally.dispositions.get(name, 0) for name in names)


def reliability_text(tally: Tally) -> str:
    """What `calibrate` gives the source and its 95% interval; `-` before any outcome."""
    reliability = tally.reliability
    if reliability is None:
        return "-"
    thin = f" {THIN_MARK}" if tally.thin else ""
    return f"{reliability.estimate:.2f} [{reliability.low:.2f}-{reliability.high:.2f}]{thin}"


def source_cells(tally: Tally) -> list[str]:
    """Where a tally's findings came from, what the plans did with them, how sure we are."""
    origins = ",".join(f"{name}:{count}" for name, count in sorted(tally.origins.items()))
    counts = [disposition_count(tally, names) for names in (POSTED, KEPT, DROPPED)]
    return [str(tally.runs), origins or "-", *map(str, counts), str(tally.went_away)] + [
        reliability_text(tally),
        str(tally.decided),
    ]


def worth(stats: Stats, bot: str, tally: Tally) -> list[str]:
    """What `bot` is worth: the findings only it raised, how many of those were addressed,
    what the review loses without it (those addressed findings, as a share of every bot's
    addressed findings), and the cost of one addressed finding ("-" when not configured)."""
    total = stats.addressed
    lost = "nothing addressed yet"
    if total:
        lost = "no addressed finding lost"
    if tally.only_addressed:
        lost = f"{tally.only_addressed} addressed lost ({percent(tally.only_addressed / total)})"
    cost = stats.cost_per_addressed(bot)
    return [
        str(tally.only),
        str(tally.only_addressed),
        lost,
        "-" if cost is None else f"{cost:.2f}",
    ]


def _table(title: str, head: list[str], rows: Sequence[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = [title]
    for row in [head, *rows]:
        cells = [
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return "\n".join(lines)


def render_text(stats: Stats) -> str:
    if not stats.bots:
        return "No findings stored (record runs with --db, or run quorum history sync).\n"
    bots = [
        [one_line(bot), *_counts(tally), IGNORED_MARK if tally.ignored else ""]
        for bot, tally in stats.ranked()
    ]
    sources = [[one_line(bot), *source_cells(tally)] for bot, tally in stats.ranked()]
    worths = [[one_line(bot), *worth(stats, bot, tally)] for bot, tally in stats.ranked()]
    rules = [
        [f"{one_line(bot)} {one_line(rule) or '(no rule id)'}", *_counts(tally)]
        for (bot, rule), tally in sorted(stats.rules.items())
    ]
    pairs = [
        [f"{one_line(a.bot)} + {one_line(a.other)}", str(a.shared), percent(a.jaccard)]
        for a in stats.agreements
    ]
    months = stats.month_names
    trend = [
        [one_line(bot), *(percent(_month(stats, bot, month).addressed_rate) for month in months)]
        for bot, _ in stats.ranked()
    ]
    parts = [
        f"{stats.pull_requests} pull request(s); rate = addressed / (addressed + dismissed)",
        _table("Bots", ["bot", *_HEAD, ""], bots),
        _table("Sources, runs and reliability (95% interval)", ["bot", *SOURCE_HEAD], sources),
        _table("What each bot is worth", ["bot", *WORTH_HEAD], worths),
        _table("Rules", ["bot rule", *_HEAD], rules),
        _table("Agreement", ["bots", "shared", "jaccard"], pairs) if pairs else "Agreement: none",
        _table("Addressed rate by month", ["bot", *months], trend),
    ]
    return "\n\n".join(parts) + "\n"


def _month(stats: Stats, bot: str, month: str) -> Tally:
    return stats.months.get((bot, month)) or Tally()


def _tally_data(tally: Tally) -> dict[str, Any]:
    reliability = tally.reliability
    return {
        "comments": tally.comments,
        "findings": tally.findings,
        "duplicates": tally.duplicates,
        "addressed": tally.addressed,
        "dismissed": tally.dismissed,
        "unknown": tally.unknown,
        "went_away": tally.went_away,
        "addressed_rate": tally.addressed_rate,
        "duplicate_rate": tally.duplicate_rate,
        "runs": tally.runs,
        "origins": dict(sorted(tally.origins.items())),
        "dispositions": dict(sorted(tally.dispositions.items())),
        "reliability": {
            "estimate": None if reliability is None else reliability.estimate,
            "interval": None if reliability is None else [reliability.low, reliability.high],
            "outcomes": tally.decided,
            "thin": tally.thin,
        },
    }


def stats_data(stats: Stats) -> dict[str, Any]:
    return {
        "pull_requests": stats.pull_requests,
        "bots": [
            {
                "bot": bot,
                **_tally_data(tally),
                "mostly_ignored": tally.ignored,
                "only_it": {"findings": tally.only, "addressed": tally.only_addressed},
                "without_it": {
                    "addressed_lost": tally.only_addressed,
                    "share_of_addressed": (
                        tally.only_addressed / stats.addressed if stats.addressed else None
                    ),
                },
                "cost_per_run": stats.costs.get(bot),
                "cost_per_addressed": stats.cost_per_addressed(bot),
            }
            for bot, tally in stats.ranked()
        ],
        "rules": [
            {"bot": bot, "rule": rule, **_tally_data(tally)}
            for (bot, rule), tally in sorted(stats.rules.items())
        ],
        "agreement": [
            {"bot": a.bot, "other": a.other, "shared": a.shared, "jaccard": a.jaccard}
            for a in stats.agreements
        ],
        "months": [
            {"bot": bot, "month": month, **_tally_data(tally)}
            for (bot, month), tally in sorted(stats.months.items())
        ],
    }


def render_json(stats: Stats) -> str:
    return orjson.dumps(stats_data(stats), option=orjson.OPT_INDENT_2).decode() + "\n"


CSV_COLUMNS = ["scope", "bot", "rule", "month", "comments", "findings", "duplicates"]
CSV_COLUMNS += ["addressed", "dismissed", "unknown", "addressed_rate", "went_away", "runs"]
CSV_COLUMNS += ["reliability", "reliability_low", "reliability_high", "outcomes"]
CSV_COLUMNS += ["only_it", "only_it_addressed", "cost_per_addressed"]


def render_csv(stats: Stats) -> str:
    """One row per bot, per rule and per month; `scope` says which."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    rows: list[tuple[str, str, str, str, Tally]] = [
        ("bot", bot, "", "", tally) for bot, tally in stats.ranked()
    ]
    rows += [("rule", bot, rule, "", t) for (bot, rule), t in sorted(stats.rules.items())]
    rows += [("month", bot, "", month, t) for (bot, month), t in sorted(stats.months.items())]
    for scope, bot, rule, month, tally in rows:
        rate = tally.addressed_rate
        numbers = [tally.comments, tally.findings, tally.duplicates]
        numbers += [tally.addressed, tally.dismissed, tally.unknown]
        reliability = tally.reliability
        estimate = ["", "", ""]
        if reliability is not None:
            estimate = [
                f"{v:.4f}" for v in (reliability.estimate, reliability.low, reliability.high)
            ]
        cost = stats.cost_per_addressed(bot) if scope == "bot" else None
        writer.writerow(
            [scope, _cell(bot), _cell(rule), month, *numbers, "" if rate is None else f"{rate:.4f}"]
            + [tally.went_away, tally.runs, *estimate, tally.decided]
            + [tally.only, tally.only_addressed, "" if cost is None else f"{cost:.4f}"]
        )
    return out.getvalue()


def _cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    text = one_line(text)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text
