"""Witness families (the reliability model, SPEC 3b): which bots are not independent.

Some sources are not independent witnesses: Ruff's S rules are ports of Bandit's, qodo-v2
is a later qodo, greptile-v4 a later greptile, and a bot repeating its own comment says
nothing new. Each bot belongs to one family: the known families below, those a profile
names, bots whose names differ only by a version suffix (`name-v2`), and pairs that echo
each other: in at least `ECHO_MIN` clusters, covering `ECHO_SHARE` of the rarer one's,
they say the same thing in the same words (one rule id or one title), which independent
tools never do; a detected family never absorbs every bot of the run. Agreement alone,
the same place and the same issue in their own words, is what accurate independent tools
produce, so co-firing never merges bots.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from review_quorum.model import NormalizedFinding
from review_quorum.scoring.profile import Profile

KNOWN_FAMILIES: dict[str, tuple[str, ...]] = {
    "bandit-ruff": ("bandit", "ruff"),
    "qodo": ("qodo", "qodo-v2"),
    "greptile": ("greptile", "greptile-v4"),
}
ECHO_MIN = 5
ECHO_SHARE = 0.9
_VERSION = re.compile(r"[-_.]?v?\d+(?:\.\d+)*$")


def witness_families(
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    profile: Profile,
) -> dict[str, str]:
    """Each bot's family name: known, from the profile, a version of another bot's name,
    or detected because two bots echo each other word for word.

    `bots_of` holds each cluster's distinct bots, sorted; only clusters of several bots
    are looked at for echoes.
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
        if 1 < len(bots) <= 16:  # dozens of bots in one cluster say nothing of a pair
            for i, first in enumerate(bots):
                for second in bots[i + 1 :]:
                    together[first, second] += count
    stems: dict[str, str] = {}
    for bot in sorted(clusters_of):
        stem = _VERSION.sub("", bot) or bot
        if stem in stems:
            _merge(family, stems[stem], bot)
        else:
            stems[stem] = bot
    # echoing needs firing together first: only such pairs' clusters are read for words
    candidates = {pair for pair, count in together.items() if _often(count, pair, clusters_of)}
    if candidates:
        for pair, count in sorted(_echoes(clusters, bots_of, candidates).items()):
            if _often(count, pair, clusters_of):
                _merge_unless_all(family, *pair, set(clusters_of))
    return family


def _often(count: int, pair: tuple[str, str], clusters_of: Counter[str]) -> bool:
    """Whether `count` clusters are `ECHO_MIN` or more and cover `ECHO_SHARE` of the
    rarer bot's clusters."""
    return count >= ECHO_MIN and count >= ECHO_SHARE * min(
        clusters_of[pair[0]], clusters_of[pair[1]]
    )


def _merge_unless_all(family: dict[str, str], first: str, second: str, bots: set[str]) -> None:
    """Merge two bots' families unless that leaves one family for every bot of the run:
    a detected family never absorbs every witness (known ones may)."""
    names = {family.get(first, first), family.get(second, second)}
    merged = {bot for bot in bots if family.get(bot, bot) in names}
    if merged != bots:
        _merge(family, first, second)


def _echoes(
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    candidates: set[tuple[str, str]],
) -> Counter[tuple[str, str]]:
    """Per candidate pair of bots, the clusters in which they say the same words: one
    rule id, or one title."""
    echoes: Counter[tuple[str, str]] = Counter()
    pairs_of = {
        bots: [pair for pair in candidates if pair[0] in bots and pair[1] in bots]
        for bots in set(bots_of)
        if len(bots) > 1
    }
    for members, bots in zip(clusters, bots_of, strict=True):
        pairs = pairs_of.get(bots)
        if not pairs:
            continue
        said: dict[str, set[str]] = {}
        for member in members:
            words = said.setdefault(member.bot, set())
            words.add(member.title)
            if member.rule_id:
                words.add(member.rule_id)
        for first, second in pairs:
            if not said[first].isdisjoint(said[second]):
                echoes[first, second] += 1
    return echoes


def _merge(family: dict[str, str], first: str, second: str) -> None:
    for bot in (first, second):
        family.setdefault(bot, bot)
    keep, drop = sorted((family[first], family[second]))
    if keep != drop:
        for bot, name in family.items():
            if name == drop:
                family[bot] = keep
