"""The reliability model (SPEC 3b): matching by evidence, witnesses, probabilities."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from conftest import examples
from review_quorum import (
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Profile,
    Severity,
    SourceReliability,
    compute_consensus,
)
from review_quorum.errors import QuorumWarning
from review_quorum.scoring import agreement
from review_quorum.scoring.reliability import PRIOR_REAL, level_for_probability, logit

EMPTY = Profile()


def finding(
    bot: str,
    line: int | None,
    title: str = "issue",
    *,
    file: str = "app.py",
    end: int | None = None,
    category: str = "security",
    certainty: float = 1.0,
    rule: str = "",
    body: str = "",
) -> NormalizedFinding:
    return NormalizedFinding(
        bot=bot,
        finding_id=f"{bot}-{line}-{title}",
        severity=Severity.MEDIUM,
        category=category,
        title=title,
        evidence=Evidence(file=file, line=line, end_line=end),
        rule_id=rule,
        body=body,
        category_certainty=certainty,
    )


def profile(**reliabilities: float) -> Profile:
    sources = tuple(SourceReliability(bot, None, value) for bot, value in reliabilities.items())
    return Profile(origin="test", sources=sources)


def reliability(items: list[NormalizedFinding], prof: Profile = EMPTY, **kwargs: object):  # type: ignore[no-untyped-def]
    return compute_consensus(items, model="reliability", profile=prof, **kwargs)  # type: ignore[arg-type]


def sigmoid(value: float) -> float:
    return 1 / (1 + math.exp(-value))


def test_agreement_model_is_the_seed_engine() -> None:
    items = [finding("a", 3), finding("b", 5), finding("c", None, "issue")]
    assert compute_consensus(items, model="agreement") == agreement.compute_consensus(items)
    assert compute_consensus(items) == reliability(items, Profile.default())


def test_unknown_model_is_an_error() -> None:
    with pytest.raises(ValueError, match="model must be one of agreement, reliability"):
        compute_consensus([], model="majority")  # type: ignore[arg-type]


def test_source_to_sink_span_meets_the_sink() -> None:
    taint = finding("njsscan", 4, end=12)
    sink = finding("semgrep", 12)
    (merged,) = reliability([taint, sink], profile(njsscan=0.6, semgrep=0.7))
    assert merged.detected_by == ("njsscan", "semgrep")
    assert merged.line == 4
    expected = sigmoid(logit(0.6) + logit(0.7) - logit(PRIOR_REAL))
    assert merged.consensus_score == pytest.approx(expected)
    assert merged.level is ConsensusLevel.CONFIRMED
    assert [c.weight for c in merged.contributions] == pytest.approx(
        [logit(0.6) - logit(PRIOR_REAL), logit(0.7) - logit(PRIOR_REAL)]
    )


def test_a_lone_finding_scores_its_sources_reliability() -> None:
    (alone,) = reliability([finding("copilot", 9)], profile(copilot=0.3))
    assert alone.consensus_score == pytest.approx(0.3)
    assert alone.level is ConsensusLevel.UNVERIFIED
    assert alone.contributions[0].origin == "test"


def test_one_source_on_two_lines_is_two_issues() -> None:
    first, second = finding("ruff", 10, rule="E501"), finding("ruff", 12, rule="E501")
    assert len(reliability([first, second])) == 2


def test_a_bots_duplicate_counts_once() -> None:
    inline = finding("coderabbit", 7, "Null check missing")
    summary = finding("coderabbit", 7, "Null check missing on the user")
    (merged,) = reliability([inline, summary], profile(coderabbit=0.4))
    assert merged.consensus_score == pytest.approx(0.4)
    assert [c.counted for c in merged.contributions] == [True, False]


def test_known_families_count_as_one_witness() -> None:
    items = [finding("qodo", 3), finding("qodo-v2", 3)]
    (merged,) = reliability(items, profile(qodo=0.5, **{"qodo-v2": 0.6}))
    assert merged.consensus_score == pytest.approx(0.6)
    assert {c.family for c in merged.contributions} == {"qodo"}


def test_stated_categories_separate_and_guessed_ones_do_not() -> None:
    style = finding("ruff", 5, category="maintainability", rule="E501")
    security = finding("semgrep", 5, rule="sqli")
    assert len(reliability([style, security])) == 2
    guessed = finding("copilot", 5, category="maintainability", certainty=0.3)
    (merged,) = reliability([security, guessed])
    assert merged.category == "security"


def test_lineless_findings_match_by_text() -> None:
    items = [
        finding("augment", None, "Race: TotalDocs reads b.cache without holding cacheMu", file=""),
        finding("claude", None, "TotalDocs reads the cache map without cacheMu lock", file=""),
        finding("devin", None, "Migration drops the index before copying rows", file=""),
    ]
    clusters = reliability(items, profile(augment=0.4, claude=0.4, devin=0.4))
    assert sorted(c.detected_by for c in clusters) == [("augment", "claude"), ("devin",)]


def test_levels_are_probability_thresholds() -> None:
    assert level_for_probability(0.8) is ConsensusLevel.CONFIRMED
    assert level_for_probability(0.79) is ConsensusLevel.NEEDS_VERIFICATION
    assert level_for_probability(0.5) is ConsensusLevel.NEEDS_VERIFICATION
    assert level_for_probability(0.49) is ConsensusLevel.UNVERIFIED


def test_label_free_estimates_name_their_origin() -> None:
    items = [finding("a", 3), finding("b", 3), finding("a", 40, rule="x")]
    by_line = {c.line: c for c in reliability(items)}
    assert by_line[3].contributions[0].origin == "agreement in this input (1/1 shared)"
    assert by_line[3].consensus_score > by_line[40].consensus_score


BOTS = ["bandit", "ruff", "semgrep", "coderabbit", "copilot"]
WORDS = ["sql", "injection", "query", "cache", "lock", "race", "leak", "file", "handle"]
findings = st.builds(
    lambda bot, file, line, end, words, category, certainty: finding(
        bot,
        line,
        " ".join(words) or "x",
        file=file,
        end=None if line is None else line + end,
        category=category,
        certainty=certainty,
    ),
    bot=st.sampled_from(BOTS),
    file=st.sampled_from(["a.py", "b.py", ""]),
    line=st.none() | st.integers(1, 30),
    end=st.integers(0, 4),
    words=st.lists(st.sampled_from(WORDS), max_size=5),
    category=st.sampled_from(["security", "logic_error"]),
    certainty=st.sampled_from([1.0, 0.5]),
)


@settings(max_examples=examples(200), deadline=None)
@given(items=st.lists(findings, max_size=30), seed=st.integers(0, 2**32))
def test_canonical_order_does_not_depend_on_input_order(items, seed):  # type: ignore[no-untyped-def]
    shuffled = list(items)
    random.Random(seed).shuffle(shuffled)
    first = reliability(items, order="canonical")
    second = reliability(shuffled, order="canonical")
    assert first == second


@settings(max_examples=examples(200), deadline=None)
@given(items=st.lists(findings, max_size=30))
def test_every_finding_lands_in_exactly_one_cluster(items):  # type: ignore[no-untyped-def]
    clusters = reliability(items)
    members = [id(member) for cluster in clusters for member in cluster.members]
    assert sorted(members) == sorted(id(item) for item in items)
    assert all(0 < cluster.consensus_score < 1 for cluster in clusters)


def test_stated_cwes_that_share_nothing_are_different_issues() -> None:
    xss = replace(finding("njsscan", 4, end=8, rule="express_xss"), cwes=(79,))
    random_number = replace(finding("njsscan", 6, rule="insecure_random"), cwes=(327,))
    sink = replace(finding("semgrep", 8, rule="direct-write"), cwes=(79, 116))
    untagged = finding("eslint", 6, rule="object-injection")
    clusters = reliability([xss, random_number, sink, untagged])
    assert sorted(len(c.members) for c in clusters) == [1, 3]


def test_a_witness_less_reliable_than_the_prior_adds_nothing() -> None:
    items = [finding("semgrep", 3), finding("eslint", 3)]
    (merged,) = reliability(items, profile(semgrep=0.8, eslint=0.05))
    assert merged.consensus_score == pytest.approx(0.8)
    assert [c.weight for c in merged.contributions] == pytest.approx(
        [logit(0.8) - logit(PRIOR_REAL), 0.0]
    )


def test_a_rule_without_an_entry_starts_from_its_bots_entry() -> None:
    # another tool reports security issues elsewhere, so this lone one could have been
    # corroborated: it is evidence
    items = [finding("semgrep", 3, rule="new-rule"), finding("bandit", 40, file="b.py")]
    alone = next(c for c in reliability(items, profile(semgrep=0.9)) if c.file == "app.py")
    # one lone finding (0.36) shrunk by four pseudo-findings toward the bot's 0.9
    assert alone.consensus_score == pytest.approx((0.36 + 4 * 0.9) / 5)


def test_an_unknown_bot_starts_from_the_profiles_exact_mean() -> None:
    # Summed one by one these four figures make 1.9, summed exactly 1.9000000000000001;
    # Python 3.12 changed what sum() returns here, so a plain sum would score this
    # finding differently on different Pythons.
    figures = {"a": 0.4, "b": 0.3, "c": 0.8, "d": 0.4}
    items = [finding("newbot", 3), finding("otherbot", 40, file="b.py")]
    alone = next(c for c in reliability(items, profile(**figures)) if c.file == "app.py")
    mean = float(sum(map(Fraction, figures.values()))) / len(figures)
    # one lone finding (0.36) shrunk by four pseudo-findings toward that mean
    assert alone.contributions[0].reliability == (0.36 + 4 * mean) / 5


def test_the_generic_stated_category_never_walls_a_finding_off() -> None:
    # "other" says nothing about the kind of issue: stated, it still joins a cluster whose
    # tool stated a specific category on the same line, which another specific one does not.
    items = [finding("a", 3), finding("b", 3, category="other"), finding("c", 3, category="logic")]
    groups = reliability(items)
    assert [sorted(group.detected_by) for group in groups] in (
        [["a", "b"], ["c"]],
        [["c"], ["a", "b"]],
    )


@pytest.mark.parametrize(
    ("stated", "expected"),
    [("", "security"), ("logic", "logic")],
)
def test_a_cluster_takes_its_first_stated_category_unless_it_is_empty(
    stated: str, expected: str
) -> None:
    guessed = finding("a", 3, certainty=0.5)  # the anchor: its category is a guess
    (group,) = reliability([guessed, finding("b", 3, category=stated)])
    assert group.category == expected


@pytest.mark.parametrize(("confidence", "expected"), [(-0.5, 0.0), (0.25, 0.25), (1.5, 1.0)])
def test_a_clusters_confidence_and_agreement_stay_within_zero_and_one(
    confidence: float, expected: float
) -> None:
    items = [replace(finding(bot, 3), confidence=confidence) for bot in ("a", "b")]
    with pytest.warns(QuorumWarning, match="agreement is capped"):
        (group,) = reliability(items, bots_ran=1)
    assert (group.max_confidence, group.agreement_ratio) == (expected, 1.0)
