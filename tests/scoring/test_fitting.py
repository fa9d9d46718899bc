"""One estimator for labels and history outcomes (`scoring.fitting.estimate`): empirical
Bayes shrunk toward what the base profile knows, the source's family and its tool."""

from __future__ import annotations

import pytest

from review_quorum import Profile
from review_quorum.scoring.fitting import estimate, extend, moved
from review_quorum.scoring.profile import SourceReliability, WitnessFamily

# four bots with spread rates, so the fitted Beta has a finite strength
Counts = dict[tuple[str, str | None], tuple[int, int]]
POPULATION: Counts = {
    ("steady", None): (30, 100),
    ("sharp", None): (80, 100),
    ("noisy", None): (10, 100),
    ("middling", None): (50, 100),
}


def values(
    counts: dict[tuple[str, str | None], tuple[int, int]], base: Profile, **kw: object
) -> dict[tuple[str, str | None], float]:
    return {s.key: s.reliability for s in estimate(counts, "test", base, **kw)}  # type: ignore[arg-type]


def test_a_bot_seen_a_few_times_stays_near_the_mean_bot() -> None:
    found = values({**POPULATION, ("newbot", None): (2, 2)}, Profile())
    assert 0.45 < found["newbot", None] < 0.75  # 2 of 2, but little evidence
    assert found["sharp", None] == pytest.approx(0.8, abs=0.03)  # a hundred: its own rate


def test_a_bot_the_base_profile_knows_is_shrunk_toward_that_figure() -> None:
    base = Profile(sources=(SourceReliability("newbot", None, 0.2),))
    unknown = values({**POPULATION, ("newbot", None): (2, 2)}, Profile())["newbot", None]
    known = values({**POPULATION, ("newbot", None): (2, 2)}, base)["newbot", None]
    assert 0.2 < known < unknown


def test_a_bot_is_shrunk_toward_the_other_members_of_its_family() -> None:
    # qodo-v2 is a later qodo (a known family): few outcomes of its own
    counts: Counts = {**POPULATION, ("qodo", None): (90, 100), ("qodo-v2", None): (1, 2)}
    alone = values({**POPULATION, ("qodo-v2", None): (1, 2)}, Profile())["qodo-v2", None]
    with_family = values(counts, Profile())["qodo-v2", None]
    assert with_family > alone + 0.05
    # a family named by the caller (two history bots that always coincide) counts too
    named = (WitnessFamily("pair", ("steady", "newbot")),)
    mirror: Counts = {**POPULATION, ("newbot", None): (1, 2)}
    assert (
        values(mirror, Profile(), families=named)["newbot", None]
        < values(mirror, Profile())["newbot", None]
    )


def test_a_rule_is_shrunk_toward_its_bot_else_toward_the_base_figure_for_it() -> None:
    counts = {
        **POPULATION,
        ("sharp", "r1"): (1, 1),
        ("noisy", "r2"): (9, 10),
        ("noisy", "r3"): (0, 10),
    }
    found = values(counts, Profile())
    assert found["noisy", "r3"] < found["noisy", "r2"]
    base = Profile(sources=(SourceReliability("sharp", "r1", 0.1),))
    assert values(counts, base)["sharp", "r1"] < found["sharp", "r1"]


def test_a_learned_profile_extends_its_base_and_says_what_moved() -> None:
    base = Profile(
        origin="shipped",
        sources=(SourceReliability("sharp", None, 0.5), SourceReliability("other", None, 0.3)),
    )
    learned = Profile(origin="history", sources=estimate(POPULATION, "history", base))
    whole = extend(learned, base)
    assert [s.key for s in whole.sources] == [*(s.key for s in learned.sources), ("other", None)]
    lines = moved(learned, base)
    assert lines[0].startswith("sharp: 0.500 -> 0.")  # the largest move first
    assert lines[0].endswith(", 100 decided)")
    assert sum(line.endswith("new") or ": new, " in line for line in lines) == 3
    assert moved(learned, base, limit=2)[-1] == "... and 2 more"
    assert moved(base, base) == []
