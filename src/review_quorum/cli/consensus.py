"""`quorum consensus`: cluster findings from many bots, print them, and gate on agreement.

What follows reading (clustering and scoring, writing) runs under a `progress.Ticker`:
a long run says on standard error which stage it is in.
"""

from __future__ import annotations

import argparse
from typing import Any

from review_quorum.cli import progress
from review_quorum.cli.common import (
    GATE_LEVELS,
    HELP,
    ExitCode,
    InputFiles,
    add_input_arguments,
    add_model_arguments,
    fraction,
    gate_level,
    keep_until_exit,
    load_inputs,
    load_profile,
    non_negative_int,
    report_skipped,
    resolve_bots,
    write_chunks,
    write_output,
)
from review_quorum.model import distinct_bots
from review_quorum.render.consensus import render_consensus_markdown
from review_quorum.render.json_stream import consensus_document
from review_quorum.scoring import DEFAULT_MODEL, compute_consensus
from review_quorum.scoring.agreement import blocks


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "consensus",
        help="cluster findings and score how many bots agree on each",
        description="Cluster findings from many bots into consensus findings.",
    )
    add_input_arguments(parser)
    add_consensus_arguments(parser)
    parser.add_argument(
        "--format", choices=["markdown", "json"], default="markdown", help="output format"
    )
    parser.add_argument("-o", "--output", help="write the result to this file")
    parser.set_defaults(run=run)


def add_consensus_arguments(parser: argparse.ArgumentParser) -> None:
    """The clustering and gate options shared by `consensus` and `review`."""
    parser.add_argument(
        "--bots",
        help="how many bots ran (N), or their names (a,b,c); bots with no findings count",
    )
    parser.add_argument(
        "--line-window", type=non_negative_int, default=3, metavar="N", help=HELP["line-window"]
    )
    parser.add_argument(
        "--title-overlap", type=fraction, default=0.5, metavar="X", help=HELP["title-overlap"]
    )
    parser.add_argument(
        "--order", choices=["input", "canonical"], default="input", help=HELP["order"]
    )
    parser.add_argument(
        "--gate-level", choices=GATE_LEVELS, default="confirmed", help=HELP["gate-level"]
    )
    add_model_arguments(parser, default=DEFAULT_MODEL)


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    batch = load_inputs(InputFiles.from_args(args))
    seen = distinct_bots(batch.findings)
    bots_ran = resolve_bots(args.bots, seen)
    with progress.ticking(f"clustering {len(batch.findings):,} findings") as ticker:
        consensus = compute_consensus(
            batch.findings,
            bots_ran=bots_ran,
            line_window=args.line_window,
            title_overlap=args.title_overlap,
            order=args.order,
            model=args.model,
            profile=profile,
        )
        ticker.stage(f"writing {len(consensus):,} consensus findings")
        if args.format == "json":
            ran = consensus[0].bots_ran if consensus else max(bots_ran or len(seen), 1)
            write_chunks(consensus_document(consensus, ran, batch.skipped), args.output)
        else:
            text = render_consensus_markdown(consensus)
            if batch.skipped:
                text += f"\n{len(batch.skipped)} input record(s) skipped.\n"
            write_output(text, args.output)
    report_skipped(batch.skipped)
    keep_until_exit(batch, consensus)
    level = gate_level(args.gate_level)
    if level is not None and blocks(consensus, min_level=level):
        return ExitCode.GATE_FAILED
    return ExitCode.OK
