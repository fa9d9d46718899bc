"""bench/margins.py: the bootstrap intervals bench/judgement.py prints beside each margin,
and the split of a policy's score into per-program counts that it resamples."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from conftest import REPO_ROOT, shared_path
from review_quorum import labels
from review_quorum.evaluate import kept_by_policy
from review_quorum.ingest import read
from review_quorum.ingest.base import Source
from review_quorum.labels.lines import LineLabels


@pytest.fixture(autouse=True)
def _bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(REPO_ROOT / "bench")
    yield


def test_a_policy_against_itself_differs_by_nothing_and_not_significantly() -> None:
    from margins import interval, resamples

    counts = [(3, 2, 1, 2), (1, 0, 0, 1), (4, 4, 3, 3), (0, 0, 0, 2)]
    gap = interval(counts, counts, resamples(len(counts)))
    assert (gap.difference, gap.low, gap.high) == (0.0, 0.0, 0.0)
    assert not gap.significant
    assert str(gap) == "+0.000 [+0.000, +0.000, not significant]"


def test_a_policy_better_on_every_program_is_significantly_better() -> None:
    from margins import f1, interval, resamples, total

    better = [(2, 2, 2, 2)] * 40
    worse = [(4, 2, 1, 2)] * 40
    gap = interval(better, worse, resamples(40))
    assert gap.difference == pytest.approx(f1(total(better)) - f1(total(worse)))
    assert gap.significant and gap.low > 0
    assert "not significant" not in str(gap)


def test_a_margin_resting_on_one_program_is_not_significant() -> None:
    from margins import interval, resamples

    # level everywhere but one program of 30, where the first policy finds the only issue
    first = [(1, 1, 1, 1)] + [(1, 0, 0, 0)] * 29
    second = [(1, 0, 0, 1)] + [(1, 0, 0, 0)] * 29
    gap = interval(first, second, resamples(30))
    assert gap.difference > 0
    assert gap.low == 0.0 and not gap.significant


def test_the_interval_holds_the_middle_95_percent_of_the_resampled_differences() -> None:
    from margins import f1, interval, resamples, total

    first = [(n % 4 + 1, n % 3, n % 2, 1) for n in range(60)]
    second = [(n % 5 + 1, n % 2, (n + 1) % 2, 1) for n in range(60)]
    draws = resamples(60)
    gap = interval(first, second, draws)
    differences = [
        f1(total(first[i] for i in draw)) - f1(total(second[i] for i in draw)) for draw in draws
    ]
    below = sum(d < gap.low for d in differences) / len(differences)
    above = sum(d > gap.high for d in differences) / len(differences)
    assert 0.01 <= below <= 0.03 and 0.01 <= above <= 0.03


def test_the_per_program_counts_add_up_to_the_whole_corpus_score() -> None:
    from margins import aligned, by_program, total

    folder = shared_path("corpora", "castle-c250")
    findings = []
    for path in sorted((folder / "sarif").glob("*.sarif")):
        findings += read(Source(str(path), path.read_bytes())).findings
    label_set = labels.load(folder / "labels.jsonl", "jsonl", tolerance=2, any_category=True)
    assert isinstance(label_set, LineLabels)
    kept = kept_by_policy(label_set.runs(findings, 5))
    programs = [p.relative_to(folder).as_posix() for p in Path(folder, "datasets").rglob("*.c")]
    units, split = by_program(label_set, programs)
    assert len(units) == 250
    for name in ("source flawfinder", "union", "reliability >= needs-verification"):
        whole = label_set.score(kept[name])
        kept_, true, found, wanted = total(aligned(split(kept[name]), units))
        assert (kept_, true, wanted) == (whole.kept, whole.true, 262)
        assert found / wanted == pytest.approx(whole.recall)


def test_a_learning_curve_scores_only_held_out_programs_against_the_same_ones() -> None:
    from learning import Corpus, curve
    from margins import by_program

    folder = shared_path("corpora", "castle-c250")
    findings = []
    for path in sorted((folder / "sarif").glob("*.sarif")):
        findings += read(Source(str(path), path.read_bytes())).findings
    label_set = labels.load(folder / "labels.jsonl", "jsonl", tolerance=2, any_category=True)
    assert isinstance(label_set, LineLabels)
    programs = [p.relative_to(folder).as_posix() for p in Path(folder, "datasets").rglob("*.c")]
    units, split = by_program(label_set, programs)
    fitted_on: list[set[str]] = []

    def runs_of(chosen: Sequence[str]) -> list[labels.Run]:
        fitted_on.append(set(chosen))
        part = tuple(f for f in findings if f.evidence.file in set(chosen))
        return [labels.Run("part", part, 5)]

    flawfinder = [
        (run, (f,))
        for run in label_set.runs(findings, 5)
        for f in run.findings
        if f.bot == "flawfinder"
    ]
    corpus = Corpus("castle", units, runs_of, label_set, split, "flawfinder", flawfinder)
    header, line = curve(corpus, shares=(0.5,))
    assert "250 units" in header
    # two folds: each fits on one half and scores the other, never what it was fitted on
    assert len(fitted_on) == 4
    train, test = fitted_on[0], fitted_on[1]
    assert train.isdisjoint(test) and len(train | test) == 250
    assert fitted_on[2] == test and fitted_on[3] == train
    # the best tool's pooled F1 over the held-out halves is its whole-corpus F1
    assert "flawfinder 0.280" in line
    assert line.startswith("  fitted on 50% (2 folds): learned F1 0.")
