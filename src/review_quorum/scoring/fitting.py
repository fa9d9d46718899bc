"""Reliability learned from evidence: labels (`quorum calibrate LABELS FINDINGS...`) and
reviewers' outcomes (`quorum calibrate --db`) go through one estimator, `estimate`.

Every decided finding counts for its bot and, when it has one, for its bot's rule: real
(a true label, an addressed outcome) or not. The estimate is empirical Bayes. The bots'
rates are taken to come from one Beta distribution, fitted by the method of moments (its
mean is the pooled rate, its strength what the spread of the rates leaves after binomial
noise), and each bot's rate is shrunk by that strength toward a centre: the figure the base
profile (the shipped one, by default) gives the bot where it knows it, else the pooled rate
of the other bots of its witness family (Bandit's and Ruff's, two versions of one bot)
shrunk toward the mean, else the mean. So a bot seen six times stays near what was known of
it, and a bot seen hundreds of times keeps its own rate. A rule is shrunk toward the base
profile's figure for it, else toward its bot's estimate, by the strength that the spread of
the rules' rates gives (rules of one analyser differ far more than analysers do).

The learned sources extend the base profile (`extend`): what the evidence does not cover
keeps the base profile's figure. `moved` says what changed and by how much.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from review_quorum.labels import Labels, Run
from review_quorum.scoring.families import KNOWN_FAMILIES
from review_quorum.scoring.profile import Profile, SourceReliability, WitnessFamily

MIN_STRENGTH, MAX_STRENGTH = 2.0, 200.0

Key = tuple[str, str | None]


def fit(labels: Labels, runs: Sequence[Run], origin: str, base: Profile | None = None) -> Profile:
    """The profile of every source with at least one labelled finding in `runs`, estimated
    over `base` (empty by default: the evidence alone) and not yet extended by it."""
    real: Counter[Key] = Counter()
    seen: Counter[Key] = Counter()
    for run in runs:
        for finding in run.findings:
            truth = labels.truth(run, finding)
            if truth is None:
                continue
            keys: list[Key] = [(finding.bot, None)]
            if finding.rule_id:
                keys.append((finding.bot, finding.rule_id))
            for key in keys:
                seen[key] += 1
                real[key] += truth
    counts = {key: (real[key], seen[key]) for key in seen}
    return Profile(origin=origin, sources=estimate(counts, origin, base or Profile()))


def estimate(
    counts: Mapping[Key, tuple[int, int]],
    origin: str,
    base: Profile,
    families: Sequence[WitnessFamily] = (),
) -> tuple[SourceReliability, ...]:
    """Each source's reliability from its (real, decided) counts, sorted by bot and rule.

    Bots' rates are shrunk toward `base`'s figure, else their family's (the known families,
    `base`'s and `families`), else the mean; rules' toward `base`'s figure, else their bot's.
    Every rule's bot must have counts too (a rule's findings are its bot's).
    """
    sources = []
    for (bot, rule), (real, seen, centre, strength) in _shrinkage(counts, base, families).items():
        value = (real + strength * centre) / (seen + strength)
        sources.append(SourceReliability(bot, rule, round(value, 4), real, seen - real, origin))
    return tuple(sources)


def posteriors(
    counts: Mapping[Key, tuple[int, int]],
    base: Profile,
    families: Sequence[WitnessFamily] = (),
) -> dict[Key, tuple[float, float]]:
    """Each source's Beta posterior (alpha, beta): the prior `estimate` shrinks toward,
    updated by the source's counts. Its mean is the source's estimate."""
    return {
        key: (real + strength * centre, seen - real + strength * (1 - centre))
        for key, (real, seen, centre, strength) in _shrinkage(counts, base, families).items()
    }


Shrinkage = tuple[int, int, float, float]  # real, seen, the centre, the prior's strength


def _shrinkage(
    counts: Mapping[Key, tuple[int, int]], base: Profile, families: Sequence[WitnessFamily]
) -> dict[Key, Shrinkage]:
    """Per source (sorted by bot and rule), its counts and what it is shrunk toward, by how
    much (see `estimate`)."""
    known = base.lookup()
    bots = {key[0]: value for key, value in counts.items() if key[1] is None}
    mean, strength = beta_prior(list(bots.values()))
    family = _families(base, families)
    pooled: dict[str, list[int]] = {}
    for bot, (real, seen) in bots.items():
        total = pooled.setdefault(family.get(bot, bot), [0, 0])
        total[0] += real
        total[1] += seen
    estimates = {}
    shrunk: dict[Key, Shrinkage] = {}
    for bot, (real, seen) in bots.items():
        entry = known.get((bot, None))
        if entry is not None:
            centre = entry.reliability
        else:
            group_real, group_seen = pooled[family.get(bot, bot)]
            others_real, others_seen = group_real - real, group_seen - seen
            centre = (others_real + strength * mean) / (others_seen + strength)
        estimates[bot] = (real + strength * centre) / (seen + strength)
        shrunk[(bot, None)] = (real, seen, centre, strength)
    rules = [value for key, value in counts.items() if key[1] is not None]
    _, rule_strength = beta_prior(rules)
    for key in counts:
        if key[1] is not None:
            entry = known.get(key)
            centre = entry.reliability if entry is not None else estimates[key[0]]
            shrunk[key] = (*counts[key], centre, rule_strength)
    return {key: shrunk[key] for key in sorted(shrunk, key=lambda item: (item[0], item[1] or ""))}


def _families(base: Profile, families: Sequence[WitnessFamily]) -> dict[str, str]:
    """Each bot's family name: the known families, then `base`'s, then `families`."""
    family = {bot: name for name, members in KNOWN_FAMILIES.items() for bot in members}
    for declared in (*base.families, *families):
        for bot in declared.members:
            family[bot] = declared.name
    return family


def extend(learned: Profile, base: Profile) -> Profile:
    """`learned` where it has a source or family, `base` for the rest."""
    known = {source.key for source in learned.sources}
    named = {member for family in learned.families for member in family.members}
    return Profile(
        origin=f"{learned.origin}; otherwise {base.origin}",
        sources=(*learned.sources, *(s for s in base.sources if s.key not in known)),
        families=(
            *learned.families,
            *(f for f in base.families if not named.intersection(f.members)),
        ),
        name=learned.name,
    )


def moved(learned: Profile, base: Profile, limit: int = 10) -> list[str]:
    """What `learned` changed of `base`: one line per source, the largest moves first, then
    the sources `base` did not know, and how many more when there are more than `limit`."""
    known = base.lookup()
    changes = []
    for source in learned.sources:
        name = f"{source.bot}/{source.rule}" if source.rule else source.bot
        decided = source.true + source.false
        entry = known.get(source.key)
        if entry is None:
            changes.append((1, 0.0, f"{name}: new, {source.reliability:.3f} ({decided} decided)"))
        elif abs(source.reliability - entry.reliability) >= 0.0005:
            delta = source.reliability - entry.reliability
            changes.append(
                (
                    0,
                    -abs(delta),
                    f"{name}: {entry.reliability:.3f} -> {source.reliability:.3f} "
                    f"({delta:+.3f}, {decided} decided)",
                )
            )
    changes.sort(key=lambda change: change[:2])
    lines = [line for _, _, line in changes[:limit]]
    if len(changes) > limit:
        lines.append(f"... and {len(changes) - limit} more")
    return lines


def beta_prior(counts: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """Mean and strength (alpha + beta) of a Beta fitted to (real, seen) counts by moments."""
    total = sum(seen for _, seen in counts)
    if not total:
        return 0.5, MIN_STRENGTH
    mean = sum(real for real, _ in counts) / total
    rates = [(real / seen, seen) for real, seen in counts if seen]
    spread = math.fsum(seen * (rate - mean) ** 2 for rate, seen in rates) / total
    noise = mean * (1 - mean) * len(rates) / total  # binomial variance, weighted by size
    excess = spread - noise
    if excess <= 0:
        return mean, MAX_STRENGTH
    strength = mean * (1 - mean) / excess - 1
    return mean, min(max(strength, MIN_STRENGTH), MAX_STRENGTH)


def beta_interval(alpha: float, beta: float, mass: float = 0.95) -> tuple[float, float]:
    """The equal-tailed interval holding `mass` of a Beta(alpha, beta) distribution, to
    within 1e-4 (bisection on the regularized incomplete beta function)."""
    if alpha <= 0.0 or beta <= 0.0:  # all the mass at one end (a centre of 0 or 1, no doubt)
        return (1.0, 1.0) if alpha > 0.0 else (0.0, 0.0)
    tail = (1 - mass) / 2
    return _beta_quantile(alpha, beta, tail), _beta_quantile(alpha, beta, 1 - tail)


def _beta_quantile(alpha: float, beta: float, probability: float) -> float:
    low, high = 0.0, 1.0
    while high - low > 1e-4:
        middle = (low + high) / 2
        if _incomplete_beta(alpha, beta, middle) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _incomplete_beta(alpha: float, beta: float, x: float) -> float:
    """The regularized incomplete beta function I_x(alpha, beta), by its continued fraction
    (evaluated where it converges fast, the other side by symmetry)."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    log_front = (
        math.lgamma(alpha + beta)
        - math.lgamma(alpha)
        - math.lgamma(beta)
        + alpha * math.log(x)
        + beta * math.log1p(-x)
    )
    if x < (alpha + 1) / (alpha + beta + 2):
        return math.exp(log_front) * _fraction(alpha, beta, x) / alpha
    return 1.0 - math.exp(log_front) * _fraction(beta, alpha, 1 - x) / beta


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < 1e-12:
            break
    return result
