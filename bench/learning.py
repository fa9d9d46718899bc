"""Learning measured, for `bench/judgement.py --learn` (not a test).

What a team gains by calibrating on its own outcomes: a profile fitted (`quorum calibrate`'s
estimator) on a share of a corpus's pull requests or programs scores the rest. k-fold: the
units are shuffled once and dealt into k folds, k = 1 / share (10 folds for 10%, 4 for 25%,
2 for 50%); each fold in turn is the training part and the other folds are scored. Every
unit is thus scored k - 1 times, and each policy's counts are pooled per unit over the folds
before F1 and the bootstrap intervals (bench/margins.py) are taken. Beside the learned
profile, on the same held-out units: the shipped profile, an empty one (label-free), and
the best single tool.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import msgspec

from margins import Counts, Items, Splitter, f1, interval, resamples
from review_quorum import Profile
from review_quorum.evaluate import Options, kept_by_policy
from review_quorum.labels import Labels, Run
from review_quorum.scoring.fitting import fit

SHARES = (0.10, 0.25, 0.50)
KEPT = "reliability >= needs-verification"


class Corpus(msgspec.Struct, frozen=True):
    """What learning on a corpus needs: its units, the runs of any set of them, the labels
    to fit on, how to split kept items into units' counts, and its best single tool's
    kept items."""

    name: str
    units: list[str]
    runs_of: Callable[[Sequence[str]], list[Run]]
    labels: Labels
    split: Splitter
    best_tool: str
    best_tool_items: Items


def curve(corpus: Corpus, shares: Sequence[float] = SHARES, seed: int = 30) -> list[str]:
    """One line per share: the learned profile's pooled F1 and its margins."""
    order = list(corpus.units)
    random.Random(seed).shuffle(order)
    draws = resamples(len(order))
    tool = _counts(corpus.split(corpus.best_tool_items), order)
    lines = [
        f"learning: a profile fitted on a share of the {len(order)} units scores the rest "
        "(k-fold, k = 1/share; F1 pooled over folds; 95% bootstrap interval of the difference)"
    ]
    for share in shares:
        pooled = _pooled(corpus, order, round(1 / share))
        learned, shipped, empty = pooled["learned"], pooled["shipped"], pooled["empty"]
        k = round(1 / share)
        best = [
            (kept * (k - 1), true * (k - 1), found * (k - 1), wanted * (k - 1))
            for kept, true, found, wanted in tool
        ]
        lines.append(
            f"  fitted on {share:.0%} ({k} folds): learned F1 {_f1(learned):.3f}, shipped "
            f"{_f1(shipped):.3f}, empty {_f1(empty):.3f}, {corpus.best_tool} {_f1(best):.3f}; "
            f"learned - {corpus.best_tool} {interval(learned, best, draws)}, "
            f"- shipped {interval(learned, shipped, draws)}, "
            f"- empty {interval(learned, empty, draws)}"
        )
    return lines


def _pooled(corpus: Corpus, order: Sequence[str], k: int) -> dict[str, list[Counts]]:
    """Each policy's counts per unit (in `order`), summed over the k folds' held-out parts."""
    folds = [order[i::k] for i in range(k)]
    position = {unit: at for at, unit in enumerate(order)}
    pooled = {name: [(0, 0, 0, 0)] * len(order) for name in ("learned", "shipped", "empty")}
    for number, fold in enumerate(folds):
        held = set(fold)
        rest = [unit for unit in order if unit not in held]
        origin = f"labels: {corpus.name}, fold {number + 1} of {k}"
        profiles = {
            "learned": fit(corpus.labels, corpus.runs_of(fold), origin),
            "shipped": Profile.default(),
            "empty": Profile(),
        }
        runs = corpus.runs_of(rest)
        for name, profile in profiles.items():
            kept = kept_by_policy(runs, Options(profile=profile, models=("reliability",)))[KEPT]
            counts = pooled[name]
            for unit, (a, b, c, d) in corpus.split(kept).items():
                if unit in held or unit not in position:
                    continue
                at = position[unit]
                kept_, true, found, wanted = counts[at]
                counts[at] = (kept_ + a, true + b, found + c, wanted + d)
    return pooled


def _counts(per_unit: dict[str, Counts], order: Sequence[str]) -> list[Counts]:
    return [per_unit.get(unit, (0, 0, 0, 0)) for unit in order]


def _f1(counts: Sequence[Counts]) -> float:
    kept = sum(c[0] for c in counts)
    true = sum(c[1] for c in counts)
    found = sum(c[2] for c in counts)
    wanted = sum(c[3] for c in counts)
    return f1((kept, true, found, wanted))
