"""Margins with their uncertainty, for bench/judgement.py (not a test).

A corpus's F1 rests on a few hundred programs or pull requests; a margin of 0.02 over the
best single tool may be luck. Each policy's score is split into per-unit counts (kept,
true, real found, real), so a bootstrap can resample the units with replacement: the
interval of the difference between two policies' F1 over 1,000 resamples, both policies
scored on the same resampled units each time (a paired bootstrap). An interval that spans
zero is "not significant".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec

from review_quorum.labels import Run
from review_quorum.labels.lines import LineLabels
from review_quorum.labels.review_bots import ReviewBotsLabels
from review_quorum.model import NormalizedFinding

RESAMPLES = 1000
LEVEL = 0.95
Counts = tuple[int, int, int, int]  # kept, true, real found, real
Items = Sequence[tuple[Run, Sequence[NormalizedFinding]]]
Splitter = Callable[[Items], dict[str, Counts]]


class Interval(msgspec.Struct, frozen=True):
    """The F1 difference of two policies over all units, and its bootstrap interval."""

    difference: float
    low: float
    high: float

    @property
    def significant(self) -> bool:
        return not self.low <= 0.0 <= self.high

    def __str__(self) -> str:
        verdict = "" if self.significant else ", not significant"
        return f"{self.difference:+.3f} [{self.low:+.3f}, {self.high:+.3f}{verdict}]"


def f1(counts: Counts) -> float:
    kept, true, found, wanted = counts
    precision = true / kept if kept else 0.0
    recall = found / wanted if wanted else 0.0
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


def total(counts: Iterable[Counts]) -> Counts:
    kept = true = found = wanted = 0
    for a, b, c, d in counts:
        kept, true, found, wanted = kept + a, true + b, found + c, wanted + d
    return kept, true, found, wanted


def resamples(units: int, count: int = RESAMPLES, seed: int = 30) -> list[list[int]]:
    """`count` resamples of `units` unit indices, drawn with replacement; the same seed
    gives the same draws, so every comparison of a corpus uses the same resamples."""
    rng = random.Random(seed)
    return [rng.choices(range(units), k=units) for _ in range(count)]


def interval(
    first: Sequence[Counts], second: Sequence[Counts], draws: Sequence[Sequence[int]]
) -> Interval:
    """F1(first) - F1(second) over all units, and its percentile interval over `draws`."""
    differences = sorted(
        f1(total(first[i] for i in draw)) - f1(total(second[i] for i in draw)) for draw in draws
    )
    tail = (1.0 - LEVEL) / 2
    last = len(differences) - 1
    low = differences[round(tail * last)]
    high = differences[round((1.0 - tail) * last)]
    return Interval(f1(total(first)) - f1(total(second)), low, high)


def aligned(per_unit: Mapping[str, Counts], units: Sequence[str]) -> list[Counts]:
    return [per_unit.get(unit, (0, 0, 0, 0)) for unit in units]


def by_pull_request(labels: ReviewBotsLabels) -> tuple[list[str], Splitter]:
    """The pull requests of review-bots labels and a splitter of kept items into each one's
    counts (its core golden ids are its real issues)."""
    core: dict[str, int] = {}
    for golden in labels.core:
        pr = golden.rsplit(":", 1)[0]
        core[pr] = core.get(pr, 0) + 1
    units = sorted(set(labels.texts) | set(core))
    everything = len(labels.core)

    def split(items: Items) -> dict[str, Counts]:
        runs: dict[str, list[tuple[Run, Sequence[NormalizedFinding]]]] = {}
        for run, group in items:
            runs.setdefault(run.name, []).append((run, group))
        counts = {}
        for pr, kept in runs.items():
            metrics = labels.score(kept)
            counts[pr] = (
                metrics.kept,
                metrics.true,
                round(metrics.recall * everything),
                core.get(pr, 0),
            )
        return {pr: counts.get(pr, (0, 0, 0, wanted)) for pr, wanted in core.items()} | counts

    return units, split


def by_program(labels: LineLabels, programs: Iterable[str]) -> tuple[list[str], Splitter]:
    """The programs (files) of line labels and a splitter of kept items into each one's
    counts (its real lines are its real issues)."""
    files = {file: _one_file(labels, file) for file in sorted(set(programs) | set(labels.real))}
    units = sorted(files)

    def split(items: Items) -> dict[str, Counts]:
        groups: dict[str, list[tuple[Run, Sequence[NormalizedFinding]]]] = {}
        for run, group in items:
            for finding in group:
                if finding.evidence.line is not None:
                    groups.setdefault(finding.evidence.file, []).append((run, (finding,)))
        counts = {}
        for file, (own, wanted) in files.items():
            metrics = own.score(groups.get(file, []))
            counts[file] = (metrics.kept, metrics.true, round(metrics.recall * wanted), wanted)
        return counts

    return units, split


def _one_file(labels: LineLabels, file: str) -> tuple[LineLabels, int]:
    own = LineLabels(labels.name, ignore_rules=labels.ignore_rules)
    own.tolerance, own.any_category = labels.tolerance, labels.any_category
    segments = labels.real.get(file, [])
    own.add_ranges((file, start, end, category) for start, end, category in segments)
    return own, sum(end - start + 1 for start, end, _ in segments)
