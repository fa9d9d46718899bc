"""Text matching costs each finding without a line its own tokens, whatever its cluster,
and compares it with a bounded number of clusters, whatever their number.

Near-identical findings without a line all join a few clusters that grow to thousands of
members. Counted in the work that grew with a cluster's size (a text tokenized, a text's
vector computed), not in wall time, so the check does not depend on the machine: four
times the findings must cost at most five times the work.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec
import pytest

from review_quorum import Evidence, NormalizedFinding, QuorumWarning, Severity, compute_consensus
from review_quorum.scoring import text
from review_quorum.scoring.text import CANDIDATES, CHECKED, Corpus, TextIndex, Vector

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
    """The number of groups, and of texts tokenized plus vectors made, for `count` findings."""
    calls = [0]

    def counted(function: Callable[..., T]) -> Callable[..., T]:
        def wrapper(*arguments: Any) -> T:
            calls[0] += 1
            return function(*arguments)

        return wrapper

    with monkeypatch.context() as patch:
        patch.setattr(text, "tokens", counted(text.tokens))
        patch.setattr(Corpus, "weigh", counted(Corpus.weigh))
        groups = len(compute_consensus(near_identical(count), model="reliability"))
    return groups, calls[0]


def test_near_identical_findings_without_a_line_cost_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small_groups, small = text_work(500, monkeypatch)
    large_groups, large = text_work(2000, monkeypatch)
    assert small_groups < 20 and large_groups < 20  # few clusters, each of many members
    assert small >= 500 and large <= 5 * small, (small, large)  # a vector per finding


# Line-less findings whose titles are five words drawn from 45: every word is common, so
# every cluster of the file shares a word with every new finding (issue 31).
VOCABULARY = [
    "buffer", "cache", "client", "config", "cookie", "cursor", "database", "decode", "encode",
    "exception", "field", "handler", "header", "index", "input", "iterator", "key", "lock",
    "logger", "memory", "method", "module", "network", "object", "parser", "password", "path",
    "payload", "pointer", "query", "record", "request", "response", "secret", "session",
    "socket", "stream", "string", "template", "thread", "timeout", "token", "user", "value",
    "variable",
]  # fmt: skip


def varied_titles(count: int) -> list[NormalizedFinding]:
    rng = random.Random(count)
    return [
        NormalizedFinding(
            bot=rng.choice(BOTS),
            finding_id=f"f{number}",
            severity=Severity.HIGH,
            category="security",
            title=" ".join(rng.sample(VOCABULARY, 5)),
            evidence=Evidence(file="app.py"),
        )
        for number in range(count)
    ]


def test_varied_titles_keep_matching_when_every_word_is_common() -> None:
    # 12,000 findings: each word is posted under hundreds of clusters. The default model
    # used to skip every word posted under more than 256, so past a few thousand findings
    # matching stopped (7,008 groups here, 5,997 of them alone, where the agreement model
    # makes 6,385): it now compares the clusters sharing the most of the finding's words.
    findings = varied_titles(12_000)
    with pytest.warns(QuorumWarning, match=r"findings without a line had more than 32"):
        reliability = compute_consensus(findings, model="reliability")
    agreement = compute_consensus(findings, model="agreement")
    alone = sum(len(finding.members) == 1 for finding in reliability)
    assert len(reliability) <= len(agreement), (len(reliability), len(agreement))
    assert alone < len(findings) // 100, alone


def compared(count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[int]]:
    """The groups, and the clusters each finding without a line was compared with."""
    sizes: list[int] = []
    candidates = TextIndex.candidates

    def counted(index: TextIndex, vector: Vector) -> list[int]:
        found = candidates(index, vector)
        sizes.append(len(found))
        return found

    with monkeypatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", QuorumWarning)
        patch.setattr(TextIndex, "candidates", counted)
        groups = len(compute_consensus(varied_titles(count), model="reliability"))
    return groups, sizes


def test_varied_titles_cost_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    small_groups, small = compared(1000, monkeypatch)
    large_groups, large = compared(4000, monkeypatch)
    assert max(large) == CANDIDATES  # the bound: never more clusters compared
    assert sum(large) <= 5 * sum(small), (sum(small), sum(large))
    # and the findings still merge: a few members per group at both sizes
    assert small_groups < 1000 // 3 and large_groups < 4000 // 3, (small_groups, large_groups)


def index_of(postings: dict[str, list[int]]) -> TextIndex:
    """A file's index whose clusters are posted as given; rarer words have fewer."""
    corpus = Corpus()
    corpus.count([[token] for token, posting in postings.items() for _ in posting])
    index = TextIndex(corpus, set(postings))
    index.postings = {token: list(posting) for token, posting in postings.items()}
    return index


def test_all_clusters_sharing_a_word_are_compared_up_to_the_bound() -> None:
    index = index_of({"alpha": list(range(0, 40, 2)), "beta": list(range(1, 25, 2))})
    assert index.candidates({"alpha": 0.7, "beta": 0.7}) == list(range(0, 25)) + [
        26, 28, 30, 32, 34, 36, 38,
    ]  # fmt: skip
    assert index.bounded == 0


def test_past_the_bound_the_clusters_sharing_most_words_are_compared() -> None:
    # "alpha" is posted under clusters 0-99, "beta" under 10 and 95-99: of the latest 32
    # of each, the five sharing both words come first, then those sharing one, the rarer
    # word's first, each word's in cluster order (94, the 33rd, is left out).
    index = index_of({"alpha": list(range(100)), "beta": [10, 95, 96, 97, 98, 99]})
    found = index.candidates({"alpha": 0.7, "beta": 0.7})
    assert len(found) == CANDIDATES and found == sorted(found)
    assert {95, 96, 97, 98, 99} <= set(found) and 10 in found  # beta's, all of them
    assert set(found) - {10, 95, 96, 97, 98, 99} == set(range(68, 94))  # alpha's latest
    assert index.bounded == 1


def test_a_long_posting_is_bounded_even_when_it_is_all_there_is() -> None:
    index = index_of({"alpha": list(range(CANDIDATES + 1))})
    assert index.candidates({"alpha": 1.0}) == list(range(1, CANDIDATES + 1))
    assert index.bounded == 1


def test_no_warning_when_every_cluster_was_compared() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", QuorumWarning)
        groups = compute_consensus(near_identical(2000), model="reliability")
    assert len(groups) < 20


def lined(file: str, number: int, title: str) -> NormalizedFinding:
    """A lined finding of `file`, 100 lines after the one before (outside the window)."""
    return NormalizedFinding(
        bot="semgrep",
        finding_id=f"{file}-{number}",
        severity=Severity.HIGH,
        category="security",
        title=title,
        evidence=Evidence(file=file, line=1 + 100 * number),
    )


def lineless_in(file: str, title: str) -> NormalizedFinding:
    return NormalizedFinding(
        bot="copilot",
        finding_id=f"free-{file}",
        severity=Severity.HIGH,
        category="security",
        title=title,
        evidence=Evidence(file=file),
    )


def bound_files(counts: dict[str, int], first: dict[str, str]) -> list[NormalizedFinding]:
    """Each file's lined clusters "alpha caseN" (the first titled `first[file]` where
    given), then one finding without a line saying "alpha" in each file."""
    findings = [
        lined(
            file, number, first.get(file, "alpha case0") if number == 0 else f"alpha case{number}"
        )
        for file, count in counts.items()
        for number in range(count)
    ]
    return findings + [lineless_in(file, "alpha") for file in counts]


def test_the_warning_counts_the_findings_the_bound_may_have_matched_elsewhere() -> None:
    # Each file's "alpha" is posted under more than 32 lined clusters, so the finding
    # without a line is compared with the latest 32. In a.py the first cluster, left out,
    # says just "alpha": it would have been the match. In b.py none of those left out
    # would have matched. In d.py the postings are too many to check (more than CHECKED).
    findings = bound_files({"a.py": 34, "b.py": 34, "d.py": CHECKED + 2}, {"a.py": "alpha"})
    findings.append(lineless_in("c.py", "alpha"))  # alone in its file: no bound
    with pytest.warns(QuorumWarning) as caught:
        groups = compute_consensus(findings, model="reliability")
    assert [str(warning.message) for warning in caught] == [
        "2 of 4 findings without a line had more than 32 clusters of their file sharing their"
        " rarest words; each was compared with the 32 sharing the most of them, and a better"
        " match among the others may have been missed"
    ]
    # the bound decides the match all the same: a.py's finding stays alone
    alone = [group.members for group in groups if len(group.members) == 1]
    assert (lineless_in("a.py", "alpha"),) in alone


def test_no_warning_when_the_clusters_left_out_would_not_have_matched() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", QuorumWarning)
        groups = compute_consensus(bound_files({"b.py": 40}, {}), model="reliability")
    assert len(groups) == 41  # nothing matched: "alpha" weighs little beside "caseN"


def test_the_clusters_left_out_are_kept_only_when_few_enough_to_check() -> None:
    index = index_of({"alpha": list(range(CANDIDATES + 2))})
    assert index.candidates({"alpha": 1.0}) == list(range(2, CANDIDATES + 2))
    assert index.passed_over == [0, 1]
    index = index_of({"alpha": list(range(CHECKED - 1)), "beta": [0]})  # CHECKED postings
    found = index.candidates({"alpha": 0.7, "beta": 0.7})
    assert found[0] == 0 and len(found) == CANDIDATES  # beta's, the rarer word's, first
    assert index.passed_over == sorted(set(range(CHECKED - 1)).difference(found))
    index = index_of({"alpha": list(range(CHECKED)), "beta": [0]})
    index.candidates({"alpha": 0.7, "beta": 0.7})
    assert index.passed_over is None  # CHECKED + 1 postings: too many to check
    index = index_of({"alpha": list(range(CANDIDATES))})
    index.candidates({"alpha": 1.0})
    assert index.passed_over == []  # the bound did not apply


def test_no_warning_when_the_match_compared_is_better_than_any_left_out() -> None:
    # The first cluster, left out, says "alpha gamma" (gamma as common as alpha): it would
    # match "alpha", but less than the latest cluster, compared, which says just "alpha".
    findings = [lined("e.py", number, f"alpha gamma case{number}") for number in range(1, 33)]
    findings = [lined("e.py", 0, "alpha gamma"), *findings, lined("e.py", 33, "alpha")]
    findings.append(lineless_in("e.py", "alpha"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", QuorumWarning)
        groups = compute_consensus(findings, model="reliability")
    joined = [group.members for group in groups if len(group.members) == 2]
    assert joined == [(findings[33], findings[34])]


def test_a_cluster_walled_off_by_its_stated_category_costs_no_vector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ten lined clusters say "alpha beta" under a stated category other than the finding
    # without a line's: they can never be its match, so no vector of theirs is made.
    findings = [lined("f.py", number, f"alpha beta case{number}") for number in range(10)]
    findings = [msgspec.structs.replace(finding, category="logic_error") for finding in findings]
    findings.append(lineless_in("f.py", "alpha beta"))
    weighed: list[list[str]] = []
    weigh = Corpus.weigh

    def counted(corpus: Corpus, tokens: Sequence[str]) -> Vector:
        weighed.append(list(tokens))
        return weigh(corpus, tokens)

    monkeypatch.setattr(Corpus, "weigh", counted)
    groups = compute_consensus(findings, model="reliability")
    assert len(groups) == 11
    assert weighed == [["alpha", "beta"]]  # the finding's own vector only
