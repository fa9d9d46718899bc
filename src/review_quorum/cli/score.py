"""`quorum score`: confidence-score verified findings and decide where each one is posted.

Reads either a JSON array of scoring records (FILE) or a drafter's findings plus a
verifier's verdicts joined by file and line. Validation is strict and complete: every bad
field is reported at once and nothing is scored (exit 2). The JSON output is each input
record, extra keys kept, plus its score, band, disposition, forced flag, reason and
breakdown, in the four posting groups; markdown is the review body.
"""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from review_quorum.cli.common import ExitCode, read_bytes, warn, write_output
from review_quorum.cli.threshold import THRESHOLD_ENV, resolve_threshold
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import Source
from review_quorum.markup.escape import one_line
from review_quorum.render.review_body import body_from_report, render_review_body
from review_quorum.scoring.confidence import (
    DEFAULT_COMMENT_CAP,
    ConfidenceResult,
    ScoredFinding,
    ScoreReport,
    score_findings,
)
from review_quorum.scoring.confidence.join import Joined, Unmatched, join_verdicts
from review_quorum.scoring.confidence.verdicts import parse_score_records

GROUPS = ("inline", "summary", "audit", "dropped")
WARNING_LINES = 20


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="score verified findings (0..100, a band) and decide where each is posted",
        description="Score verified findings and place them: inline, summary, audit, dropped.",
    )
    parser.add_argument(
        "file", nargs="?", metavar="FILE", help="JSON array of scoring records ('-': stdin)"
    )
    parser.add_argument("--drafter", metavar="D.json", help='drafter output {"findings": [...]}')
    parser.add_argument("--verifier", metavar="V.json", help='verifier output {"verdicts": [...]}')
    parser.add_argument(
        "--threshold",
        metavar="VALUE",
        help=f"posting threshold: strong, moderate/medium, weak or 30..100 (${THRESHOLD_ENV})",
    )
    parser.add_argument(
        "--cap",
        type=_cap,
        default=DEFAULT_COMMENT_CAP,
        metavar="N",
        help="most non-forced inline comments",
    )
    parser.add_argument(
        "--format", choices=["json", "markdown"], default="json", help="output format"
    )
    parser.add_argument("-o", "--output", help="write the result to this file")
    parser.set_defaults(run=run)


def _cap(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number >= 0, not {text!r}")
    return int(text)


def _read_json(path: str) -> object:
    return Source("<stdin>" if path == "-" else path, read_bytes(path)).json()


def load_records(args: argparse.Namespace) -> tuple[object, Joined | None]:
    """The scoring records the command line names, and the join when there was one."""
    joining = args.drafter is not None or args.verifier is not None
    if args.file is not None and joining:
        raise ConfigError("give FILE or --drafter/--verifier, not both")
    if args.file is not None:
        return _read_json(args.file), None
    if args.drafter is None or args.verifier is None:
        raise ConfigError("give FILE, or both --drafter D.json and --verifier V.json")
    joined = join_verdicts(
        _read_json(args.drafter),
        _read_json(args.verifier),
        drafter_source=args.drafter,
        verifier_source=args.verifier,
    )
    return list(joined.records), joined


def run(args: argparse.Namespace) -> int:
    threshold = resolve_threshold(args.threshold, "--threshold")
    document, joined = load_records(args)
    source = "<stdin>" if args.file == "-" else args.file or args.drafter
    inputs = parse_score_records(document, source)
    records: list[Any] = document  # type: ignore[assignment]  # validated as an array
    report = score_findings(inputs, post_threshold=threshold.score, comment_cap=args.cap)
    if args.format == "json":
        text = render_json(report, records, joined)
    else:
        text = render_review_body(body_from_report(report, notes=_notes(report, joined)))
    write_output(text, args.output)
    if joined is not None:
        _warn_unmatched(joined)
    return ExitCode.OK


def render_json(report: ScoreReport, records: list[Any], joined: Joined | None) -> str:
    """The four posting groups, each entry its input record plus the scoring fields."""
    breakdowns: dict[int, dict[str, Any]] = {}
    document: dict[str, Any] = {
        group: [_entry(records, finding, breakdowns) for finding in getattr(report, group)]
        for group in GROUPS
    }
    if joined is not None:
        document["unmatched"] = {
            "findings": [_unmatched_data(item) for item in joined.unverified],
            "verdicts": [_unmatched_data(item) for item in joined.unmatched_verdicts],
        }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def _entry(
    records: list[Any], finding: ScoredFinding, breakdowns: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    item, result = finding.input, finding.result
    entry: dict[str, Any] = dict(records[finding.position])
    entry["line"] = item.line
    entry["in_diff"] = item.in_diff
    entry["in_changed_code"] = item.in_changed_code
    entry["score"] = result.score
    entry["band"] = result.band.value
    entry["disposition"] = result.disposition.value
    entry["forced"] = result.forced
    entry["reason"] = result.reason
    breakdown = breakdowns.get(id(result))
    if breakdown is None:
        breakdown = breakdowns[id(result)] = _breakdown_data(result)
    entry["breakdown"] = breakdown
    return entry


def _breakdown_data(result: ConfidenceResult) -> dict[str, Any]:
    breakdown = result.breakdown
    return {
        "subtotal": breakdown.subtotal,
        "concordance": breakdown.concordance,
        "severity_distance": breakdown.severity_distance,
        "gate": breakdown.gate.value if breakdown.gate is not None else None,
    }


def _unmatched_data(item: Unmatched) -> dict[str, Any]:
    return {"source": item.source, "pointer": item.pointer, "file": item.file, "line": item.line}


def _notes(report: ScoreReport, joined: Joined | None) -> tuple[str, ...]:
    cap = report.comment_cap
    notes = [
        f"_Posting threshold {report.post_threshold}; at most {cap} non-forced inline "
        f"comment{'s' if cap != 1 else ''}._"
    ]
    if joined is not None and joined.unverified:
        count = len(joined.unverified)
        notes.append(f"_{count} drafter finding(s) got no verifier verdict and were not scored._")
    if joined is not None and joined.unmatched_verdicts:
        count = len(joined.unmatched_verdicts)
        notes.append(f"_{count} verifier verdict(s) matched no drafter finding._")
    return tuple(notes)


def _warn_unmatched(joined: Joined) -> None:
    lines = [
        f"{one_line(item.describe())}: drafter finding got no verdict (not scored)"
        for item in joined.unverified
    ]
    lines += [
        f"{one_line(item.describe())}: verdict matches no drafter finding"
        for item in joined.unmatched_verdicts
    ]
    for line in lines[:WARNING_LINES]:
        warn(line)
    if len(lines) > WARNING_LINES:
        warn(
            f"... and {len(lines) - WARNING_LINES} more (listed under 'unmatched' in --format json)"
        )
