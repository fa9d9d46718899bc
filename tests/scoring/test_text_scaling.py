"""Text matching costs each finding without a line its own tokens, whatever its cluster.

Near-identical findings without a line all join a few clusters that grow to thousands of
members. Counted in the work that grew with a cluster's size (a text's tokens looked up,
a text's vector computed), not in wall time, so the check does not depend on the machine:
four times the findings must cost at most five times the work.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import pytest

from review_quorum import Evidence, NormalizedFinding, Severity, compute_consensus
from review_quorum.scoring.text import Corpus

BOTS = ["bandit", "semgrep", "codeql", "coderabbit", "copilot", "sourcery", "gemini"]
PHRASES = ["possible", "potential", "detected", "unsafe", "risk of"]


def near_identical(count: int) -> list[NormalizedFinding]:
    """One SQL injection, worded a few ways, reported `count` times without a line."""
    rng = random.Random(count)
    return [
        NormalizedFinding(
            bot=rng.choice(BOTS),
            finding_id=f"f{number}",
            severity=Severity.HIGH,
            category="security",
            title=" ".join([rng.choice(PHRASES), *rng.sample(["sql", "injection", "query"], 2)]),
            evidence=Evidence(file="app.py"),
        )
        for number in range(count)
    ]


T = TypeVar("T")


def text_work(count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """The number of groups, and of token look-ups plus vectors made, for `count` findings."""
    calls = [0]

    def counted(method: Callable[[Corpus, str], T]) -> Callable[[Corpus, str], T]:
        def wrapper(self: Corpus, text: str) -> T:
            calls[0] += 1
            return method(self, text)

        return wrapper

    with monkeypatch.context() as patch:
        patch.setattr(Corpus, "tokens", counted(Corpus.tokens))
        patch.setattr(Corpus, "vector", counted(Corpus.vector))
        groups = len(compute_consensus(near_identical(count), model="reliability"))
    return groups, calls[0]


def test_near_identical_findings_without_a_line_cost_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small_groups, small = text_work(500, monkeypatch)
    large_groups, large = text_work(2000, monkeypatch)
    assert small_groups < 20 and large_groups < 20  # few clusters, each of many members
    assert large <= 5 * small, (small, large)
