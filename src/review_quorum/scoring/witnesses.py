"""Witnesses (the reliability model, SPEC 3b): who counts as independent, and how reliable.

Families. Some sources are not independent witnesses: Ruff's S rules are ports of
Bandit's, qodo-v2 is a later qodo, greptile-v4 a later greptile, and a bot repeating its
own comment says nothing new. Each bot belongs to one family: the known families below,
those a profile names, and pairs detected in the input because they nearly always fire
together (in at least `COFIRE_MIN` clusters, covering `COFIRE_SHARE` of the clusters of
the rarer of the two); otherwise the bot is a family of its own.

Reliability. A source is a bot, or a bot's rule for analysers. Its reliability, the
probability that one of its findings is real, comes from the profile's entry for it, else
from agreement in the input itself (starting from the profile's entry for its bot): a
finding that another family also reported is right `AGREED` of the time, a lone one
`LONE` (the cluster precisions measured on the public code-review benchmark the
review-bots-dev corpus comes from: 2+ tools 0.70-0.80, 1 tool 0.36). The mix of the two
by the source's agreement rate is shrunk toward its bot's estimate, and the bot's toward
the mean bot of the profile (`PRIOR` without one), by `PSEUDO_COUNT` findings, so a
source seen a few times stays close to what is known about its bot, and an unknown bot
close to the known ones.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, compress
from operator import attrgetter

from review_quorum.model import NormalizedFinding
from review_quorum.scoring.profile import Profile, SourceReliability

KNOWN_FAMILIES: dict[str, tuple[str, ...]] = {
    "bandit-ruff": ("bandit", "ruff"),
    "qodo": ("qodo", "qodo-v2"),
    "greptile": ("greptile", "greptile-v4"),
}
COFIRE_MIN = 5
COFIRE_SHARE = 0.9
AGREED = 0.75
LONE = 0.36
PRIOR = 0.5
PSEUDO_COUNT = 4.0

Source = tuple[str, str]  # (bot, rule id or "")
source_of = attrgetter("bot", "rule_id")  # a finding's source, built in C


@dataclass(frozen=True, slots=True)
class Estimate:
    """A source's reliability and where it came from."""

    reliability: float
    origin: str


def source_name(source: Source) -> str:
    bot, rule = source
    return f"{bot}/{rule}" if rule else bot


def families(bots_of: Sequence[tuple[str, ...]], profile: Profile) -> dict[str, str]:
    """Each bot's family name: known, from the profile, or detected from co-firing.

    `bots_of` holds each cluster's distinct bots, sorted. Clusters with the same bots
    are counted together: a million findings make a few thousand combinations.
    """
    family: dict[str, str] = {}
    for name, members in KNOWN_FAMILIES.items():
        for bot in members:
            family[bot] = name
    for declared in profile.families:
        for bot in declared.members:
            family[bot] = declared.name
    clusters_of: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    for bots, count in Counter(bots_of).items():
        for bot in bots:
            clusters_of[bot] += count
        if 1 < len(bots) <= 16:  # a cluster of dozens of bots says nothing about a pair
            for i, first in enumerate(bots):
                for second in bots[i + 1 :]:
                    together[first, second] += count
    for (first, second), count in sorted(together.items()):
        rarer = min(clusters_of[first], clusters_of[second])
        if count >= COFIRE_MIN and count >= COFIRE_SHARE * rarer:
            _merge(family, first, second)
    return family


def _merge(family: dict[str, str], first: str, second: str) -> None:
    for bot in (first, second):
        family.setdefault(bot, bot)
    keep, drop = sorted((family[first], family[second]))
    if keep != drop:
        for bot, name in family.items():
            if name == drop:
                family[bot] = keep


def reliabilities(
    findings: Sequence[NormalizedFinding],
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    family: dict[str, str],
    profile: Profile,
) -> dict[Source, Estimate]:
    """Every source's reliability: from the profile, else estimated from agreement.

    `clusters` group `findings` and `bots_of` holds each cluster's distinct bots. The
    findings are counted in their own order, the order they lie in memory (several times
    faster than cluster by cluster); whether a cluster was shared by several families is
    decided once per combination of bots.
    """
    seen: Counter[Source] = Counter(map(source_of, findings))
    shared = {
        names: len(names) > 1 and len({family.get(bot, bot) for bot in names}) > 1
        for names in set(bots_of)
    }
    members = chain.from_iterable(compress(clusters, map(shared.__getitem__, bots_of)))
    agreed: Counter[Source] = Counter(map(source_of, members))
    known = profile.lookup()
    prior = _population_mean(profile)
    bots = _bot_estimates(seen, agreed, prior)
    estimates: dict[Source, Estimate] = {}
    for source, count in seen.items():
        bot, rule = source
        entry = known.get((bot, rule or None))
        if entry is not None:
            estimates[source] = Estimate(entry.reliability, _profile_origin(entry, profile))
            continue
        mixed = _mix(agreed[source], count)
        bot_entry = known.get((bot, None))
        base = bot_entry.reliability if bot_entry else bots[bot] if rule else prior
        value = (mixed * count + base * PSEUDO_COUNT) / (count + PSEUDO_COUNT)
        share = f"{agreed[source]}/{count}"
        estimates[source] = Estimate(value, f"agreement in this input ({share} shared)")
    return estimates


def _population_mean(profile: Profile) -> float:
    """What an unknown bot is taken to be: the mean bot of the profile, else `PRIOR`."""
    bots = [source.reliability for source in profile.sources if source.rule is None]
    return math.fsum(bots) / len(bots) if bots else PRIOR


def _bot_estimates(
    seen: Counter[Source], agreed: Counter[Source], prior: float
) -> dict[str, float]:
    total: Counter[str] = Counter()
    shared: Counter[str] = Counter()
    for (bot, _), count in seen.items():
        total[bot] += count
    for (bot, _), count in agreed.items():
        shared[bot] += count
    return {
        bot: (_mix(shared[bot], count) * count + prior * PSEUDO_COUNT) / (count + PSEUDO_COUNT)
        for bot, count in total.items()
    }


def _mix(agreed: int, count: int) -> float:
    return (agreed * AGREED + (count - agreed) * LONE) / count


def _profile_origin(entry: SourceReliability, profile: Profile) -> str:
    where = entry.origin or profile.origin or "profile"
    return f"profile {profile.name}: {where}" if profile.name else where
