"""The consensus engine's rules, one by one (SPEC 3, seed 001)."""

from __future__ import annotations

import pytest

from review_quorum import (
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    QuorumWarning,
    Severity,
    bucket_for_score,
    must_address,
)
from review_quorum.scoring.agreement import (
    blocks,
    compute_consensus,  # the seed 001 engine
    title_tokens,
)


def finding(
    bot: str,
    line: int | None = 10,
    *,
    title: str = "SQL injection in query",
    file: str = "app/db.py",
    category: str = "security",
    severity: Severity = Severity.MEDIUM,
    confidence: float = 1.0,
) -> NormalizedFinding:
    return NormalizedFinding(
        bot, f"{bot}-{line}", severity, category, title, Evidence(file, line), confidence
    )


def groups(result: list) -> list[list[str]]:  # type: ignore[type-arg]
    return [[f"{m.bot}:{m.line}" for m in item.members] for item in result]


def test_lines_within_the_window_merge_and_titles_are_not_consulted() -> None:
    result = compute_consensus(
        [finding("a", 10), finding("b", 13, title="completely different words")]
    )
    assert groups(result) == [["a:10", "b:13"]]


def test_lines_beyond_the_window_are_distinct_even_with_equal_titles() -> None:
    result = compute_consensus([finding("a", 10), finding("b", 14)], bots_ran=2)
    assert sorted(groups(result)) == [["a:10"], ["b:14"]]


def test_file_and_category_are_hard_prerequisites() -> None:
    result = compute_consensus(
        [finding("a"), finding("b", file="app/other.py"), finding("c", category="style")]
    )
    assert len(result) == 3


def test_a_missing_line_falls_back_to_title_jaccard() -> None:
    items = [
        finding("a", 10, title="SQL injection in user query"),
        finding("b", None, title="Possible SQL injection through query"),
        finding("c", None, title="Weak hash"),
    ]
    assert sorted(groups(compute_consensus(items))) == [["a:10", "b:None"], ["c:None"]]


def test_title_tokens_drop_stopwords_short_tokens_and_leading_digits() -> None:
    tokens = title_tokens("The SQL-injection is at 2fast _private x ab naïve")
    assert tokens == {"sql", "injection", "_private"}


def test_findings_join_the_first_group_whose_anchor_matches() -> None:
    # c (line 12) is within 3 of both anchors (9 and 15): the older group wins.
    items = [finding("a", 9), finding("b", 15), finding("c", 12)]
    assert groups(compute_consensus(items, bots_ran=3))[0] == ["a:9", "c:12"]


def test_members_compare_with_the_anchor_only_not_with_each_other() -> None:
    items = [finding("a", 10), finding("b", 13), finding("c", 16)]
    assert sorted(groups(compute_consensus(items, bots_ran=3))) == [["a:10", "b:13"], ["c:16"]]


def test_group_fields_follow_the_tie_rules() -> None:
    items = [
        finding("b", 12, title="abcd", severity=Severity.HIGH, confidence=0.4),
        finding("a", 10, title="wxyz", severity=Severity.HIGH, confidence=2.0),
        finding("b", None, title="efgh", severity=Severity.LOW),
    ]
    [merged] = compute_consensus(items[:2], bots_ran=4)
    assert merged.detected_by == ("a", "b")
    assert merged.line == 10
    assert merged.title == "abcd"  # longest, first on ties
    assert merged.severity is Severity.HIGH
    assert merged.max_confidence == 1.0  # clamped
    assert merged.agreement_ratio == 0.5
    assert merged.consensus_score == 0.5
    assert merged.level is ConsensusLevel.NEEDS_VERIFICATION


def test_bots_ran_defaults_to_distinct_bots_and_is_at_least_one() -> None:
    [single] = compute_consensus([finding("a")])
    assert single.bots_ran == 1
    with pytest.warns(QuorumWarning):
        [zero] = compute_consensus([finding("a")], bots_ran=0)
    assert zero.bots_ran == 1


def test_explicit_bots_ran_below_bots_seen_warns_and_caps_agreement() -> None:
    with pytest.warns(QuorumWarning, match="bots_ran=1 is lower than the 2 distinct bots"):
        [merged] = compute_consensus([finding("a"), finding("b")], bots_ran=1)
    assert merged.agreement_ratio == 1.0


@pytest.mark.parametrize(
    ("score", "level"),
    [
        (1.0, ConsensusLevel.CONFIRMED),
        (0.66, ConsensusLevel.CONFIRMED),
        (0.6599, ConsensusLevel.NEEDS_VERIFICATION),
        (0.33, ConsensusLevel.NEEDS_VERIFICATION),
        (0.3299, ConsensusLevel.UNVERIFIED),
        (0.0, ConsensusLevel.UNVERIFIED),
    ],
)
def test_bucket_edges_are_inclusive(score: float, level: ConsensusLevel) -> None:
    assert bucket_for_score(score) is level
    # the engine's own groups land on the same side of each edge (one bot of one ran)
    (group,) = compute_consensus([finding("a", confidence=score)], bots_ran=1)
    assert (group.consensus_score, group.level) == (score, level)


def test_output_order_score_severity_file_line_with_lineless_last() -> None:
    items = [
        finding("a", None, file="b.py", title="x"),
        finding("a", 5, file="b.py"),
        finding("a", 50, file="a.py", severity=Severity.LOW),
        finding("a", 9, file="a.py"),
        finding("a", 30, file="a.py", confidence=0.5),
    ]
    result = compute_consensus(items, bots_ran=1)
    assert [(f.file, f.line) for f in result] == [
        ("a.py", 9),
        ("b.py", 5),
        ("b.py", None),
        ("a.py", 50),
        ("a.py", 30),
    ]


def test_must_address_keeps_levels_at_or_above_the_minimum_in_order() -> None:
    items = [finding("a", 1), finding("b", 1), finding("a", 40), finding("c", 80)]
    result = compute_consensus(items, bots_ran=3)
    assert [f.level for f in result] == [
        ConsensusLevel.CONFIRMED,
        ConsensusLevel.NEEDS_VERIFICATION,
        ConsensusLevel.NEEDS_VERIFICATION,
    ]
    assert must_address(result) == result[:1]
    assert must_address(result, min_level=ConsensusLevel.UNVERIFIED) == result


@pytest.mark.parametrize("model", ["agreement", "reliability"])
def test_the_gate_blocks_exactly_when_something_must_be_addressed(model: str) -> None:
    from review_quorum.scoring import compute_consensus as compute

    items = [finding("a", 1), finding("b", 1), finding("a", 40), finding("c", 80)]
    for bots_ran in (3, 4, 8):
        result = compute(items, bots_ran=bots_ran, model=model)  # type: ignore[arg-type]
        for level in ConsensusLevel:
            assert blocks(result, min_level=level) == bool(must_address(result, min_level=level))
    assert not blocks([])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"line_window": -1}, "line_window must be a non-negative integer"),
        ({"title_overlap": float("nan")}, "title_overlap must be a finite number"),
        ({"order": "random"}, "order must be 'input' or 'canonical'"),
        ({"bots_ran": -2}, "bots_ran must be a whole number from 0 to 10000, not -2"),
        ({"bots_ran": 10**23}, "bots_ran must be a whole number from 0 to 10000, not 1000"),
        ({"bots_ran": 10**5000}, "bots_ran must be a whole number from 0 to 10000, not a n"),
    ],
)
def test_bad_parameters_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compute_consensus([finding("a")], **kwargs)  # type: ignore[arg-type]


def test_empty_input_gives_no_findings() -> None:
    assert compute_consensus([]) == []
