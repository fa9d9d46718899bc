"""A reliability profile (shared contract 2) from the history's outcome rates (`quorum calibrate`).

Each bot, and each rule id of a bot, becomes a source whose reliability is the smoothed
addressed rate, ``(addressed + 1) / (addressed + dismissed + 2)`` (Laplace's rule of
succession: always strictly between 0 and 1, and near 0.5 while little is known), with
the counts it rests on: ``true`` = addressed, ``false`` = dismissed. Unknown outcomes count
for nothing. Sources with fewer than `min_decided` decided findings are left out. Bots are
listed best first. Two bots whose findings almost always coincide (Jaccard at least
`FAMILY_JACCARD` over at least `FAMILY_MIN` shared clusters) are not independent witnesses
and are named as a family.
"""

from __future__ import annotations

from review_quorum.history.stats import Stats, Tally
from review_quorum.scoring.profile import Profile, SourceReliability, WitnessFamily

FAMILY_JACCARD = 0.9
FAMILY_MIN = 10


def reliability(tally: Tally) -> float:
    return tally.reliability


def calibrate(stats: Stats, *, origin: str, min_decided: int = 1) -> Profile:
    """The profile the outcomes in `stats` support."""
    note = f"history: {origin}"
    bots = [
        SourceReliability(bot, None, reliability(t), t.addressed, t.dismissed, note)
        for bot, t in stats.bots.items()
        if t.decided >= min_decided
    ]
    bots.sort(key=lambda source: (-source.reliability, source.bot))
    rules = [
        SourceReliability(bot, rule, reliability(t), t.addressed, t.dismissed, note)
        for (bot, rule), t in sorted(stats.rules.items())
        if rule and t.decided >= min_decided
    ]
    families = tuple(
        WitnessFamily(f"{a.bot}-{a.other}", (a.bot, a.other))
        for a in stats.agreements
        if a.jaccard >= FAMILY_JACCARD and a.shared >= FAMILY_MIN
    )
    summary = (
        f"{origin}: {stats.pull_requests} pull request(s), outcomes of synced bot comments,"
        " recorded runs and triage"
    )
    return Profile(origin=summary, sources=(*bots, *rules), families=families)


def over(profile: Profile, base: Profile) -> Profile:
    """`profile` where it has a source or family, `base` for the rest."""
    known = {source.key for source in profile.sources}
    named = {member for family in profile.families for member in family.members}
    return Profile(
        origin=f"{profile.origin}; otherwise {base.origin}",
        sources=(*profile.sources, *(s for s in base.sources if s.key not in known)),
        families=(
            *profile.families,
            *(f for f in base.families if not named.intersection(f.members)),
        ),
        name=profile.name,
    )
