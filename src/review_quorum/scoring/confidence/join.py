"""Joining drafter findings with verifier verdicts into scoring records (SPEC section 4).

A drafter (`{"findings": [...]}`) proposes findings, a verifier (`{"verdicts": [...]}`)
judges them; both are validated strictly and completely (`verdicts`), then paired by file
and line. Nothing is dropped silently: a finding that got no verdict and a verdict that
matches no finding are both returned, with where they are, for the caller to report.
"""

from __future__ import annotations

from typing import Any

import msgspec

from review_quorum.errors import RecordProblem, RecordsError
from review_quorum.scoring.confidence.verdicts import (
    DRAFTER_FIELDS,
    VERIFIER_FIELDS,
    Entry,
    collect_entries,
)


class Unmatched(msgspec.Struct, frozen=True):
    """A drafter finding with no verdict, or a verdict with no finding, and where it is."""

    source: str
    pointer: str
    file: str
    line: int

    def describe(self) -> str:
        return f"{self.source}:{self.pointer} ({self.file}:{self.line})"


class Joined(msgspec.Struct, frozen=True):
    """Scoring records built from matched pairs (in drafter order), and what did not match."""

    records: tuple[dict[str, Any], ...]
    unverified: tuple[Unmatched, ...]
    unmatched_verdicts: tuple[Unmatched, ...]


def join_verdicts(
    drafter: object, verifier: object, *, drafter_source: str, verifier_source: str
) -> Joined:
    """Pair each drafter finding with the verdict at the same file and line.

    Several findings on one line pair with that line's verdicts in order. Both documents
    are validated completely first (`RecordsError` lists every bad field of both).
    """
    problems: list[RecordProblem] = []
    findings = collect_entries(drafter, "findings", drafter_source, DRAFTER_FIELDS, problems)
    verdicts = collect_entries(verifier, "verdicts", verifier_source, VERIFIER_FIELDS, problems)
    if problems:
        raise RecordsError(problems)
    waiting: dict[tuple[str, int], list[Entry]] = {}
    for entry in reversed(verdicts):
        waiting.setdefault((entry[1]["file"], entry[1]["line"]), []).append(entry)
    records, unverified = [], []
    for index, finding in findings:
        queue = waiting.get((finding["file"], finding["line"]))
        if queue:
            records.append(_scoring_record(finding, queue.pop()[1]))
        else:
            pointer = f"/findings/{index}"
            unverified.append(Unmatched(drafter_source, pointer, finding["file"], finding["line"]))
    leftovers = sorted((entry for queue in waiting.values() for entry in queue), key=_index)
    unmatched = tuple(
        Unmatched(verifier_source, f"/verdicts/{index}", verdict["file"], verdict["line"])
        for index, verdict in leftovers
    )
    return Joined(tuple(records), tuple(unverified), unmatched)


def _index(entry: Entry) -> int:
    return entry[0]


def _scoring_record(finding: dict[str, Any], verdict: dict[str, Any]) -> dict[str, Any]:
    return {
        "file": finding["file"],
        "line": finding["line"],
        "category": finding["category"].value,
        "verdict": verdict["verdict"].value,
        "evidence_strength": verdict["evidence_strength"].value,
        "context_completeness": verdict["context_completeness"].value,
        "drafter_severity": finding["severity"].value,
        "verifier_severity": verdict["severity"].value,
        "in_diff": finding["in_diff"],
        "in_changed_code": verdict["in_changed_code"],
        "issue": finding["issue"],
        "details": finding.get("details", ""),
        "verifier_issue": verdict.get("issue", ""),
        "verifier_details": verdict.get("details", ""),
    }
