"""`paused_gc`, the switch only programs (the CLI, the benchmarks) use around their work;
library calls leave the process-wide collector as their caller set it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import TypeVar

import pytest

from review_quorum import MODELS, NormalizedFinding, compute_consensus, score_findings
from review_quorum._perf import paused_gc
from review_quorum.scoring import Model
from verified import verified

T = TypeVar("T")


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_restored_as_it_was_even_after_an_error(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        with pytest.raises(RuntimeError), paused_gc():
            assert not gc.isenabled()
            raise RuntimeError("boom")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def collector_state_while_consumed(items: list[T], seen: list[bool]) -> Iterator[T]:
    """`items`, noting whether the collector is on as the library takes each one."""
    for item in items:
        seen.append(gc.isenabled())
        yield item


@pytest.mark.parametrize("model", sorted(MODELS))
def test_consensus_leaves_the_collector_on_while_it_runs(model: Model) -> None:
    findings = [
        NormalizedFinding.create(
            bot=bot, finding_id="x", severity="high", category="security", title="t", file="a.py"
        )
        for bot in ("a", "b")
    ]
    seen: list[bool] = []
    assert gc.isenabled()
    compute_consensus(collector_state_while_consumed(findings, seen), bots_ran=2, model=model)
    assert seen == [True, True]


def test_scoring_leaves_the_collector_on_while_it_runs() -> None:
    seen: list[bool] = []
    assert gc.isenabled()
    score_findings(collector_state_while_consumed([verified(), verified(line=20)], seen))
    assert seen == [True, True]
