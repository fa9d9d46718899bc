"""`quorum threshold`: show how a posting threshold resolves (score and band), and warn.

Also owns reading a threshold at the command line for other commands: the flag when
given, else the `CONFIDENCE_THRESHOLD` environment variable, else the default, with a
warning (never an error) when the value is not understood.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from review_quorum.cli.common import ExitCode, warn, write_output
from review_quorum.scoring.confidence.bands import (
    DEFAULT_POST_THRESHOLD,
    ThresholdChoice,
    describe_threshold,
)

THRESHOLD_ENV = "CONFIDENCE_THRESHOLD"


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "threshold",
        help="show the score and band a posting threshold resolves to",
        description=(
            "Resolve a posting threshold: strong (80), moderate or medium (55), weak (30), "
            "or a number clamped to 30..100. Anything else falls back to 55 with a warning."
        ),
    )
    parser.add_argument(
        "value",
        nargs="?",
        metavar="VALUE",
        help=f"the threshold (default: ${THRESHOLD_ENV}, else {DEFAULT_POST_THRESHOLD})",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    parser.set_defaults(run=run)


def resolve_threshold(flag: str | None, flag_name: str = "VALUE") -> ThresholdChoice:
    """The threshold from the flag, else the environment; warns when it is not understood."""
    name, value = flag_name, flag
    if value is None:
        name, value = THRESHOLD_ENV, os.environ.get(THRESHOLD_ENV)
    choice = describe_threshold(value)
    if not choice.recognized:
        warn(
            f"{name} {value!r} is not a band name (strong, moderate, medium, weak) or a "
            f"number: using the default {choice.score} ({choice.band})"
        )
    return choice


def run(args: argparse.Namespace) -> int:
    choice = resolve_threshold(args.value)
    if args.format == "json":
        data = {"score": choice.score, "band": choice.band.value, "recognized": choice.recognized}
        text = json.dumps(data) + "\n"
    else:
        text = f"{choice.score} ({choice.band})\n"
    write_output(text, None)
    return ExitCode.OK
