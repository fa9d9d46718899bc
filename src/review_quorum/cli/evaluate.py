"""`quorum evaluate`: score each source and each consolidation policy against labels."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import orjson

from review_quorum import labels
from review_quorum.cli.common import (
    HELP,
    ExitCode,
    InputFiles,
    add_input_arguments,
    fraction,
    load_inputs,
    load_profile,
    non_negative_int,
    report_skipped,
    resolve_bots,
    write_output,
)
from review_quorum.evaluate import Options, evaluate
from review_quorum.model import distinct_bots
from review_quorum.render.evaluation import render_table, rows_data


def add_label_options(parser: argparse.ArgumentParser) -> None:
    """The label options `evaluate` and `calibrate` share."""
    parser.add_argument(
        "--labels-format", choices=labels.FORMATS, help="the labels' format (default: detected)"
    )
    parser.add_argument("--judge", help="review-bots labels: whose labels (default: opus)")
    parser.add_argument(
        "--ignore-rule",
        action="append",
        default=[],
        metavar="PATTERN",
        help="line labels: leave findings of these rules (glob) out of scoring",
    )
    parser.add_argument(
        "--tolerance",
        type=non_negative_int,
        default=labels.TOLERANCE,
        metavar="N",
        help=f"line labels: widen each finding by N lines each side (default {labels.TOLERANCE})",
    )
    parser.add_argument(
        "--any-category",
        action="store_true",
        help="line labels: a finding on a real line counts whatever the label's category",
    )
    parser.add_argument("--bots", help="how many bots ran (N), or their names (a,b,c)")


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "evaluate",
        help="score sources and consolidation policies against labels",
        description="Precision, recall and F1 of each bot and each policy against labels.",
    )
    parser.add_argument("labels", metavar="LABELS", help="the labels file")
    add_input_arguments(parser)
    add_label_options(parser)
    parser.add_argument("--profile", metavar="FILE", help="reliability profile (JSON)")
    parser.add_argument(
        "--line-window", type=non_negative_int, default=3, metavar="N", help=HELP["line-window"]
    )
    parser.add_argument(
        "--title-overlap", type=fraction, default=0.5, metavar="X", help=HELP["title-overlap"]
    )
    parser.add_argument(
        "--format", choices=["table", "json"], default="table", help="output format"
    )
    parser.add_argument("-o", "--output", help="write the result to this file")
    parser.set_defaults(run=run)


def load_runs(
    args: argparse.Namespace, labels_file: str, files: InputFiles
) -> tuple[labels.Labels, list[labels.Run]]:
    """The labels in `labels_file` (read as the label options of `args` say) and the
    runs they score, from the finding files `files`."""
    label_set = labels.load(
        Path(labels_file),
        args.labels_format,
        judge=args.judge,
        ignore_rules=args.ignore_rule,
        tolerance=args.tolerance,
        any_category=args.any_category,
    )
    batch = load_inputs(files, elsewhere=label_set.own_findings)
    report_skipped(batch.skipped)
    seen = distinct_bots(batch.findings)
    bots_ran = resolve_bots(args.bots, seen) if batch.findings else None
    return label_set, label_set.runs(batch.findings, bots_ran)


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    label_set, runs = load_runs(args, args.labels, InputFiles.from_args(args))
    options = Options(profile, args.line_window, args.title_overlap)
    rows = evaluate(label_set, runs, options)
    if args.format == "json":
        document = {"labels": label_set.name, "rows": rows_data(rows)}
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    else:
        text = render_table(rows, f"Against {label_set.name}:")
    write_output(text, args.output)
    return ExitCode.OK
