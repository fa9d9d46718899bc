"""`quorum calibrate`: write a reliability profile (contract 2 JSON) from evidence.

Two sources of evidence: the history's outcomes (what reviewers did with past comments,
`--db`), or labels (`quorum calibrate LABELS FINDINGS...`: which findings are real, in any
format `quorum evaluate` reads). Both go through one estimator (`scoring.fitting`): each
source's rate shrunk toward what the base profile (``--profile FILE``, else the shipped
one) says of it, its family's or the mean bot's, and its rule's toward its bot's. The
learned sources extend the base profile, which keeps every source the evidence does not
cover. The profile goes to standard output or ``-o FILE``, and what moved from the base
profile, and by how much, to standard error; `quorum review --profile FILE` reads it, and
`quorum review --db` uses the history's profile directly.
"""

from __future__ import annotations

import argparse
from typing import Any

from review_quorum import labels
from review_quorum.cli.common import ExitCode, InputFiles, load_profile, write_output
from review_quorum.cli.evaluate import add_label_options, load_runs
from review_quorum.cli.history import positive
from review_quorum.cli.progress import note
from review_quorum.cli.stats import add_filter_arguments, load_stats
from review_quorum.errors import UsageError
from review_quorum.history.rates import calibrate
from review_quorum.ingest import READERS
from review_quorum.scoring.fitting import extend, fit, moved
from review_quorum.scoring.profile import Profile


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
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="the profile to learn over and extend (default: the shipped one)",
    )
    parser.add_argument("-o", "--output", help="write the profile to this file")
    parser.set_defaults(run=run)


# Each mode's options, with their defaults: the other mode would ignore them without a word.
HISTORY_OPTIONS: dict[str, object] = {
    "db": None,
    "config": None,
    "repo": None,
    "bot": None,
    "since": None,
    "min_decided": 1,
}
LABEL_OPTIONS: dict[str, object] = {
    "labels_format": None,
    "judge": None,
    "ignore_rule": [],
    "tolerance": labels.TOLERANCE,
    "any_category": False,
    "bots": None,
    "input_format": None,
    "root": None,
    "origin": None,
}


def run(args: argparse.Namespace) -> int:
    if args.inputs:
        _refuse(args, HISTORY_OPTIONS, "for calibrating from the history; LABELS are given")
        files = InputFiles(
            paths=tuple(args.inputs[1:]), input_format=args.input_format, root=args.root
        )
        label_set, runs = load_runs(args, args.inputs[0], files)
        base = _base(args.profile)
        learned = fit(label_set, runs, args.origin or f"labels: {label_set.name}", base)
    else:
        _refuse(args, LABEL_OPTIONS, "for calibrating from LABELS [FINDINGS]; none are given")
        stats, name = load_stats(args)
        base = _base(args.profile)
        learned = calibrate(stats, origin=name, min_decided=args.min_decided, base=base)
    write_output(extend(learned, base).to_json().decode(), args.output)
    changes = moved(learned, base)
    where = f"the profile {args.profile}" if args.profile else "the shipped profile"
    note(f"calibrate: {len(learned.sources)} source(s) learned over {where}; what moved:")
    for line in changes or ["nothing"]:
        note(f"  {line}")
    return ExitCode.OK


def _refuse(args: argparse.Namespace, options: dict[str, object], why: str) -> None:
    """A `UsageError` naming the options given that this run's mode does not read."""
    given = [name for name, default in options.items() if getattr(args, name) != default]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise UsageError(f"{flags}: {why}")


def _base(path: str | None) -> Profile:
    return load_profile(path) or Profile.default()  # read as inputs are
