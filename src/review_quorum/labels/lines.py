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
Lines are held as ranges, never one by one: a range of a hundred billion lines costs what
a single line does.
"""

from __future__ import annotations

import fnmatch
import heapq
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from pathlib import Path

import msgspec
import orjson

from review_quorum.errors import InputError
from review_quorum.labels.base import Kept, Metrics, Run, read_label_file
from review_quorum.model import NormalizedFinding

TOLERANCE = 1

Span = tuple[str, int, int]
Segment = tuple[int, int, str]
"""Real lines `start` to `end` (inclusive) of one file, and their category."""
Hit = tuple[str, int, int]
"""Real lines a finding covers: file, first and last line."""


class LineLabels(msgspec.Struct):
    """Real (and known clean) lines per file, with their categories."""

    name: str
    own_findings = False
    real: dict[str, list[Segment]] = msgspec.field(default_factory=dict)  # disjoint, sorted by line
    ignore_rules: tuple[str, ...] = ()
    tolerance: int = TOLERANCE
    any_category: bool = False
    _starts: dict[str, list[int]] = msgspec.field(default_factory=dict)

    def add_ranges(self, ranges: Iterable[tuple[str, int, int, str]]) -> None:
        """Hold the real `ranges` (file, start, end, category); a later one overrides the
        category of the lines it shares with an earlier one."""
        by_file: dict[str, list[Segment]] = {}
        for file, start, end, category in ranges:
            by_file.setdefault(file, []).append((start, end, category))
        for file, segments in by_file.items():
            self.real[file] = _disjoint([*self.real.get(file, []), *segments])
            self._starts[file] = [start for start, _, _ in self.real[file]]

    def runs(self, findings: Sequence[NormalizedFinding], bots_ran: int | None) -> list[Run]:
        return [Run("all", tuple(findings), bots_ran)]

    def ignored(self, finding: NormalizedFinding) -> bool:
        return any(fnmatch.fnmatchcase(finding.rule_id, rule) for rule in self.ignore_rules)

    def hits(self, finding: NormalizedFinding) -> list[Hit]:
        evidence = finding.evidence
        segments = self.real.get(evidence.file)
        if evidence.line is None or not segments:
            return []
        low = evidence.line - self.tolerance
        high = (evidence.end_line or evidence.line) + self.tolerance
        index = max(bisect_right(self._starts[evidence.file], low) - 1, 0)
        found = []
        while index < len(segments) and segments[index][0] <= high:
            start, end, category = segments[index]
            if end >= low and (self.any_category or _same_category(category, finding)):
                found.append((evidence.file, max(start, low), min(end, high)))
            index += 1
        return found

    def truth(self, run: Run, finding: NormalizedFinding) -> bool | None:
        return None if self.ignored(finding) else bool(self.hits(finding))

    def score(self, kept: Kept) -> Metrics:
        spans: dict[Span, list[Hit]] = {}
        for _, group in kept:
            for finding in group:
                line = finding.evidence.line
                if not self.ignored(finding) and line is not None:
                    span = (finding.evidence.file, line, finding.evidence.end_line or line)
                    spans.setdefault(span, []).extend(self.hits(finding))
        found = _line_count(hit for hits in spans.values() for hit in hits)
        true = sum(1 for hit in spans.values() if hit)
        real = sum(end - start + 1 for segments in self.real.values() for start, end, _ in segments)
        return Metrics.of(len(spans), true, found, real)


def _same_category(label: str, finding: NormalizedFinding) -> bool:
    return not label or finding.category_certainty < 1.0 or finding.category == label


def _disjoint(ranges: Sequence[Segment]) -> list[Segment]:
    """`ranges` of one file as disjoint segments sorted by line: where ranges overlap, the
    latest one's category, as if each range's lines were written one by one in order.

    A sweep over the ranges' boundaries with a heap of the ranges open at each (latest
    first): O(n log n) in the number of ranges, whatever their lengths.
    """
    bounds = sorted({start for start, _, _ in ranges} | {end + 1 for _, end, _ in ranges})
    order = sorted(range(len(ranges)), key=lambda index: ranges[index][0])
    open_ranges: list[tuple[int, int]] = []  # (-index, end): the latest range on top
    segments: list[Segment] = []
    opened = 0
    for left, right in zip(bounds, bounds[1:], strict=False):
        while opened < len(order) and ranges[order[opened]][0] <= left:
            heapq.heappush(open_ranges, (-order[opened], ranges[order[opened]][1]))
            opened += 1
        while open_ranges and open_ranges[0][1] < left:
            heapq.heappop(open_ranges)  # ended: ranges below the top may wait until they surface
        if not open_ranges:
            continue
        category = ranges[-open_ranges[0][0]][2]
        if segments and segments[-1][1] == left - 1 and segments[-1][2] == category:
            segments[-1] = (segments[-1][0], right - 1, category)
        else:
            segments.append((left, right - 1, category))
    return segments


def _line_count(hits: Iterable[Hit]) -> int:
    """How many distinct lines `hits` cover together."""
    count, file, last = 0, None, 0
    for hit_file, start, end in sorted(hits):
        if hit_file != file:
            file, last = hit_file, start - 1
        if end > last:
            count += end - max(start, last + 1) + 1
            last = end
    return count


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
    ranges = []
    for number, raw in enumerate(lines, 1):
        if raw.strip():
            real = _record(labels.name, raw, f"line {number}")
            if real is not None:
                ranges.append(real)
    labels.add_ranges(ranges)
    return labels


def _record(name: str, raw: bytes, where: str) -> tuple[str, int, int, str] | None:
    """The real range one labels line gives (file, start, end, category), or None."""
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise InputError(name, where, f"invalid JSON: {err.msg}") from None
    if not isinstance(record, dict):
        raise InputError(name, where, "expected a JSON object")
    file, real, category = record.get("file"), record.get("real"), record.get("category", "")
    if not isinstance(file, str) or not file:
        raise InputError(name, where, "'file' must be a non-empty string")
    if not isinstance(real, bool):
        raise InputError(name, where, "'real' must be true or false")
    if not isinstance(category, str):
        raise InputError(name, where, "'category' must be a string")
    start = record.get("start_line", record.get("line"))
    end = record.get("end_line", start)
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in (start, end)):
        raise InputError(name, where, "'line' (or 'start_line'/'end_line') must be >= 1")
    assert isinstance(start, int) and isinstance(end, int)
    return (file, start, max(start, end), category) if real else None
