"""`quorum calibrate`: write the reliability profile the history supports (contract 2 JSON).

The profile goes to standard output or ``-o FILE``; `quorum review --profile FILE` reads it,
and `quorum review --db` uses the history's profile directly.
"""

from __future__ import annotations

import argparse
from typing import Any

from review_quorum.cli.common import ExitCode, write_output
from review_quorum.cli.history import positive
from review_quorum.cli.stats import add_filter_arguments, load_stats
from review_quorum.history.calibrate import calibrate


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "calibrate",
        help="write a reliability profile from the history's outcomes",
        description="Each bot's (and rule's) reliability from what reviewers did.",
    )
    add_filter_arguments(parser)
    parser.add_argument(
        "--min-decided",
        type=positive,
        default=1,
        metavar="N",
        help="leave out sources with fewer decided findings (default 1)",
    )
    parser.add_argument("-o", "--output", help="write the profile to this file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    stats, name = load_stats(args)
    profile = calibrate(stats, origin=name, min_decided=args.min_decided)
    write_output(profile.to_json().decode(), args.output)
    return ExitCode.OK
