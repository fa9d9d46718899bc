"""The engines' peak memory per finding, on findings like bench/consensus.py's uniform
workload (every field drawn on its own; one in twenty without a line): what a million
findings cost on top of the findings themselves, measured with tracemalloc at 20,000."""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest

from review_quorum import Evidence, NormalizedFinding, Severity, compute_consensus
from review_quorum._perf import paused_gc
from review_quorum.errors import QuorumWarning
from review_quorum.scoring import matching
from review_quorum.scoring.text import (
    CANDIDATES,
    CHECKED,
    HELD,
    Corpus,
    TextIndex,
    tokens_of_texts,
)

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
    when every finding is matched by text (Python 3.11, 20,000 findings: 209; 5,000
    findings took 978, then 802, before 2026-12-04's changes). Each undone alone: a set of
    posted tokens per cluster 370, the sums of clusters no probe can reach kept 366, a
    (position, finding) pair per finding 300, a dict of other sources per cluster made by
    text 296, a cache of each text's tokens 294, a summed cluster's tokens kept 224."""
    findings = lineless(20_000)
    tracemalloc.start()
    try:
        with paused_gc(), pytest.warns(QuorumWarning, match="more than 32 clusters"):
            compute_consensus(findings, bots_ran=8, model="reliability")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / len(findings) < 216


def test_text_matching_frees_its_index_and_clusters_as_they_are_placed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The peak is at the end of text matching: the file's index (its sums, postings and
    texts) is freed before its clusters are placed, and each cluster as its members'
    tuple is made (Python 3.11, 20,000 findings: 137 bytes a finding when placing starts
    of a 209 peak before it, and nothing more while placing; with the index kept, 188;
    with the clusters kept, 163 while placing)."""
    findings = lineless(20_000)
    place = matching._place
    placing: list[tuple[int, int, int]] = []  # at the start: current, peak before; peak

    def measured(*arguments: Any) -> None:
        current, before = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        place(*arguments)
        placing.append((current, before, tracemalloc.get_traced_memory()[1]))

    monkeypatch.setattr(matching, "_place", measured)
    tracemalloc.start()
    try:
        with paused_gc(), pytest.warns(QuorumWarning, match="more than 32 clusters"):
            compute_consensus(findings, bots_ran=8, model="reliability")
    finally:
        tracemalloc.stop()
    [(current, before, peak)] = placing  # one file, placed once
    assert current < 0.75 * before
    assert peak < current + 1_000 + 0.01 * current


def index_with(postings: dict[str, list[int]]) -> TextIndex:
    """A file's index whose clusters are posted as given, each of one text: its tokens."""
    tokens_of: dict[int, list[str]] = {}
    for token, posting in postings.items():
        for cluster in posting:
            tokens_of.setdefault(cluster, []).append(token)
    corpus = Corpus()
    corpus.count(list(tokens_of.values()))
    index = TextIndex(corpus, set(postings))
    index.postings = {token: list(posting) for token, posting in postings.items()}
    index.texts = {cluster: [tuple(tokens)] for cluster, tokens in tokens_of.items()}
    return index


def test_a_summed_cluster_keeps_its_members_number_not_their_tokens() -> None:
    index = index_with({"alpha": [0], "beta": [0]})
    members = [("alpha", "beta"), ("alpha", "gamma"), ("beta", "delta")]
    weigh = index.corpus.weigh
    index.add(0, members[1], weigh(members[1]))
    assert index.texts[0] == members[:2]  # no sum yet
    index.similarity(0, {"beta": 1.0})
    assert index.texts[0] == [(), ()]  # summed: the tokens are asked for no more
    index.add(0, members[2], weigh(members[2]))
    assert index.texts[0] == [(), (), ()]
    beta = sum(weigh(tokens).get("beta", 0.0) for tokens in members)
    assert index.similarity(0, {"beta": 1.0}) == pytest.approx(beta / 3)  # three members


@pytest.mark.parametrize("summed", [False, True])
def test_a_cluster_is_posted_once_under_each_probed_token_of_its_members(summed: bool) -> None:
    index = index_with({"alpha": [0], "beta": [0, 1]})
    index.probed.update(["gamma", "delta"])  # "epsilon" is probed by no text
    if summed:
        index.similarity(0, {"alpha": 1.0})
    for tokens in [("alpha", "gamma"), ("gamma", "epsilon"), ("beta", "delta", "gamma")]:
        index.add(0, tokens, index.corpus.weigh(tokens))
    assert index.postings == {
        "alpha": [0], "beta": [0, 1], "gamma": [0], "delta": [0],
    }  # fmt: skip
    assert len(index.texts[0]) == 4


def test_clusters_no_probe_can_reach_are_let_go() -> None:
    # "alpha" is posted under more than CHECKED clusters: only its latest CANDIDATES can
    # be candidates. Cluster 0 is also posted under "beta", short, so it may be passed
    # over, and cluster 5 under "gamma", of CHECKED clusters: they are kept.
    alpha = list(range(CHECKED + 1))
    index = index_with(
        {"alpha": alpha, "beta": [0], "gamma": [5, *range(1000, 1000 + CHECKED - 1)]}
    )
    for cluster in (0, 1, 5, CHECKED):
        index.similarity(cluster, {"alpha": 1.0})
    index.let_go()
    latest = set(alpha[-CANDIDATES:])
    assert set(index.texts) == {0, 5, *latest, *range(1000, 1000 + CHECKED - 1)}
    assert set(index.sums) == {0, 5, CHECKED}  # 1's, out of reach, is let go with it


@pytest.mark.parametrize(
    ("common", "held"),
    [
        (False, [HELD, 2 * HELD]),  # each under a word of its own: none is let go
        (True, [HELD, HELD, HELD]),  # all under one: all but the latest CANDIDATES are
    ],
)
def test_an_index_lets_go_as_the_clusters_it_holds_double(
    common: bool, held: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    let_go = TextIndex.let_go

    def counted(index: TextIndex) -> None:
        calls.append(len(index.texts))
        let_go(index)

    monkeypatch.setattr(TextIndex, "let_go", counted)
    index = index_with({})
    for cluster in range(3 * HELD):
        word = "alpha" if common else f"word{cluster}"
        index.reach(cluster, (word,), {word})
    assert calls == held
    assert len(index.texts) == (3 * CANDIDATES if common else 3 * HELD)


def test_the_same_texts_share_one_tuple_of_tokens() -> None:
    first, second, other = tokens_of_texts(["Unsafe query", "Unsafe query", "Unsafe quer"])
    assert first == ("unsafe", "query") and first is second
    assert other == ("unsafe", "quer") and other is not first


def test_text_matched_groups_of_one_bot_share_its_tuple() -> None:
    """A cluster text matching compared keeps its members' bots; where they are one bot
    (here, findings compared with and joined by none), its consensus finding holds that
    bot's one `detected_by` tuple, as groups of one do, not a tuple of its own."""
    with pytest.warns(QuorumWarning, match="more than 32 clusters"):
        consensus = compute_consensus(lineless(2_000), bots_ran=8, model="reliability")
    one_bot = [finding for finding in consensus if len(set(finding.detected_by)) == 1]
    assert len(one_bot) > 10
    assert len({id(finding.detected_by) for finding in one_bot}) == len(
        {finding.detected_by for finding in one_bot}
    )
