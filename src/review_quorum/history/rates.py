"""A reliability profile (shared contract 2) from the history's outcomes (`quorum calibrate`).

Each bot, and each rule id of a bot, becomes a source whose reliability is estimated from
its outcomes by the estimator labels use (`scoring.fitting.estimate`, empirical Bayes):
addressed counts as real, dismissed as not, unknown outcomes count for nothing; each
bot's addressed rate is shrunk toward what the base profile (the shipped one, by default)
says of it, else toward its witness family's, else toward the mean bot, and each rule's
toward its bot's. ``true`` = addressed, ``false`` = dismissed, the counts it rests on.
Sources with fewer than `min_decided` decided findings are left out. Bots are listed best
first. Two bots whose findings almost always coincide (Jaccard at least `FAMILY_JACCARD`
over at least `FAMILY_MIN` shared clusters) are not independent witnesses and are named as
a family. The learned profile extends the base one (`over`).
"""

from __future__ import annotations

from review_quorum.history.stats import Reliability, Stats
from review_quorum.scoring.fitting import Key, beta_interval, estimate, extend, posteriors
from review_quorum.scoring.profile import Profile, WitnessFamily

FAMILY_JACCARD = 0.9
FAMILY_MIN = 10


def calibrate(
    stats: Stats, *, origin: str, min_decided: int = 1, base: Profile | None = None
) -> Profile:
    """The profile the outcomes in `stats` support, estimated over `base` (the shipped
    profile when not given) and not yet extended by it."""
    base = Profile.default() if base is None else base
    note = f"history: {origin}"
    families = _families(stats)
    counts = _counts(stats)
    sources = [s for s in estimate(counts, note, base, families) if s.true + s.false >= min_decided]
    bots = sorted((s for s in sources if s.rule is None), key=lambda s: (-s.reliability, s.bot))
    rules = [s for s in sources if s.rule is not None]
    summary = (
        f"{origin}: {stats.pull_requests} pull request(s), outcomes of synced bot comments,"
        " recorded runs and triage"
    )
    return Profile(origin=summary, sources=(*bots, *rules), families=families)


def rate(stats: Stats, base: Profile | None = None) -> None:
    """Give each bot and rule of `stats` with decided outcomes the reliability `calibrate`
    gives it (over `base`, the shipped profile when not given), with the 95% interval of
    its posterior."""
    base = Profile.default() if base is None else base
    for (bot, rule), (alpha, beta) in posteriors(_counts(stats), base, _families(stats)).items():
        low, high = beta_interval(alpha, beta)
        tally = stats.bots[bot] if rule is None else stats.rules[(bot, rule)]
        tally.reliability = Reliability(alpha / (alpha + beta), low, high)


def _families(stats: Stats) -> tuple[WitnessFamily, ...]:
    return tuple(
        WitnessFamily(f"{a.bot}-{a.other}", (a.bot, a.other))
        for a in stats.agreements
        if a.jaccard >= FAMILY_JACCARD and a.shared >= FAMILY_MIN
    )


def _counts(stats: Stats) -> dict[Key, tuple[int, int]]:
    """(addressed, decided) per bot and per rule of a bot with decided outcomes."""
    counts: dict[Key, tuple[int, int]] = {
        (bot, None): (t.addressed, t.decided) for bot, t in stats.bots.items() if t.decided
    }
    counts |= {
        (bot, rule): (t.addressed, t.decided)
        for (bot, rule), t in stats.rules.items()
        if rule and t.decided and (bot, None) in counts
    }
    return counts


def over(profile: Profile, base: Profile) -> Profile:
    """`profile` where it has a source or family, `base` for the rest."""
    return extend(profile, base)
