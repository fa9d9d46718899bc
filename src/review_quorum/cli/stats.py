"""`quorum stats`: per bot and per rule, comments, duplicates, agreement and addressed rate.

Text (default), ``--format json`` or ``--format csv`` go to standard output or ``-o``;
``--html FILE`` also writes the self-contained page with its charts.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from review_quorum import config
from review_quorum.cli.common import ExitCode, write_output
from review_quorum.cli.history import date, nothing_matched
from review_quorum.cli.record import add_db_argument, open_reading
from review_quorum.history.html import render_html
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.rates import rate
from review_quorum.history.report import render_csv, render_json, render_text
from review_quorum.history.show import Filters
from review_quorum.history.stats import Stats, compute_stats

FORMATS = {"text": render_text, "json": render_json, "csv": render_csv}


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "stats",
        help="how often each bot's comments were acted on, from the history",
        description="Per bot and per rule: comments, duplicates, agreement, addressed rate.",
    )
    add_filter_arguments(parser)
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    parser.add_argument("-o", "--output", help="write to this file instead of standard output")
    parser.set_defaults(run=run)


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """The history and the part of it to count (shared with `quorum calibrate`)."""
    add_db_argument(parser)
    parser.add_argument("--config", metavar="FILE", help="configuration file to read")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="only this repository")
    parser.add_argument("--bot", metavar="NAME", help="only this bot")
    parser.add_argument("--since", type=date, metavar="DATE", help="comments made since")


def load_stats(args: argparse.Namespace) -> tuple[Stats, str]:
    """The statistics the arguments ask for, and the database's name."""
    settings = config.load(Path(args.config) if args.config else None)
    rule = settings.get("outcome-rule", DEFAULT_RULE)
    database = open_reading(args.db, settings)
    try:
        filters = Filters(repository=args.repo, bot=args.bot, since=args.since)
        stats = compute_stats(database, rule, filters)
        rate(stats)
        stats.costs = dict(settings.get("cost-per-run", {}))
        return stats, database.name
    finally:
        database.close()


STATS_FILTERS = ("repo", "bot", "since")


def run(args: argparse.Namespace) -> int:
    stats, name = load_stats(args)
    text = FORMATS[args.format](stats)
    if args.format == "text" and not stats.bots:
        text = nothing_matched(args, STATS_FILTERS, name) or text
    write_output(text, args.output)
    if args.html:
        write_output(render_html(stats), args.html)
    return ExitCode.OK
