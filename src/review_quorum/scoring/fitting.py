"""A reliability profile fitted from labelled findings (`quorum calibrate LABELS FINDINGS...`).

Every labelled finding counts for its bot and, when it has one, for its bot's rule. A
bot's reliability is an empirical-Bayes estimate: the bots' rates of real findings are
taken to come from one Beta distribution, fitted by the method of moments (its mean is
the pooled rate, its strength what the spread of the rates leaves after binomial noise),
and each bot's rate is shrunk toward the mean by that strength. So a bot seen six times
stays near the population, and a bot seen hundreds of times keeps its own rate. A rule
is shrunk toward its bot's estimate by the strength that the spread of the rules' rates
gives (rules of one analyser differ far more than analysers do).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from review_quorum.labels import Labels, Run
from review_quorum.scoring.profile import Profile, SourceReliability

MIN_STRENGTH, MAX_STRENGTH = 2.0, 200.0

Key = tuple[str, str | None]


def fit(labels: Labels, runs: Sequence[Run], origin: str) -> Profile:
    """The profile of every source with at least one labelled finding in `runs`."""
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
    bots = [key for key in seen if key[1] is None]
    mean, strength = beta_prior([(real[key], seen[key]) for key in bots])
    estimate = {key[0]: (real[key] + strength * mean) / (seen[key] + strength) for key in bots}
    rules = [key for key in seen if key[1] is not None]
    _, rule_strength = beta_prior([(real[key], seen[key]) for key in rules])
    sources = []
    for key in sorted(seen, key=lambda item: (item[0], item[1] or "")):
        bot, rule = key
        value = estimate[bot]
        if rule is not None:
            value = (real[key] + rule_strength * value) / (seen[key] + rule_strength)
        true = real[key]
        sources.append(
            SourceReliability(bot, rule, round(value, 4), true, seen[key] - true, origin)
        )
    return Profile(origin=origin, sources=tuple(sources))


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
