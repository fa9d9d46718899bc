"""The reliability model (SPEC 3b): each cluster's probability of being a real issue.

Findings are matched by evidence (`matching`), every source gets a reliability and every
bot a witness family (`witnesses`), and a cluster's score is the naive-Bayes posterior
that it is real given its independent witnesses:

    log-odds = logit(PRIOR_REAL) + sum over families of (logit(r_family) - logit(PRIOR_REAL))

where `r_family` is the reliability of the family's most reliable member in the cluster.
A lone finding therefore scores exactly its source's reliability, and each further
independent family that reports the issue multiplies the odds. `PRIOR_REAL` is the
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

from review_quorum.model import (
    ConsensusFinding,
    ConsensusLevel,
    Contribution,
    NormalizedFinding,
)
from review_quorum.scoring import matching, witnesses
from review_quorum.scoring.agreement import Order, canonical_key, output_key, resolve_bots_ran
from review_quorum.scoring.profile import Profile

PRIOR_REAL = 0.12
CONFIRMED_PROBABILITY = 0.8
NEEDS_VERIFICATION_PROBABILITY = 0.5
_FLOOR, _CEILING = 0.01, 0.99


def level_for_probability(probability: float) -> ConsensusLevel:
    """The consensus level of a probability (lower edges inclusive)."""
    if probability >= CONFIRMED_PROBABILITY:
        return ConsensusLevel.CONFIRMED
    if probability >= NEEDS_VERIFICATION_PROBABILITY:
        return ConsensusLevel.NEEDS_VERIFICATION
    return ConsensusLevel.UNVERIFIED


def logit(probability: float) -> float:
    probability = min(max(probability, _FLOOR), _CEILING)
    return math.log(probability / (1.0 - probability))


def compute_reliability(
    findings: Iterable[NormalizedFinding],
    *,
    bots_ran: int | None = None,
    line_window: int = 3,
    order: Order = "input",
    profile: Profile | None = None,
) -> list[ConsensusFinding]:
    """Cluster `findings` by evidence and score each cluster's probability of being real."""
    if isinstance(line_window, bool) or not isinstance(line_window, int) or line_window < 0:
        raise ValueError(f"line_window must be a non-negative integer, not {line_window!r}")
    if order not in ("input", "canonical"):
        raise ValueError(f"order must be 'input' or 'canonical', not {order!r}")
    if profile is None:
        profile = Profile.default()
    items = list(findings)
    if order == "canonical":
        items.sort(key=_canonical_key)
    ran = resolve_bots_ran(items, bots_ran)
    groups = matching.cluster(items, line_window)
    family = witnesses.families(items, groups, profile)
    estimates = witnesses.reliabilities(items, groups, family, profile)
    consensus = [
        _summarise([items[index] for index in group], ran, family, estimates) for group in groups
    ]
    consensus.sort(key=output_key)
    return consensus


def _canonical_key(finding: NormalizedFinding) -> tuple[object, ...]:
    """The agreement model's canonical order, completed with what this model reads."""
    return (*canonical_key(finding), finding.rule_id, finding.category_certainty, finding.body)


def _summarise(
    members: Sequence[NormalizedFinding],
    bots_ran: int,
    family: dict[str, str],
    estimates: dict[witnesses.Source, witnesses.Estimate],
) -> ConsensusFinding:
    contributions = _contributions(members, family, estimates)
    log_odds = logit(PRIOR_REAL) + sum(c.weight for c in contributions if c.counted)
    probability = 1.0 / (1.0 + math.exp(-log_odds))
    lined = [m.evidence.line for m in members if m.evidence.line is not None]
    anchor = next((m for m in members if m.evidence.line is not None), members[0])
    stated = next((m.category for m in members if m.category_certainty >= 1.0), None)
    detected_by = tuple(sorted({member.bot for member in members}))
    ratio = min(len(detected_by) / bots_ran, 1.0)
    confidence = min(max(max(member.confidence for member in members), 0.0), 1.0)
    return ConsensusFinding(
        file=anchor.evidence.file,
        line=min(lined) if lined else None,
        category=stated or anchor.category,
        title=max((member.title for member in members), key=len),
        severity=max(member.severity for member in members),
        detected_by=detected_by,
        bots_ran=bots_ran,
        agreement_ratio=ratio,
        max_confidence=confidence,
        consensus_score=probability,
        level=level_for_probability(probability),
        members=tuple(members),
        model="reliability",
        contributions=contributions,
    )


def _contributions(
    members: Sequence[NormalizedFinding],
    family: dict[str, str],
    estimates: dict[witnesses.Source, witnesses.Estimate],
) -> tuple[Contribution, ...]:
    """Each member's share: only the most reliable member of each family counts."""
    prior = logit(PRIOR_REAL)
    best: dict[str, int] = {}
    rows = []
    for position, member in enumerate(members):
        source = (member.bot, member.rule_id)
        estimate = estimates[source]
        name = family.get(member.bot, member.bot)
        rows.append((source, name, estimate))
        leader = best.get(name)
        if leader is None or estimate.reliability > rows[leader][2].reliability:
            best[name] = position
    counted = set(best.values())
    return tuple(
        Contribution(
            source=witnesses.source_name(source),
            family=name,
            reliability=estimate.reliability,
            origin=estimate.origin,
            counted=position in counted,
            weight=logit(estimate.reliability) - prior if position in counted else 0.0,
        )
        for position, (source, name, estimate) in enumerate(rows)
    )
