"""The title index finds exactly the earliest matching anchor, as a scan of every anchor does."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from naive_consensus import naive_consensus
from review_quorum import Evidence, NormalizedFinding, Severity
from review_quorum.scoring.agreement import compute_consensus, title_tokens  # the seed engine
from review_quorum.scoring.title_index import TitleIndex, jaccard, least_overlap

# 45 distinct tokens ("w00" ... "w44"): the adversarial small vocabulary.
VOCABULARY = [f"w{number:02d}" for number in range(45)]
THRESHOLDS = [0.5, 0.25, 1 / 3, 0.34, 0.5000001, 2 / 3, 0.75, 0.9, 1.0, 1.2, 0.05, 1e-9]


def scan(entries: list[tuple[int, str]], title: str, before: int, threshold: float) -> int:
    tokens = title_tokens(title)
    for group, anchor in entries:
        if group >= before:
            break
        if jaccard(tokens, title_tokens(anchor)) >= threshold:
            return group
    return before


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_least_overlap_is_the_edge_of_the_jaccard_comparison(threshold: float) -> None:
    for size in range(1, 25):
        for other in range(1, 25):
            left = frozenset(map(str, range(size)))
            passing = [
                shared
                for shared in range(min(size, other) + 1)
                if jaccard(left, frozenset(map(str, range(size - shared, size + other - shared))))
                >= threshold
            ]
            assert least_overlap(size, other, threshold) == (passing[0] if passing else None)


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_every_probe_returns_the_first_matching_anchor(threshold: float) -> None:
    rng = random.Random(int(threshold * 1000) + 11)
    index = TitleIndex(threshold, title_tokens)
    entries: list[tuple[int, str]] = []
    for group in range(0, 1500, 3):  # gaps between group numbers, as in a real bucket
        words = VOCABULARY[: rng.randint(9, 45)]
        title = " ".join(rng.sample(words, rng.randint(0, 9)))
        probe = " ".join(rng.choices(VOCABULARY, k=rng.randint(0, 12)))
        before = rng.choice([group, group // 2, 10**9])
        assert index.first_match(title_tokens(probe), before) == scan(
            entries, probe, before, threshold
        )
        index.add(group, title)
        entries.append((group, title))


def lineless(count: int, seed: int, words: int) -> list[NormalizedFinding]:
    """8 bots, one file and category, no lines, `words` words per title from 45."""
    rng = random.Random(seed)
    return [
        NormalizedFinding(
            bot=f"bot{rng.randint(1, 8)}",
            finding_id=str(index),
            severity=rng.choice(list(Severity)),
            category="security",
            title=" ".join(rng.sample(VOCABULARY, words)),
            evidence=Evidence(file="app.py", line=None if rng.random() < 0.9 else index % 50 + 1),
            confidence=rng.random(),
        )
        for index in range(count)
    ]


@pytest.mark.parametrize("threshold", [0.5, 0.3, 2 / 3, 0.25])
@pytest.mark.parametrize("words", [2, 5, 9])
def test_one_lineless_bucket_equals_the_naive_definition(words: int, threshold: float) -> None:
    items = lineless(1200, seed=words, words=words)
    assert compute_consensus(items, bots_ran=8, title_overlap=threshold) == naive_consensus(
        items, 8, 3, threshold
    )


@settings(max_examples=examples(60), deadline=None)
@given(
    titles=st.lists(
        st.lists(st.sampled_from(VOCABULARY[:12]), max_size=7).map(" ".join),
        min_size=13,
        max_size=120,
    ),
    threshold=st.sampled_from(THRESHOLDS) | st.floats(0.01, 1.0),
)
def test_dense_buckets_equal_the_naive_definition(titles: list[str], threshold: float) -> None:
    items = [
        NormalizedFinding(
            bot=f"bot{index % 5}",
            finding_id=str(index),
            severity=Severity.MEDIUM,
            category="security",
            title=title,
            evidence=Evidence(file="app.py", line=None if index % 4 else index % 20 + 1),
        )
        for index, title in enumerate(titles)
    ]
    assert compute_consensus(items, bots_ran=5, title_overlap=threshold) == naive_consensus(
        items, 5, 3, threshold
    )
