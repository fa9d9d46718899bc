"""`quorum calibrate`: write a reliability profile (contract 2 JSON) from evidence.

Two sources of evidence: the history's outcomes (what reviewers did with past comments,
`--db`), or labels (`quorum calibrate LABELS FINDINGS...`: which findings are real, in any
format `quorum evaluate` reads). The profile goes to standard output or ``-o FILE``;
`quorum review --profile FILE` reads it, and `quorum review --db` uses the history's
profile directly.
"""

from __future__ import annotations

import argparse
from typing import Any

from review_quorum.cli.common import ExitCode, InputFiles, write_output
from review_quorum.cli.evaluate import add_label_options, load_runs
from review_quorum.cli.history import positive
from review_quorum.cli.stats import add_filter_arguments, load_stats
from review_quorum.history.rates import calibrate
from review_quorum.ingest import READERS
from review_quorum.scoring.fitting import fit


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "calibrate",
        help="write a reliability profile from the history's outcomes or from labels",
        description="Each bot's (and rule's) reliability from what reviewers did, or from "
        "labels when LABELS is given.",
    )
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="LABELS [FINDINGS]",
        help="fit from labels instead of the history: the labels file, then finding files",
    )
    add_filter_arguments(parser)
    parser.add_argument(
        "--min-decided",
        type=positive,
        default=1,
        metavar="N",
        help="leave out sources with fewer decided findings (default 1)",
    )
    add_label_options(parser)
    parser.add_argument(
        "--input-format",
        choices=sorted(READERS),
        help="labels mode: read every FINDINGS file in this format instead of detecting it",
    )
    parser.add_argument("--root", help="labels mode: root that makes paths repository-relative")
    parser.add_argument("--origin", help="labels mode: what the profile was fitted on")
    parser.add_argument("-o", "--output", help="write the profile to this file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.inputs:
        files = InputFiles(
            paths=tuple(args.inputs[1:]), input_format=args.input_format, root=args.root
        )
        label_set, runs = load_runs(args, args.inputs[0], files)
        profile = fit(label_set, runs, args.origin or f"labels: {label_set.name}")
    else:
        stats, name = load_stats(args)
        profile = calibrate(stats, origin=name, min_decided=args.min_decided)
    write_output(profile.to_json().decode(), args.output)
    return ExitCode.OK
