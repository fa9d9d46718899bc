"""The engines' peak memory per finding, on findings like bench/consensus.py's uniform
workload (every field drawn on its own; one in twenty without a line): what a million
findings cost on top of the findings themselves, measured with tracemalloc at 20,000."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from review_quorum import Evidence, NormalizedFinding, Severity, compute_consensus
from review_quorum._perf import paused_gc
from review_quorum.errors import QuorumWarning

BOTS = ["bandit", "ruff", "semgrep", "codeql", "coderabbit", "copilot", "sourcery", "gemini"]
CATEGORIES = ["security", "logic_error", "resource_leak", "error_handling", "performance"]
STEMS = ("cache", "token", "query", "socket", "parser")
SUFFIXES = ("", "_entry", "_key", "_value", "_buffer", "_handle", "_state", "_limit", "_field")
WORDS = [stem + suffix for stem in STEMS for suffix in SUFFIXES]  # 45 words, as the bench's


def uniform(count: int) -> list[NormalizedFinding]:
    rng = random.Random(count)
    files = [f"src/module_{number}.py" for number in range(count // 40)]
    return [
        NormalizedFinding(
            bot=rng.choice(BOTS),
            finding_id=f"f-{number}",
            severity=Severity(number % 4 + 1),
            category=rng.choice(CATEGORIES),
            title=" ".join(rng.sample(WORDS, 5)),
            evidence=Evidence(
                file=rng.choice(files), line=None if rng.random() < 0.05 else rng.randint(1, 2000)
            ),
            confidence=0.5,
        )
        for number in range(count)
    ]


@pytest.mark.parametrize(("model", "bound"), [("agreement", 500), ("reliability", 418)])
def test_engine_peak_per_finding(model: str, bound: int) -> None:
    """Bytes alive at the engine's peak beyond the findings, per finding, the collector
    paused as the command runs it (Python 3.11: 616 agreement, 487 reliability before;
    460 and 411 since). The agreement model builds each title's token set at its size and
    holds a group of one as its finding (each undone alone: 553, 523); the reliability
    model's clusters waiting for text matching share their sources' tuples, are made with
    their first member, and keep their first text's tokens as a tuple (454, 430, 425)."""
    findings = uniform(20_000)
    tracemalloc.start()
    try:
        with paused_gc():
            compute_consensus(findings, bots_ran=8, model=model)  # type: ignore[arg-type]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / len(findings) < bound


def test_agreement_groups_of_one_share_what_depends_on_their_bot() -> None:
    """The agreement model's consensus findings stay alive while the output is written: a
    group of one finding holds its bot's one `detected_by` tuple and agreement ratio, not
    a copy each (tracemalloc: 284 bytes a finding before, 214 since)."""
    consensus = compute_consensus(uniform(2_000), bots_ran=8, model="agreement")
    alone = [finding for finding in consensus if len(finding.members) == 1]
    assert len(alone) > 1_500
    assert len({id(finding.detected_by) for finding in alone}) == len(BOTS)
    assert len({id(finding.agreement_ratio) for finding in alone}) == len(BOTS)
    assert {finding.agreement_ratio for finding in alone} == {1 / 8}


def lineless(count: int) -> list[NormalizedFinding]:
    """bench/consensus.py's lineless workload: one file, one category, no lines, each
    title five words of 45: every finding is matched by text."""
    rng = random.Random(count)
    return [
        NormalizedFinding(
            bot=rng.choice(BOTS),
            finding_id=f"f-{number}",
            severity=Severity.HIGH,
            category="security",
            title=" ".join(rng.sample(WORDS, 5)),
            evidence=Evidence(file="app.py"),
            confidence=0.5,
        )
        for number in range(count)
    ]


def test_text_matching_peak_per_finding() -> None:
    """Bytes alive at the reliability engine's peak beyond the findings, per finding,
    when every finding is matched by text (Python 3.11: 978 before, 802 since): clusters
    made by text share their sources' tuples, keep their bots as a tuple, and the corpus
    keeps each text's tokens as a tuple (each undone alone: 858, 877, 842)."""
    findings = lineless(5_000)
    tracemalloc.start()
    try:
        with paused_gc(), pytest.warns(QuorumWarning, match="more than 32 clusters"):
            compute_consensus(findings, bots_ran=8, model="reliability")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / len(findings) < 830
