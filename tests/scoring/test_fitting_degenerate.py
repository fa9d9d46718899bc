"""The fitted population prior on degenerate evidence (`scoring.fitting.beta_prior`).

The bots' (or rules') rates are taken to come from one Beta fitted by moments. On a few
sources that all agree (every bot 1 of 1 right, or all 0 of n, or every rate identical) the
moments say "mean 1 (or 0), no spread", and a prior of that mean at full strength made an
unknown bot exactly 1.0: certain, from one finding, and a profile `quorum review` refuses
(a reliability is strictly between 0 and 1). The prior is itself an estimate from a few
sources: it is fitted with one pseudo-source at the baseline an empty profile gives an
unknown bot, and is never worth more findings than it rests on.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from review_quorum import Profile
from review_quorum.cli import main
from review_quorum.history.rates import calibrate, rate
from review_quorum.history.stats import Stats, Tally
from review_quorum.scoring.fitting import beta_prior, estimate, moved, posteriors
from review_quorum.scoring.profile import SourceReliability, WitnessFamily
from review_quorum.scoring.witnesses import PRIOR, PSEUDO_COUNT

Counts = dict[tuple[str, str | None], tuple[int, int]]


def values(counts: Counts, base: Profile | None = None, **kw: object) -> dict[object, float]:
    found = estimate(counts, "test", base or Profile(), **kw)  # type: ignore[arg-type]
    return {s.key: s.reliability for s in found}


def strictly_inside(found: dict[object, float]) -> bool:
    return all(0.0 < value < 1.0 and math.isfinite(value) for value in found.values())


def test_bots_all_right_once_are_not_certain() -> None:
    counts: Counts = {(bot, None): (1, 1) for bot in ("alpha", "beta", "gamma")}
    found = values(counts)
    assert strictly_inside(found)
    # one right finding each is little evidence: nearer the baseline than certainty
    assert all(value < 0.8 for value in found.values())
    # and the profile it makes is one `quorum review --profile` reads
    profile = Profile(sources=estimate(counts, "test", Profile()))
    assert Profile.from_json(profile.to_json(), "learned").sources == profile.sources


def test_bots_never_right_are_not_certainly_wrong() -> None:
    counts: Counts = {(bot, None): (0, 5) for bot in ("alpha", "beta", "gamma")}
    found = values(counts)
    assert strictly_inside(found)
    assert all(value < PRIOR for value in found.values())  # still the evidence's direction


def test_the_population_prior_is_never_0_or_1_nor_stronger_than_its_evidence() -> None:
    for counts in ([(1, 1)] * 3, [(0, 5)] * 3, [(3, 6)] * 5, [(50, 100)], [(40, 40)] * 2):
        mean, strength = beta_prior(counts)
        total = sum(seen for _, seen in counts)
        assert 0.0 < mean < 1.0
        assert strength <= total + PSEUDO_COUNT  # the findings the prior rests on
    # all right: the mean is the pooled rate shrunk toward the baseline by the pseudo-source
    mean, strength = beta_prior([(1, 1)] * 3)
    assert mean == pytest.approx((3 + PSEUDO_COUNT * PRIOR) / (3 + PSEUDO_COUNT))
    assert strength == pytest.approx(3 + PSEUDO_COUNT)


def test_no_evidence_gives_the_prior_an_unknown_bot_has_without_a_profile() -> None:
    assert beta_prior([]) == pytest.approx((PRIOR, PSEUDO_COUNT))
    assert beta_prior([(0, 0), (0, 0)]) == beta_prior([])


def test_one_source_is_shrunk_toward_the_baseline_by_the_pseudo_source_only() -> None:
    mean, strength = beta_prior([(50, 100)])
    assert mean == pytest.approx((50 + PSEUDO_COUNT * PRIOR) / (100 + PSEUDO_COUNT))
    assert strength == pytest.approx(100 + PSEUDO_COUNT)
    found = values({("lone", None): (50, 100)})
    assert PRIOR < found["lone", None] < 0.5


def test_spread_rates_still_give_the_moments_strength() -> None:
    # four bots of 100 findings whose rates differ: the evidence, not the cap, decides
    counts = [(30, 100), (80, 100), (10, 100), (50, 100)]
    _, strength = beta_prior(counts)
    assert 2.0 < strength < 20.0


def test_bots_far_from_the_baseline_are_not_a_population_at_full_strength() -> None:
    # two bots right 90% and 95% of 100 times agree with each other, but the population
    # they are taken from also holds the baseline's pseudo-source (36%): that distance is
    # spread too, so a new bot is shrunk toward their mean by a few findings, not by 200
    mean, strength = beta_prior([(90, 100), (95, 100)])
    assert mean == pytest.approx((185 + PSEUDO_COUNT * PRIOR) / (200 + PSEUDO_COUNT))
    assert 5.0 < strength < 30.0


def test_identical_rates_are_shrunk_by_no_more_than_their_findings() -> None:
    counts: Counts = {(bot, None): (3, 6) for bot in ("a", "b", "c", "d", "e")}
    _, strength = beta_prior(list(counts.values()))
    assert strength == pytest.approx(30 + PSEUDO_COUNT)
    found = values(counts)
    assert all(0.45 < value < 0.5 for value in found.values())


def test_rules_and_families_all_right_are_not_certain() -> None:
    counts: Counts = {
        ("qodo", None): (2, 2),
        ("qodo-v2", None): (1, 1),  # a known family with qodo, all right
        ("semgrep", None): (3, 3),
        ("semgrep", "r1"): (2, 2),
        ("semgrep", "r2"): (1, 1),
    }
    found = values(counts)
    assert strictly_inside(found)
    named = (WitnessFamily("pair", ("semgrep", "qodo")),)
    assert strictly_inside(values(counts, families=named))
    for alpha, beta in posteriors(counts, Profile()).values():
        assert alpha > 0.0 and beta > 0.0


def test_extending_the_shipped_profile_with_all_right_outcomes_moves_toward_not_to_1() -> None:
    base = Profile(
        origin="shipped",
        sources=(SourceReliability("copilot", None, 0.3), SourceReliability("other", None, 0.4)),
    )
    counts: Counts = {("copilot", None): (2, 2), ("newbot", None): (1, 1)}
    learned = Profile(origin="history", sources=estimate(counts, "history", base))
    found = {s.key: s.reliability for s in learned.sources}
    assert 0.3 < found["copilot", None] < 1.0
    assert 0.0 < found["newbot", None] < 1.0
    lines = moved(learned, base)
    assert lines[0].startswith("copilot: 0.300 -> 0.") and "1.000" not in "".join(lines)


def test_history_outcomes_all_addressed_calibrate_below_1() -> None:
    stats = Stats(pull_requests=2)
    stats.bots = {
        "copilot": Tally(comments=2, findings=2, addressed=2),
        "kodus": Tally(comments=1, findings=1, addressed=1),
    }
    profile = calibrate(stats, origin="x", base=Profile())
    assert all(0.0 < s.reliability < 1.0 for s in profile.sources)
    rate(stats, base=Profile())
    for tally in stats.bots.values():
        assert tally.reliability is not None
        assert tally.reliability.high < 1.0 and tally.reliability.estimate < 1.0


def test_a_huge_perfect_record_still_rounds_inside_0_and_1() -> None:
    # rounded to the profile's four decimals, 0.99999... must not become 1.0
    counts: Counts = {("sure", None): (10**7, 10**7), ("never", None): (0, 10**7)}
    found = values(counts)
    assert found == {("never", None): 0.0001, ("sure", None): 0.9999}


def write_units(folder: Path, label: str) -> Path:
    units = folder / "units.jsonl"
    rows: list[dict[str, object]] = [
        {"judge": "j", "pr": "o/r#1", "repo": "r", "tool": tool, "unit": 0, "text": f"{tool} says",
         "label": label, "kind": "recorded", "golden": []}
        for tool in ("alpha", "beta", "gamma")
    ]  # fmt: skip
    units.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    (folder / "golden.jsonl").write_text("", encoding="utf-8")
    (folder / "reviewed.json").write_text(
        json.dumps({"j": {"o/r#1": ["alpha", "beta", "gamma"]}}), encoding="utf-8"
    )
    return units


@pytest.mark.parametrize("label", ["tp", "fp"])
def test_calibrate_on_unanimous_labels_writes_a_profile_review_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str
) -> None:
    units = write_units(tmp_path, label)
    out = tmp_path / "profile.json"
    assert main(["calibrate", str(units), "--judge", "j", "-o", str(out)]) == 0
    learned = [s for s in Profile.load(out).sources if s.bot in ("alpha", "beta", "gamma")]
    assert len(learned) == 3
    assert all(0.0 < s.reliability < 1.0 for s in learned)
    err = capsys.readouterr().err
    assert "alpha: new, " in err and "1.000" not in err and "0.000" not in err


@st.composite
def evidence(draw: st.DrawFn) -> Counts:
    bots = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=6, unique=True))
    counts: Counts = {}
    for bot in bots:
        seen = draw(st.integers(min_value=1, max_value=draw(st.sampled_from([3, 50, 10**6]))))
        counts[bot, None] = (draw(st.integers(min_value=0, max_value=seen)), seen)
        for rule in draw(st.lists(st.sampled_from("xyz"), max_size=2, unique=True)):
            rule_seen = draw(st.integers(min_value=1, max_value=seen))
            counts[bot, rule] = (draw(st.integers(min_value=0, max_value=rule_seen)), rule_seen)
    return counts


@settings(max_examples=examples(300))
@given(evidence(), st.booleans())
def test_every_fitted_reliability_is_finite_and_strictly_inside_0_and_1(
    counts: Counts, known: bool
) -> None:
    base = Profile(
        sources=(SourceReliability("a", None, 0.9999), SourceReliability("b", "x", 0.0001))
    )
    found = values(counts, base if known else Profile())
    assert strictly_inside(found)
    for alpha, beta in posteriors(counts, base if known else Profile()).values():
        assert math.isfinite(alpha) and math.isfinite(beta) and alpha > 0.0 and beta > 0.0
    mean, strength = beta_prior([value for key, value in counts.items() if key[1] is None])
    assert 0.0 < mean < 1.0 and math.isfinite(strength) and strength > 0.0
