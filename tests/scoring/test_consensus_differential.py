"""The engine equals the naive quadratic definition, finding for finding (SPEC 3.9)."""

from __future__ import annotations

import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from naive_consensus import naive_consensus
from review_quorum import ConsensusFinding, Evidence, NormalizedFinding, Severity, scoring
from review_quorum.scoring.agreement import compute_consensus  # the seed 001 engine

WORDS = [
    "sql", "injection", "query", "user", "input", "unsafe", "hash", "md5", "weak", "leak",
    "file", "handle", "the", "of", "to", "is", "x", "ab", "_private", "2fast", "Query",
    "INJECTION", "sql-injection", "naïve", "café", "é_x", "use", "used", "password",
]  # fmt: skip

titles = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join) | st.text(max_size=12)
lines = st.none() | st.integers(min_value=1, max_value=25)
findings = st.builds(
    lambda bot, severity, file, category, title, line, confidence, index: NormalizedFinding(
        bot=bot,
        finding_id=f"id-{index}",
        severity=severity,
        category=category,
        title=title,
        evidence=Evidence(file=file, line=line),
        confidence=confidence,
    ),
    bot=st.sampled_from(["bandit", "ruff", "semgrep", "coderabbit", "copilot"]),
    severity=st.sampled_from(list(Severity)),
    file=st.sampled_from(["a.py", "b.py", ""]),
    category=st.sampled_from(["security", "style"]),
    title=titles,
    line=lines,
    confidence=st.sampled_from([0.0, 0.3, 0.5, 1.0]) | st.floats(-0.5, 1.5),
    index=st.integers(0, 10**6),
)
overlaps = st.sampled_from([0.5, 0.0, -0.1, 1.0, 1.2, 1 / 3, 0.34, 2 / 3]) | st.floats(0, 1)


def run_both(
    items: list[NormalizedFinding], bots_ran: int | None, window: int, overlap: float
) -> tuple[list[ConsensusFinding], list[ConsensusFinding]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = compute_consensus(
            items, bots_ran=bots_ran, line_window=window, title_overlap=overlap
        )
        slow = naive_consensus(items, bots_ran, window, overlap)
    return fast, slow


@settings(max_examples=examples(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(findings, max_size=40),
    bots_ran=st.none() | st.integers(0, 7),
    window=st.integers(0, 6),
    overlap=overlaps,
)
def test_engine_equals_naive_definition(
    items: list[NormalizedFinding], bots_ran: int | None, window: int, overlap: float
) -> None:
    fast, slow = run_both(items, bots_ran, window, overlap)
    assert fast == slow


@settings(max_examples=examples(300), deadline=None)
@given(items=st.lists(findings, max_size=25), seed=st.integers(0, 2**32))
def test_canonical_order_does_not_depend_on_input_order(items, seed):  # type: ignore[no-untyped-def]
    shuffled = list(items)
    random.Random(seed).shuffle(shuffled)
    first = compute_consensus(items, bots_ran=5, order="canonical")
    second = compute_consensus(shuffled, bots_ran=5, order="canonical")
    assert [(f.file, f.line, f.title, f.detected_by) for f in first] == [
        (f.file, f.line, f.title, f.detected_by) for f in second
    ]
    assert [sorted(map(repr, f.members)) for f in first] == [
        sorted(map(repr, f.members)) for f in second
    ]


@settings(max_examples=examples(300), deadline=None)
@given(items=st.lists(findings, max_size=40))
def test_every_finding_is_a_member_exactly_once(items):  # type: ignore[no-untyped-def]
    result = compute_consensus(items, bots_ran=5)
    members = [member for finding in result for member in finding.members]
    assert sorted(map(repr, members)) == sorted(map(repr, items))


def test_large_random_workload_equals_naive() -> None:
    """A few thousand findings in dense buckets: many candidates, ties and lineless ones."""
    rng = random.Random(20261130)
    items = []
    for index in range(3000):
        words = rng.sample(WORDS, rng.randint(1, 5))
        items.append(
            NormalizedFinding(
                bot=rng.choice(["a", "b", "c", "d", "e", "f"]),
                finding_id=str(index),
                severity=rng.choice(list(Severity)),
                category=rng.choice(["security", "logic_error"]),
                title=" ".join(words),
                evidence=Evidence(
                    file=rng.choice(["x.py", "y.py", "z.py", ""]),
                    line=None if rng.random() < 0.3 else rng.randint(1, 400),
                ),
                confidence=rng.random(),
            )
        )
    for overlap in (0.5, 0.25, 0.0):
        fast, slow = run_both(items, 8, 3, overlap)
        assert fast == slow


# --- boundary examples for the fast paths beside the comparison above -------------------
# The engine probes the lines around a finding when its bucket holds at least 2w+1 anchor
# lines and scans the anchors otherwise, inlined for ordinary title overlaps and in
# `_nearest_lined` when titles always match; each path is pinned at w and w+1 lines away.

FAR_ANCHORS = 12  # more anchor lines than any probe span below, far from line 100


def bucket_with(line: int, window: int, many_anchors: bool) -> list[NormalizedFinding]:
    def at(bot: str, where: int) -> NormalizedFinding:
        return NormalizedFinding(bot, f"{bot}-{where}", Severity.HIGH, "security",
                                 "SQL injection", Evidence("a.py", where))  # fmt: skip

    far = [at("far", 1000 + 50 * index) for index in range(FAR_ANCHORS if many_anchors else 0)]
    return [*far, at("anchor", 100), at("probe", line)]


@pytest.mark.parametrize("many_anchors", [False, True], ids=["scan", "probe"])
@pytest.mark.parametrize("overlap", [0.5, 0.0], ids=["titles-compared", "titles-always-match"])
@pytest.mark.parametrize("window", [0, 1, 3, 5])
@pytest.mark.parametrize(
    ("offset", "joins"), [(0, True), (1, True), (-1, True), (2, False), (-2, False)]
)
def test_the_line_window_is_inclusive_on_every_path(
    many_anchors: bool, overlap: float, window: int, offset: int, joins: bool
) -> None:
    # offsets 1 and -1 stand for +-window, 2 and -2 for +-(window + 1)
    distance = 0 if offset == 0 else (window if abs(offset) == 1 else window + 1)
    line = 100 + distance * (1 if offset > 0 else -1)
    items = bucket_with(line, window, many_anchors)
    result = compute_consensus(items, bots_ran=3, line_window=window, title_overlap=overlap)
    bots = [sorted(member.bot for member in found.members) for found in result]
    together = [group for group in bots if "anchor" in group]
    assert together == ([["anchor", "probe"]] if joins else [["anchor"]])
    assert result == naive_consensus(items, 3, window, overlap)


@pytest.mark.parametrize("window", [0, 1, 3])
@pytest.mark.parametrize(("distance", "joins"), [(0, True), (1, True), (2, False)])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_reliability_models_line_window_is_inclusive(
    window: int, distance: int, joins: bool, sign: int
) -> None:
    # distance 1 stands for the window itself, 2 for one line beyond it
    line = 100 + sign * (0 if distance == 0 else window + distance - 1)
    items = bucket_with(line, window, many_anchors=True)
    result = scoring.compute_consensus(items, bots_ran=3, line_window=window, model="reliability")
    bots = [sorted(member.bot for member in found.members) for found in result]
    assert [group for group in bots if "anchor" in group] == (
        [["anchor", "probe"]] if joins else [["anchor"]]
    )
