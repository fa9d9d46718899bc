"""`quorum consensus`: cluster findings from many bots, print them, and gate on agreement."""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from review_quorum.cli.common import (
    ExitCode,
    add_input_arguments,
    load_inputs,
    report_skipped,
    warn,
    write_output,
)
from review_quorum.consensus import compute_consensus, must_address
from review_quorum.errors import InputError
from review_quorum.model import ConsensusLevel
from review_quorum.render.consensus import render_consensus_markdown
from review_quorum.render.escape import one_line
from review_quorum.render.serialize import consensus_data, skipped_data

GATE_LEVELS = ["confirmed", "needs-verification", "unverified", "none"]


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "consensus",
        help="cluster findings and score how many bots agree on each",
        description="Cluster findings from many bots into consensus findings.",
    )
    add_input_arguments(parser)
    add_consensus_arguments(parser)
    parser.add_argument("--format", choices=["markdown", "json"], default="markdown")
    parser.add_argument("-o", "--output", help="write the result to this file")
    parser.set_defaults(run=run)


def add_consensus_arguments(parser: argparse.ArgumentParser) -> None:
    """The clustering and gate options shared by `consensus` and `review`."""
    parser.add_argument(
        "--bots",
        help="how many bots ran (N), or their names (a,b,c); bots with no findings count",
    )
    parser.add_argument("--line-window", type=non_negative_int, default=3, metavar="N")
    parser.add_argument("--title-overlap", type=finite_float, default=0.5, metavar="X")
    parser.add_argument("--order", choices=["input", "canonical"], default="input")
    parser.add_argument("--gate-level", choices=GATE_LEVELS, default="confirmed")


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, not {value}")
    return value


def finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, not {text!r}")
    return value


def resolve_bots(value: str | None, seen: set[str]) -> int | None:
    """`--bots` as a count; warns when it is absent or names fewer bots than were seen."""
    if value is None:
        if seen:
            warn(
                "--bots not given: agreement is measured against the "
                f"{len(seen)} bot(s) with findings only, which over-states it"
            )
        return None
    text = value.strip()
    if text.isdigit():
        count = int(text)
        if count < 1:
            raise InputError("--bots", "", "expected at least 1 bot")
        return count
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise InputError("--bots", "", f"expected a number or a list of names, not {value!r}")
    missing = sorted(seen - set(names))
    if missing:
        warn(f"--bots does not list {', '.join(one_line(name) for name in missing)}")
    return max(len(set(names) | seen), 1)


def gate_level(value: str) -> ConsensusLevel | None:
    return None if value == "none" else ConsensusLevel.parse(value)


def run(args: argparse.Namespace) -> int:
    batch = load_inputs(args)
    seen = {finding.bot for finding in batch.findings}
    bots_ran = resolve_bots(args.bots, seen)
    consensus = compute_consensus(
        batch.findings,
        bots_ran=bots_ran,
        line_window=args.line_window,
        title_overlap=args.title_overlap,
        order=args.order,
    )
    if args.format == "json":
        document: dict[str, Any] = {
            "bots_ran": consensus[0].bots_ran if consensus else max(bots_ran or len(seen), 1),
            "findings": [consensus_data(finding) for finding in consensus],
            "skipped": [skipped_data(skipped) for skipped in batch.skipped],
        }
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    else:
        text = render_consensus_markdown(consensus)
        if batch.skipped:
            text += f"\n{len(batch.skipped)} input record(s) skipped.\n"
    write_output(text, args.output)
    report_skipped(batch.skipped)
    level = gate_level(args.gate_level)
    if level is not None and must_address(consensus, min_level=level):
        return ExitCode.GATE_FAILED
    return ExitCode.OK
