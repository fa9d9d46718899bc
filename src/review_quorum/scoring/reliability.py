"""The reliability model (SPEC 3b): each cluster's probability of being a real issue.

Findings are matched by evidence (`matching`), every source gets a reliability and every
bot a witness family (`witnesses`), and a cluster's score is the naive-Bayes posterior
that it is real given its independent witnesses:

    log-odds = logit(r_lead) + sum over the other families of
               max(0, logit(r_family) - logit(PRIOR_REAL))

where `r_family` is the reliability of the family's most reliable member in the cluster
and `r_lead` the highest of them. A lone finding therefore scores exactly its source's
reliability, and each further independent family that reports the issue multiplies the
odds by how much more often its reports are real than the prior. A source less reliable
than the prior (one that fires on everything) adds nothing: its report is no evidence
either way, never evidence against the issue. `PRIOR_REAL` is the
probability that an issue is real before anyone reports it; 0.12 is what makes two
witnesses of the typical reliability 0.36 reach the 0.70 precision measured for
two-tool clusters on the benchmark review-bots-dev comes from (odds 0.5625^2 / 2.33).

Levels are probability thresholds, whatever the number of bots: `needs-verification` from
0.5 (more likely real than not), `confirmed` from 0.8 (four to one). The provenance tag
stays `detected by N/M bots`; the consensus score is the probability.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from operator import attrgetter

from review_quorum.model import (
    NO_PRIORITY,
    ConsensusFinding,
    ConsensusLevel,
    Contribution,
    NormalizedFinding,
    check_line_window,
    level_for,
)
from review_quorum.scoring import families, matching, witnesses
from review_quorum.scoring.agreement import (
    Order,
    canonical_key,
    resolve_bots_ran,
    sort_for_output,
    spread,
)
from review_quorum.scoring.profile import Profile
from review_quorum.scoring.witnesses import GENERIC

PRIOR_REAL = 0.12
CONFIRMED_PROBABILITY = 0.8
NEEDS_VERIFICATION_PROBABILITY = 0.5
FLOORS = (CONFIRMED_PROBABILITY, NEEDS_VERIFICATION_PROBABILITY)
_FLOOR, _CEILING = 0.01, 0.99


def level_for_probability(probability: float) -> ConsensusLevel:
    """The consensus level of a probability (lower edges inclusive)."""
    return level_for(probability, FLOORS)


def logit(probability: float) -> float:
    probability = _FLOOR if probability < _FLOOR else min(probability, _CEILING)
    return math.log(probability / (1.0 - probability))


_PRIOR_LOG_ODDS = logit(PRIOR_REAL)
_priority = attrgetter("priority")


def compute_reliability(
    findings: Iterable[NormalizedFinding],
    *,
    bots_ran: int | None = None,
    line_window: int = 3,
    order: Order = "input",
    profile: Profile | None = None,
) -> list[ConsensusFinding]:
    """Cluster `findings` by evidence and score each cluster's probability of being real."""
    check_line_window(line_window)
    if order not in ("input", "canonical"):
        raise ValueError(f"order must be 'input' or 'canonical', not {order!r}")
    if profile is None:
        profile = Profile.default()
    items = list(findings)
    if order == "canonical":
        items.sort(key=_canonical_key)
    ran = resolve_bots_ran(items, bots_ran)
    clusters, bots_of = matching.cluster(items, line_window)
    family = families.witness_families(clusters, bots_of, profile)
    estimates = witnesses.reliabilities(items, clusters, bots_of, family, profile)
    shares = _shares(estimates, family)
    alone, several = _Alone(shares, ran), _Several(shares, ran)
    consensus = [
        alone(members, bots) if len(members) == 1 else several(members, bots)
        for members, bots in zip(clusters, bots_of, strict=True)
    ]
    # a tool's stated priority (SARIF rank) orders what the score and severity leave tied
    sort_for_output(consensus, by_priority=max(map(_priority, items), default=NO_PRIORITY) >= 0)
    return consensus


def _canonical_key(finding: NormalizedFinding) -> tuple[object, ...]:
    """The agreement model's canonical order, completed with what this model reads."""
    return (*canonical_key(finding), finding.rule_id, finding.category_certainty, finding.body)


# Per source: its three contributions (see `_shares`) and whether it states only the use of
# a function.
Shares = dict[witnesses.Source, tuple[Contribution, Contribution, Contribution, bool]]
_Score = tuple[tuple[Contribution, ...], float, ConsensusLevel]  # contributions, P, level


def _shares(
    estimates: dict[witnesses.Source, witnesses.Estimate], family: dict[str, str]
) -> Shares:
    """Per source, its contribution as the cluster's most reliable witness, as a further
    witness (never below zero), and as a member whose family already counted; and whether
    it states only the use of a function.

    Contributions are immutable, so every member of one source shares the same three.
    """
    prior = logit(PRIOR_REAL)
    shares: Shares = {}
    for source, estimate in estimates.items():
        name, group = witnesses.source_name(source), family.get(source[0], source[0])
        weight = logit(estimate.reliability) - prior
        reliability, origin = estimate.reliability, estimate.origin
        shares[source] = (
            Contribution(name, group, reliability, origin, True, weight),
            Contribution(name, group, reliability, origin, True, max(weight, 0.0)),
            Contribution(name, group, reliability, origin, False, 0.0),
            estimate.use_only,
        )
    return shares


class _Several:
    """Clusters of several findings. Their score depends only on the sources of their
    members in order, and a million findings have a few thousand such sequences: each
    sequence's contributions, probability and level are worked out once."""

    __slots__ = ("bots_ran", "scores", "shares")

    def __init__(self, shares: Shares, bots_ran: int) -> None:
        self.shares = shares
        self.bots_ran = bots_ran
        self.scores: dict[tuple[witnesses.Source, ...], _Score] = {}

    def __call__(
        self, members: Sequence[NormalizedFinding], detected_by: tuple[str, ...]
    ) -> ConsensusFinding:
        """`members`' cluster; `detected_by` is its distinct bots, sorted."""
        sources = tuple(map(witnesses.source_of, members))
        score = self.scores.get(sources)
        if score is None:
            score = self.scores[sources] = _score(sources, self.shares)
        return _summarise(members, detected_by, self.bots_ran, score)


def _score(sources: Sequence[witnesses.Source], shares: Shares) -> _Score:
    """The contributions of members of these sources, the probability and its level."""
    contributions = _contributions(sources, shares)
    log_odds = _PRIOR_LOG_ODDS
    for contribution in contributions:  # in member order, the same sum on every Python
        log_odds += contribution.weight
    probability = 1.0 / (1.0 + math.exp(-log_odds))
    return contributions, probability, level_for(probability, FLOORS)


def _summarise(
    members: Sequence[NormalizedFinding],
    detected_by: tuple[str, ...],
    bots_ran: int,
    score: _Score,
) -> ConsensusFinding:
    """A cluster of several findings, given its score."""
    contributions, probability, level = score
    lined, line, title, severity, confidence = spread(members)
    anchor = lined or members[0]
    category = anchor.category  # unless a member's tool stated one
    for member in members:
        if member.category_certainty >= 1.0 and member.category != GENERIC:  # is_stated
            category = member.category or category
            break
    ratio = len(detected_by) / bots_ran
    # Positional on purpose, as in the agreement model: this runs once per cluster.
    return ConsensusFinding(
        anchor.evidence.file,
        line,
        category,
        title,
        severity,
        detected_by,
        bots_ran,
        1.0 if ratio > 1.0 else ratio,
        0.0 if confidence < 0.0 else 1.0 if confidence > 1.0 else confidence,
        probability,
        level,
        tuple(members),
        "reliability",
        contributions,
    )


class _Alone:
    """Clusters of one finding (most of them): its source's reliability is the score.

    What depends only on the source (contribution, probability, level) is worked out once
    per source; a million findings have a few dozen sources. A second way of summarising
    a cluster, kept on purpose: `_Several` takes 10.6 us per lone cluster against 2.9 us
    here (timeit, one member), some 7 s of the 35 s `quorum consensus` spends end to end
    on bench/consensus.py's million findings, nine in ten of them alone.
    """

    __slots__ = ("bots_ran", "ratio", "scores", "shares")

    def __init__(self, shares: Shares, bots_ran: int) -> None:
        self.shares = shares
        self.bots_ran = bots_ran
        self.ratio = min(1 / bots_ran, 1.0)
        self.scores: dict[witnesses.Source, _Score] = {}

    def __call__(
        self, members: tuple[NormalizedFinding], bots: tuple[str, ...]
    ) -> ConsensusFinding:
        """The cluster of its one member alone; `bots` is `(member.bot,)`, shared per bot."""
        member = members[0]
        source = witnesses.source_of(member)
        score = self.scores.get(source)
        if score is None:
            score = self.scores[source] = _score((source,), self.shares)
        contributions, probability, level = score
        confidence = member.confidence
        return ConsensusFinding(
            member.evidence.file,
            member.evidence.line,
            member.category,
            member.title,
            member.severity,
            bots,
            self.bots_ran,
            self.ratio,
            0.0 if confidence < 0.0 else 1.0 if confidence > 1.0 else confidence,
            probability,
            level,
            members,
            "reliability",
            contributions,
        )


def _contributions(sources: Sequence[witnesses.Source], shares: Shares) -> tuple[Contribution, ...]:
    """Each member's share: only the most reliable member of each family counts, and of
    the families whose members here all state only the use of a function, only the most
    reliable one: they corroborate the call, not its misuse."""
    chosen = [shares[source] for source in sources]
    best: dict[str, tuple[int, float]] = {}  # family -> its most reliable member, first
    substantive: set[str] = set()  # families stating more than the use of a function
    for position, (share, _, _, use_only) in enumerate(chosen):
        leader = best.get(share.family)
        if leader is None or share.reliability > leader[1]:
            best[share.family] = (position, share.reliability)
        if not use_only:
            substantive.add(share.family)
    if len(best) - len(substantive) > 1:
        best = _one_use_witness(best, substantive)
    # Every member its own family (the usual case): all of them count.
    counted = None if len(best) == len(chosen) else {at for at, _ in best.values()}
    lead, most = -1, 0.0  # the most reliable leader, the first on ties
    for at, reliability in best.values():
        if lead < 0 or reliability > most or (reliability == most and at < lead):
            lead, most = at, reliability
    return tuple(
        [
            share[0] if at == lead else share[1] if counted is None or at in counted else share[2]
            for at, share in enumerate(chosen)
        ]
    )


_USE_OF_A_FUNCTION = "\x00use of a function"  # no family's name: bot names are not empty


def _one_use_witness(
    best: dict[str, tuple[int, float]], substantive: set[str]
) -> dict[str, tuple[int, float]]:
    """`best` with the families stating only the use of a function reduced to their most
    reliable one (the first on ties)."""
    users = sorted(
        (-reliability, at)
        for family, (at, reliability) in best.items()
        if family not in substantive
    )
    kept = {family: leader for family, leader in best.items() if family in substantive}
    most, at = users[0]
    kept[_USE_OF_A_FUNCTION] = (at, -most)
    return kept
