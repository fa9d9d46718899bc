"""Witnesses of the reliability model: what agreement and silence may mean, what a tool's
own statements rank, who is independent, and what is kept of tools nothing is known of."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from conftest import examples
from review_quorum import (
    ConsensusFinding,
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Profile,
    Severity,
    compute_consensus,
)
from review_quorum.scoring import witnesses
from review_quorum.scoring.families import ECHO_MIN

EMPTY = Profile()


def analyser(
    bot: str,
    line: int,
    rule: str,
    *,
    file: str = "app.py",
    cwes: tuple[int, ...] = (),
    category: str = "security",
    confidence: float = 1.0,
    severity: Severity = Severity.MEDIUM,
    title: str = "",
) -> NormalizedFinding:
    return NormalizedFinding(
        bot=bot,
        finding_id=f"{bot}-{rule}-{file}-{line}",
        severity=severity,
        category=category,
        title=title or f"{bot} says {rule}",
        evidence=Evidence(file=file, line=line),
        confidence=confidence,
        rule_id=rule,
        cwes=cwes,
    )


def run(items: list[NormalizedFinding], profile: Profile = EMPTY) -> list[ConsensusFinding]:
    return compute_consensus(items, model="reliability", profile=profile)


def kept(clusters: list[ConsensusFinding]) -> set[tuple[str, int | None]]:
    return {
        (c.file, c.line) for c in clusters if c.level.rank >= ConsensusLevel.NEEDS_VERIFICATION.rank
    }


def score_of(clusters: list[ConsensusFinding], file: str, line: int) -> float:
    return next(c.consensus_score for c in clusters if (c.file, c.line) == (file, line))


# Corroboration is evidence only where it was possible.


def test_a_kind_no_other_tool_reports_keeps_its_stated_confidence() -> None:
    # weak random numbers (CWE-330): only the first tool has such a rule
    weak_random = [
        analyser("pyscan", 10 * n, "weak-random", file=f"t{n}.py", cwes=(330,), confidence=0.9)
        for n in range(1, 9)
    ]
    sql = [analyser("sqlscan", 5, "sqli", file=f"s{n}.py", cwes=(89,)) for n in range(1, 4)]
    clusters = run(weak_random + sql)
    assert score_of(clusters, "t1.py", 10) == pytest.approx(0.9)
    assert {("t1.py", 10), ("t8.py", 80)} <= kept(clusters)
    (contribution,) = next(c for c in clusters if c.file == "t1.py").contributions
    assert "no other tool here reports this kind of issue" in contribution.origin


def test_lone_findings_count_against_a_source_where_another_tool_could_have_agreed() -> None:
    weak_random = [
        analyser("pyscan", 10 * n, "weak-random", file=f"t{n}.py", cwes=(330,), confidence=0.9)
        for n in range(1, 9)
    ]
    # the second tool reports weak random numbers too, elsewhere: silence here now means
    # it looked and did not agree
    other = [analyser("sqlscan", 5, "random", file="elsewhere.py", cwes=(330,))]
    clusters = run(weak_random + other)
    assert score_of(clusters, "t1.py", 10) < 0.5
    assert ("t1.py", 10) not in kept(clusters)


def _reviewer(bot: str, line: int) -> NormalizedFinding:
    return NormalizedFinding(
        bot=bot,
        finding_id=f"{bot}-{line}",
        severity=Severity.MEDIUM,
        category="security",
        title=f"{bot} flags line {line}",
        evidence=Evidence(file="app.py", line=line),
    )


def test_without_a_profile_a_bot_no_other_bot_agreed_with_stays_at_the_lone_rate() -> None:
    # The prior's pseudo-findings are findings nobody has corroborated yet: with no
    # profile, a bot whose findings another bot could have shared and never did is
    # reliable exactly as often as a lone finding is (witnesses.LONE), not pulled up
    # toward even odds.
    items = [_reviewer("alpha", line) for line in (10, 100, 200)] + [_reviewer("beta", 400)]
    clusters = run(items)
    assert score_of(clusters, "app.py", 10) == pytest.approx(witnesses.LONE)
    assert kept(clusters) == set()


def test_without_a_profile_half_its_findings_shared_does_not_keep_a_bots_lone_one() -> None:
    # alpha's finding at line 10 is shared with beta; its one at line 100 nobody else saw.
    # Half of two findings shared is weak evidence: the lone one stays below even odds,
    # while the shared one is kept.
    items = [_reviewer("alpha", 10), _reviewer("alpha", 100), _reviewer("beta", 10)]
    clusters = run(items)
    assert score_of(clusters, "app.py", 100) < 0.5
    assert kept(clusters) == {("app.py", 10)}


def test_agreement_within_one_family_is_no_corroboration() -> None:
    # Ruff's S rules are ports of Bandit's: their agreement says nothing new
    items = [
        analyser("bandit", 3, "B608", cwes=(89,)),
        analyser("ruff", 3, "S608"),
        analyser("semgrep", 40, "sqli", file="other.py", cwes=(89,)),
    ]
    merged = next(c for c in run(items) if c.file == "app.py")
    assert merged.detected_by == ("bandit", "ruff")
    assert [c.origin for c in merged.contributions if c.source == "bandit/B608"] == [
        "agreement in this input (0/1 shared)"
    ]


# A tool's stated confidence ranks its own rules.


def _two_rules(low: float, high: float) -> list[NormalizedFinding]:
    items = []
    for n in range(1, 6):
        items.append(analyser("pyscan", 3, "sql-a", file=f"a{n}.py", cwes=(89,), confidence=low))
        items.append(analyser("pyscan", 3, "sql-b", file=f"b{n}.py", cwes=(89,), confidence=high))
    return [*items, analyser("sqlscan", 90, "sqli", file="z.py", cwes=(89,))]


def test_a_rule_its_tool_is_less_sure_of_scores_lower() -> None:
    clusters = run(_two_rules(low=0.5, high=0.9))
    assert score_of(clusters, "a1.py", 3) < score_of(clusters, "b1.py", 3)


def test_a_tool_stating_one_confidence_for_everything_is_unaffected() -> None:
    same, unstated = run(_two_rules(0.7, 0.7)), run(_two_rules(1.0, 1.0))
    assert [c.consensus_score for c in same] == [c.consensus_score for c in unstated]


def test_a_profile_figure_is_kept_whatever_the_tool_states() -> None:
    profile = Profile.from_json(
        b'{"format": "review-quorum-profile", "version": 1, "sources": ['
        b'{"bot": "pyscan", "rule": "sql-a", "reliability": 0.8}]}',
        "profile.json",
    )
    clusters = run(_two_rules(low=0.5, high=0.9), profile)
    assert score_of(clusters, "a1.py", 3) == pytest.approx(0.8)


def _rules_with_the_same_agreement(
    count: int, shared: int, low: float, high: float
) -> list[NormalizedFinding]:
    """Two rules of one tool, `count` findings each, `shared` of them also reported by
    another tool: the same agreement counts, different stated confidences. The other tool
    reports the same kind of issue elsewhere, so corroboration was possible."""
    items = [analyser("sqlscan", 90, "sqli", file="z.py", cwes=(89,))]
    for rule, stated in (("sql-a", low), ("sql-b", high)):
        for n in range(count):
            file = f"{rule}-{n}.py"
            items.append(analyser("pyscan", 3, rule, file=file, cwes=(89,), confidence=stated))
            if n < shared:
                items.append(analyser("sqlscan", 3, "sqli", file=file, cwes=(89,)))
    return items


def _odds(probability: float) -> float:
    return probability / (1.0 - probability)


def _reliability(clusters: list[ConsensusFinding], source: str) -> float:
    (value,) = {
        c.reliability for cluster in clusters for c in cluster.contributions if c.source == source
    }
    return value


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 80),
    st.floats(0.0, 1.0),
    st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]),
    st.sampled_from([0.2, 0.6, 0.8, 1.0]),
)
def test_stated_confidence_sets_the_odds_ratio_of_two_rules_whatever_the_count(
    count: int, share: float, low: float, high: float
) -> None:
    shared = round(share * count)
    clusters = run(_rules_with_the_same_agreement(count, shared, low, high))
    a, b = _reliability(clusters, "pyscan/sql-a"), _reliability(clusters, "pyscan/sql-b")
    assert _odds(a) / _odds(b) == pytest.approx(low / high, rel=1e-9)


def test_a_rule_its_tool_marks_low_confidence_stays_low_with_many_findings() -> None:
    # 60 findings each, a third shared: agreement no longer washes the stated confidence out
    clusters = run(_rules_with_the_same_agreement(60, 20, low=0.5, high=1.0))
    low, high = _reliability(clusters, "pyscan/sql-a"), _reliability(clusters, "pyscan/sql-b")
    assert _odds(low) / _odds(high) == pytest.approx(0.5)
    assert ("sql-a-40.py", 3) not in kept(clusters)


# A floor: what is kept of a tool nothing is known of.


def test_a_lone_unknown_tool_is_ranked_by_its_own_levels_and_never_kept_empty() -> None:
    items = [
        analyser("newtool", 5, "r1", file=f"h{n}.py", severity=Severity.HIGH) for n in range(3)
    ] + [analyser("newtool", 5, "r2", file=f"l{n}.py", severity=Severity.LOW) for n in range(9)]
    clusters = run(items)
    assert kept(clusters) == {(f"h{n}.py", 5) for n in range(3)}
    assert score_of(clusters, "h0.py", 5) > score_of(clusters, "l0.py", 5)


def test_a_lone_tool_stating_one_level_keeps_everything() -> None:
    items = [analyser("newtool", 5, f"r{n % 3}", file=f"f{n}.py") for n in range(12)]
    assert len(kept(run(items))) == 12


# Witness families need evidence of dependence, not agreement.


def test_two_tools_that_always_fire_together_in_their_own_words_stay_independent() -> None:
    items = []
    for n in range(12):
        items.append(analyser("alpha", 7, "a-rule", file=f"f{n}.py", cwes=(89,)))
        items.append(analyser("beta", 8, "b-rule", file=f"f{n}.py", cwes=(89,)))
    clusters = run(items)
    assert len(clusters) == 12
    assert all(len({c.family for c in cluster.contributions}) == 2 for cluster in clusters)


def test_two_bots_that_echo_each_other_word_for_word_are_one_family() -> None:
    items = [analyser("other", 5, "x", file="elsewhere.py", cwes=(89,))]
    for n in range(ECHO_MIN + 1):
        items.append(analyser("alpha", 7, "same-rule", file=f"f{n}.py", cwes=(89,)))
        items.append(analyser("alpha-mirror", 7, "same-rule", file=f"f{n}.py", cwes=(89,)))
    clusters = run(items)
    assert all(len({c.family for c in cluster.contributions}) == 1 for cluster in clusters)


def test_versions_of_one_bot_are_one_family() -> None:
    items = [analyser("reviewer", 3, ""), analyser("reviewer-v3", 3, "")]
    (merged,) = run([replace(item, category_certainty=0.6) for item in items])
    assert len({c.family for c in merged.contributions}) == 1


ISSUES = st.lists(
    st.tuples(st.integers(0, 5), st.integers(1, 400)), min_size=1, max_size=30, unique=True
)


@settings(max_examples=examples(60), deadline=None)
@given(ISSUES, st.lists(st.sampled_from([0.5, 0.7, 0.9, 1.0]), min_size=30, max_size=30))
def test_two_perfect_independent_tools_keep_everything_either_keeps(
    issues: list[tuple[int, int]], confidences: list[float]
) -> None:
    first = [
        analyser("alpha", 10 * line, "a", file=f"f{file}.py", cwes=(89,), confidence=c)
        for (file, line), c in zip(issues, confidences, strict=False)
    ]
    second = [
        analyser("beta", 10 * line, "b", file=f"f{file}.py", cwes=(89,)) for file, line in issues
    ]
    together = kept(run(first + second))
    assert together >= kept(run(first)) | kept(run(second))
    assert together == {(f"f{file}.py", 10 * line) for file, line in issues}


@settings(max_examples=examples(40), deadline=None)
@given(ISSUES, st.integers(2, 4), st.booleans())
def test_copies_of_one_tool_keep_what_one_copy_keeps(
    issues: list[tuple[int, int]], copies: int, renamed: bool
) -> None:
    def tool(name: str) -> list[NormalizedFinding]:
        return [
            analyser(name, 10 * line, f"r{line % 3}", file=f"f{file}.py", cwes=(89,))
            for file, line in issues
        ]

    if renamed and len(issues) < ECHO_MIN:
        return  # too few echoes to tell copies from agreeing tools
    # another, independent tool beside them: a detected family never absorbs every bot
    other = [analyser("other", 5, "x", file="elsewhere.py", cwes=(89,))]
    names = [f"copy{n}" if renamed else "copy" for n in range(copies)]
    one = run(tool("copy") + other)
    many = run([finding for name in names for finding in tool(name)] + other)
    assert kept(many) == kept(one)
    assert sorted(round(c.consensus_score, 9) for c in many) == sorted(
        round(c.consensus_score, 9) for c in one
    )


def test_a_detected_family_never_absorbs_every_bot_of_the_run() -> None:
    items = []
    for n in range(ECHO_MIN + 1):
        items.append(analyser("alpha", 7, "same-rule", file=f"f{n}.py", cwes=(89,)))
        items.append(analyser("alpha-mirror", 7, "same-rule", file=f"f{n}.py", cwes=(89,)))
    clusters = run(items)
    assert all(len({c.family for c in cluster.contributions}) == 2 for cluster in clusters)


# Categories: a generic stated category never walls; where both state CWEs, CWEs decide.


def test_the_generic_category_does_not_wall_off_a_finding_on_the_same_line() -> None:
    items = [analyser("dlintish", 4, "DUO1", category="other"), analyser("scanner", 4, "sqli")]
    (merged,) = run(items)
    assert merged.category == "security" and merged.detected_by == ("dlintish", "scanner")


def test_shared_or_neighbouring_cwes_of_two_tools_join_whatever_their_categories() -> None:
    items = [
        analyser("cscan", 4, "overflow", category="security", cwes=(120,)),
        analyser("clint", 5, "bounds", category="logic_error", cwes=(788,)),
    ]
    (merged,) = run(items)
    assert merged.detected_by == ("clint", "cscan")


def test_specific_categories_without_cwes_still_separate() -> None:
    items = [analyser("one", 4, "x", category="performance"), analyser("two", 4, "y")]
    assert len(run(items)) == 2


@pytest.mark.parametrize(("distance", "joined"), [(3, True), (4, False)])
def test_a_finding_exactly_at_the_window_edge_joins(distance: int, joined: bool) -> None:
    items = [analyser("one", 10, "x"), analyser("two", 10 + distance, "y")]
    assert (len(run(items)) == 1) is joined


def test_a_source_another_tool_agreed_with_is_judged_by_agreement_whatever_the_cwes() -> None:
    # one tool's CWE-327 weak hash is the other's CWE-916 password hash: not the same
    # stated kind, but they met on a line, so corroboration was evidently possible
    items = [
        analyser("pyscan", 4, "weak-hash", cwes=(327,), confidence=0.9),
        analyser("other", 4, "password-hash", cwes=(916,)),
        analyser("pyscan", 9, "weak-hash", file="b.py", cwes=(327,), confidence=0.9),
    ]
    lone = next(c for c in run(items) if c.file == "b.py")
    assert lone.contributions[0].origin == "agreement in this input (1/2 shared)"


def test_a_tool_read_twice_keeps_the_confidence_it_states() -> None:
    # the same SARIF given twice: every finding repeats its source in its cluster
    once = [
        analyser("pyscan", 5, "weak-random", file=f"t{n}.py", cwes=(330,), confidence=0.9)
        for n in range(4)
    ]
    clusters = run(once + once)
    assert {round(c.consensus_score, 9) for c in clusters} == {0.9}
    assert {c.contributions[0].origin for c in clusters} == {
        "the confidence pyscan states, no other tool here reports this kind of issue"
    }


# Corroboration must be independent: findings that state only the use of a function
# (CWE-676-style audit rules, function-database scanners) corroborate the call, not its
# misuse.


def _calls(
    bot: str, rule: str, *, use_only: bool = False, cwes: tuple[int, ...] = (676,)
) -> list[NormalizedFinding]:
    """`bot` flags the same strcpy call in six files, and once more in a file of its own."""
    found = [analyser(bot, 7, rule, file=f"c{n}.c", cwes=cwes) for n in range(6)]
    found.append(analyser(bot, 30, rule, file=f"{bot}-only.c", cwes=cwes))
    return [replace(finding, use_only=use_only) for finding in found]


def _sources(cluster: ConsensusFinding) -> dict[str, tuple[float, bool]]:
    return {c.source: (c.weight, c.counted) for c in cluster.contributions}


def test_two_use_of_function_findings_are_one_witness_of_the_call() -> None:
    # a CWE-676 audit rule and a function-database scanner (it relates its rule to CWE-120
    # only as relevant) flag the same calls
    items = _calls("auditor", "insecure-strcpy") + _calls(
        "funcdb", "buffer/strcpy", use_only=True, cwes=(120,)
    )
    clusters = run(items)
    both = next(c for c in clusters if c.file == "c0.c")
    assert both.detected_by == ("auditor", "funcdb")
    # neither lifts the other's estimate: their agreement is no corroboration
    assert {c.origin.split(";")[0] for c in both.contributions} == {
        "agreement in this input (0/7 shared)"
    }
    # and only one of them counts: the cluster scores what its lead alone scores
    assert sum(counted for _, counted in _sources(both).values()) == 1
    assert both.consensus_score == pytest.approx(max(c.reliability for c in both.contributions))
    assert ("c0.c", 7) not in kept(clusters)


def test_the_same_tools_stating_the_misuse_corroborate_each_other() -> None:
    # the control: CWE-120 overflow rules, related to the weakness as the weakness itself
    items = _calls("auditor", "strcpy-overflow", cwes=(120,)) + _calls(
        "funcdb", "buffer/strcpy", cwes=(120,)
    )
    clusters = run(items)
    both = next(c for c in clusters if c.file == "c0.c")
    assert sum(counted for _, counted in _sources(both).values()) == 2
    assert ("c0.c", 7) in kept(clusters)


def test_a_finding_stating_the_misuse_still_corroborates_a_use_of_function_finding() -> None:
    items = [
        *_calls("auditor", "insecure-strcpy"),
        *_calls("funcdb", "buffer/strcpy", use_only=True, cwes=(120,)),
        *[analyser("checker", 7, "overflow", file=f"c{n}.c", cwes=(120,)) for n in range(6)],
    ]
    three = next(c for c in run(items) if c.file == "c0.c")
    weights = _sources(three)
    # the overflow checker and one of the two use-of-function witnesses count
    assert sum(counted for _, counted in weights.values()) == 2
    assert weights["checker/overflow"][1]
    origins = {c.source: c.origin for c in three.contributions}
    assert origins["auditor/insecure-strcpy"].startswith("agreement in this input (6/7 shared)")
    assert origins["funcdb/buffer/strcpy"].startswith("agreement in this input (6/7 shared)")


def test_a_use_of_function_finding_beside_its_own_familys_misuse_rule_is_one_witness() -> None:
    # one tool's two rules on one call, and another tool's audit rule: two witnesses at most
    items = [
        analyser("scanner", 7, "strcpy-audit", file="c.c", cwes=(676,)),
        analyser("scanner", 7, "strcpy-overflow", file="c.c", cwes=(120, 676)),
        analyser("auditor", 7, "insecure-strcpy", file="c.c", cwes=(676,)),
    ]
    (cluster,) = run(items)
    assert sum(counted for _, counted in _sources(cluster).values()) == 2
    # the other tool's audit rule is corroborated by the misuse rule; the first tool's own
    # audit rule is not, by its own tool nor by another audit rule
    origins = {c.source: c.origin for c in cluster.contributions}
    assert origins["auditor/insecure-strcpy"].startswith("agreement in this input (1/1 shared)")
    assert origins["scanner/strcpy-audit"].startswith("agreement in this input (0/1 shared)")
    (alone,) = run(items[:2])  # one tool's two rules: one witness
    assert sum(counted for _, counted in _sources(alone).values()) == 1


@settings(max_examples=40, deadline=None)
@given(ISSUES, st.integers(2, 4))
def test_more_tools_flagging_only_the_calls_never_keep_more(
    issues: list[tuple[int, int]], tools: int
) -> None:
    def audit(name: str) -> list[NormalizedFinding]:
        return [
            analyser(name, 10 * line, f"use-{name}", file=f"f{file}.c", cwes=(676,))
            for file, line in issues
        ]

    other = [analyser("checker", 5, "overflow", file="elsewhere.c", cwes=(676,))]
    names = ["alpha", "bravo", "charlie", "delta"][:tools]
    one = run(audit(names[0]) + other)
    many = run([finding for name in names for finding in audit(name)] + other)
    assert kept(many) <= kept(one)
    assert max(c.consensus_score for c in many) <= max(c.consensus_score for c in one) + 1e-12


def test_a_sources_kind_of_issue_is_its_last_findings() -> None:
    # One rule tagged two ways in one input: its kind is what its last finding states.
    # Another tool reports the first kind elsewhere; nobody reports the last one.
    first = analyser("scan", 3, "r1", category="security", confidence=0.4)
    last = analyser("scan", 30, "r1", category="style", confidence=0.4)
    other = analyser("lint", 60, "x9", category="security")
    estimates = witnesses.reliabilities(
        [first, last, other], [[first], [last], [other]], [("scan",), ("scan",), ("lint",)],
        {}, EMPTY,
    )  # fmt: skip
    assert estimates["scan", "r1"].origin.startswith("the confidence scan states")
    swapped = witnesses.reliabilities(
        [last, first, other], [[last], [first], [other]], [("scan",), ("scan",), ("lint",)],
        {}, EMPTY,
    )  # fmt: skip
    assert swapped["scan", "r1"].origin.startswith("agreement in this input")
