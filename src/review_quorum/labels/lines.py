"""Generic line labels (JSONL): which lines of which files hold a real issue.

One object per line: ``{"file": "src/a.js", "line": 7, "real": true}``, or a range with
``"start_line"``/``"end_line"``, and optionally ``"category"``. Paths are compared with
findings' repository-relative paths. Scoring follows securibench-micro-js: a finding is
true when its region [line, end_line], widened by `TOLERANCE` lines each side, covers a
real line of the same file (and of the same category when the label names one, the
finding's category was stated by its tool and `any_category` is off; CASTLE-C250 widens
by 2 lines and counts a hit whatever the CWE). Precision is over the distinct spans of the
kept findings' members, recall over the real lines hit. Findings of ignored rules (glob
patterns over rule ids, e.g. known noise) are left out of scoring, not out of the input.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from review_quorum.errors import InputError
from review_quorum.labels.base import Kept, Metrics, Run, read_label_file
from review_quorum.model import NormalizedFinding

TOLERANCE = 1

Span = tuple[str, int, int]


@dataclass
class LineLabels:
    """Real (and known clean) lines per file, with their categories."""

    name: str
    own_findings = False
    real: dict[tuple[str, int], str] = field(default_factory=dict)  # (file, line) -> category
    ignore_rules: tuple[str, ...] = ()
    tolerance: int = TOLERANCE
    any_category: bool = False

    def runs(self, findings: Sequence[NormalizedFinding], bots_ran: int | None) -> list[Run]:
        return [Run("all", tuple(findings), bots_ran)]

    def ignored(self, finding: NormalizedFinding) -> bool:
        return any(fnmatch.fnmatchcase(finding.rule_id, rule) for rule in self.ignore_rules)

    def hits(self, finding: NormalizedFinding) -> set[tuple[str, int]]:
        evidence = finding.evidence
        if evidence.line is None:
            return set()
        end = evidence.end_line or evidence.line
        found = set()
        for line in range(evidence.line - self.tolerance, end + self.tolerance + 1):
            category = self.real.get((evidence.file, line))
            if category is not None and (self.any_category or _same_category(category, finding)):
                found.add((evidence.file, line))
        return found

    def truth(self, run: Run, finding: NormalizedFinding) -> bool | None:
        return None if self.ignored(finding) else bool(self.hits(finding))

    def score(self, kept: Kept) -> Metrics:
        spans: dict[Span, set[tuple[str, int]]] = {}
        for _, group in kept:
            for finding in group:
                line = finding.evidence.line
                if not self.ignored(finding) and line is not None:
                    span = (finding.evidence.file, line, finding.evidence.end_line or line)
                    spans.setdefault(span, set()).update(self.hits(finding))
        found = set().union(*spans.values()) if spans else set()
        true = sum(1 for hit in spans.values() if hit)
        return Metrics.of(len(spans), true, len(found), len(self.real))


def _same_category(label: str, finding: NormalizedFinding) -> bool:
    return not label or finding.category_certainty < 1.0 or finding.category == label


def load(
    path: Path,
    ignore_rules: Sequence[str] = (),
    *,
    tolerance: int = TOLERANCE,
    any_category: bool = False,
) -> LineLabels:
    """Read a labels JSONL file; a bad record is an `InputError` naming its line."""
    lines = read_label_file(path).data.splitlines()
    labels = LineLabels(str(path), ignore_rules=tuple(ignore_rules))
    labels.tolerance, labels.any_category = tolerance, any_category
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            _record(labels, raw, f"line {number}")
    return labels


def _record(labels: LineLabels, raw: bytes, where: str) -> None:
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise InputError(labels.name, where, f"invalid JSON: {err.msg}") from None
    if not isinstance(record, dict):
        raise InputError(labels.name, where, "expected a JSON object")
    file, real, category = record.get("file"), record.get("real"), record.get("category", "")
    if not isinstance(file, str) or not file:
        raise InputError(labels.name, where, "'file' must be a non-empty string")
    if not isinstance(real, bool):
        raise InputError(labels.name, where, "'real' must be true or false")
    if not isinstance(category, str):
        raise InputError(labels.name, where, "'category' must be a string")
    start = record.get("start_line", record.get("line"))
    end = record.get("end_line", start)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in (start, end)):
        raise InputError(labels.name, where, "'line' (or 'start_line'/'end_line') must be >= 1")
    assert isinstance(start, int) and isinstance(end, int)
    if real:
        for line in range(start, max(start, end) + 1):
            labels.real[(file, line)] = category
