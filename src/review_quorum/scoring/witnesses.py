"""Witnesses (the reliability model, SPEC 3b): how reliable each source is.

Who counts as independent is `families`; a source's family is one witness however many
of its members report an issue.

Reliability. A source is a bot, or a bot's rule for analysers. Its reliability, the
probability that one of its findings is real, comes from the profile's entry for it, else
from the input itself, where what the input can show depends on the source:
- Where another family reports the same kind of issue in this input (a CWE it also
  states, else the same stated category; a reviewer whose categories are guessed, or a
  rule of the generic category `other`, can report anything), agreement is evidence: a
  finding another family also reported is right `AGREED` of the time, a lone one `LONE`
  (the cluster precisions measured on the public code-review benchmark the
  review-bots-dev corpus comes from: 2+ tools 0.70-0.80, 1 tool 0.36). The mix of the two
  by the source's agreement rate is shrunk toward its bot's estimate, and the bot's
  toward the mean bot of the profile, by `PSEUDO_COUNT` findings. Without a profile the
  bot's pseudo-findings are findings nobody has corroborated yet, right `LONE` of the time
  (`PRIOR`): even odds would lift the lone findings of a bot that shared one of two past
  `needs-verification`.
- Where no other family could have reported it, a lone finding is no evidence against
  it: the source keeps its bot's profile entry, else the confidence its tool states,
  else its bot's estimate from the sources that could be corroborated, else, knowing
  nothing, the even odds `UNKNOWN` ranked by the tool's own stated levels.
Estimated sources are ranked by what their tool states: a tool's stated confidence is
read as proportional to its precision, so a source's odds, once estimated (from agreement
or its prior), are multiplied by its mean stated confidence over the tool's mean (for the
floor, also doubled per level above the tool's mean level). The shift is applied after the
agreement estimate, so it holds whatever the count: two rules of one tool with the same
agreement counts have odds in the ratio of their stated confidences. A tool stating one
value for everything is unaffected, and so is a source the profile measured.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from itertools import chain, compress
from operator import attrgetter

import msgspec

from review_quorum.model import NormalizedFinding, is_stated
from review_quorum.scoring.profile import Profile, SourceReliability

AGREED = 0.75
LONE = 0.36
# Without a profile an unknown bot starts where a finding nobody has corroborated yet
# stands: its prior's pseudo-findings are lone findings, right `LONE` of the time.
PRIOR = LONE
UNKNOWN = 0.5
PSEUDO_COUNT = 4.0
LEVEL_LOG_ODDS = math.log(2.0)  # the floor: each level above the tool's average doubles the odds
GENERIC = "other"  # a stated category that says nothing about the kind of issue
# Weaknesses that are the use of a function itself (CWE-676 use of a potentially dangerous
# function, CWE-242 of an inherently dangerous one, CWE-477 of an obsolete one, CWE-1177
# of prohibited code): a rule stating only these says a function is called, not misused.
USE_OF_FUNCTION_CWES = frozenset([242, 477, 676, 1177])
_FLOOR, _CEILING = 0.01, 0.99

Source = tuple[str, str]  # (bot, rule id or "")
source_of = attrgetter("bot", "rule_id")  # a finding's source, built in C


class Estimate(msgspec.Struct, frozen=True):
    """A source's reliability and where it came from; `use_only` when its findings state
    only the use of a function (see `uses_only`)."""

    reliability: float
    origin: str
    use_only: bool = False


def uses_only(finding: NormalizedFinding) -> bool:
    """Whether a finding states only that a function is used: its tool says so of its rule
    (`use_only`), or every CWE it states is a use-of-function weakness. Two such findings
    corroborate the call, not its misuse."""
    cwes = finding.cwes
    return finding.use_only or (bool(cwes) and USE_OF_FUNCTION_CWES.issuperset(cwes))


def source_name(source: Source) -> str:
    bot, rule = source
    return f"{bot}/{rule}" if rule else bot


class _Kinds(msgspec.Struct):
    """The kinds of issue a family reports in this input."""

    anything: bool = False  # a reviewer with guessed categories, or the generic category
    cwes: set[int] = msgspec.field(default_factory=set)
    categories: set[str] = msgspec.field(default_factory=set)  # stated, of any of its sources
    without_cwe: set[str] = msgspec.field(default_factory=set)  # stated, of sources with no CWE


class _Stated(msgspec.Struct, frozen=True):
    """What a source's tool says of it: its findings' mean stated confidence and mean
    level (over all its findings, repeats included), and its kind of issue (from one of
    its findings)."""

    confidence: float  # mean stated confidence
    level: float  # mean severity rank
    count: int  # the findings the means are over
    example: NormalizedFinding


def reliabilities(
    findings: Sequence[NormalizedFinding],
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    family: dict[str, str],
    profile: Profile,
) -> dict[Source, Estimate]:
    """Every source's reliability: from the profile, else estimated from the input.

    `clusters` group `findings` and `bots_of` holds each cluster's distinct bots. The
    findings are counted in their own order, the order they lie in memory (several times
    faster than cluster by cluster); whether a cluster was shared by several families is
    decided once per combination of bots.
    """
    stated = _stated(findings)
    seen: Counter[Source] = Counter({source: said.count for source, said in stated.items()})
    shared = {
        names: len(names) > 1 and len({family.get(bot, bot) for bot in names}) > 1
        for names in set(bots_of)
    }
    members = chain.from_iterable(compress(clusters, map(shared.__getitem__, bots_of)))
    agreed: Counter[Source] = Counter(map(source_of, members))
    _count_repeats_once(clusters, bots_of, shared, seen, agreed)
    use_only = {source for source, said in stated.items() if uses_only(said.example)}
    # another family met these on a line: corroboration was possible, even where it was
    # only another finding of the call's use
    met = {source for source in use_only if agreed[source] > 0}
    if use_only:
        _uncount_use_only_agreement(clusters, bots_of, shared, family, use_only, agreed)
    evidence = _Evidence(seen, agreed, stated, family, profile, met)
    known = profile.lookup()
    estimates: dict[Source, Estimate] = {}
    for source, count in seen.items():
        entry = known.get((source[0], source[1] or None))
        if entry is not None:
            estimate = Estimate(entry.reliability, _profile_origin(entry, profile))
        else:
            estimate = evidence.estimate(source, count, known.get((source[0], None)))
        if source in use_only:
            estimate = Estimate(estimate.reliability, estimate.origin, True)
        estimates[source] = estimate
    return estimates


def _uncount_use_only_agreement(
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    shared: dict[tuple[str, ...], bool],
    family: dict[str, str],
    use_only: set[Source],
    agreed: Counter[Source],
) -> None:
    """A source stating only the use of a function is corroborated only by another family
    stating more than that: two such findings agree on the call, not on its misuse. Take
    out of `agreed` (once per source and cluster, as repeats are already counted once)
    the clusters where every other family's members state only the use."""
    for members, bots in zip(clusters, bots_of, strict=True):
        if not shared[bots]:
            continue
        sources = set(map(source_of, members))
        if sources.isdisjoint(use_only):
            continue
        substantive = {family.get(bot, bot) for bot, _ in sources - use_only}
        for source in sources & use_only:
            if not substantive - {family.get(source[0], source[0])}:
                agreed[source] -= 1


def _count_repeats_once(
    clusters: Sequence[Sequence[NormalizedFinding]],
    bots_of: Sequence[tuple[str, ...]],
    shared: dict[tuple[str, ...], bool],
    seen: Counter[Source],
    agreed: Counter[Source],
) -> None:
    """A source reporting one issue twice (a bot repeating its comment, one tool's output
    read twice) is one finding of it, not two: take the repeats out of the counts."""
    for members, bots in zip(clusters, bots_of, strict=True):
        if len(members) == 1 or len(members) == len(bots):  # no source can repeat
            continue
        sources = list(map(source_of, members))
        if len(set(sources)) == len(sources):
            continue
        for source, count in Counter(sources).items():
            if count > 1:
                seen[source] -= count - 1
                if shared[bots]:
                    agreed[source] -= count - 1


class _Evidence:
    """What the input shows of the sources the profile does not know."""

    def __init__(
        self,
        seen: Counter[Source],
        agreed: Counter[Source],
        stated: dict[Source, _Stated],
        family: dict[str, str],
        profile: Profile,
        met: set[Source],
    ) -> None:
        kinds = _family_kinds(stated, family)
        self.agreed = agreed
        self.stated = stated
        self.tools = _tool_means(stated)
        # corroboration was possible where it happened, where another family met the
        # source on a line, or where another family reports the same kind of issue
        self.possible = {
            source: agreed[source] > 0
            or source in met
            or _corroborable(stated[source].example, family, kinds)
            for source in seen
        }
        self.prior = _population_mean(profile)
        self.bots = _bot_estimates(seen, agreed, self.possible, self.prior)

    def estimate(self, source: Source, count: int, bot_entry: SourceReliability | None) -> Estimate:
        """A source's reliability from agreement where it was possible, else its prior;
        ranked by what its tool states (see the module)."""
        bot, rule = source
        said, (confidence, level) = self.stated[source], self.tools[bot]
        shift = _log_ratio(said.confidence, confidence)
        if self.possible[source]:
            agreed = self.agreed[source]
            # a rule starts from its bot, a bot from the mean bot
            base = self.bots.get(bot, self.prior) if rule else self.prior
            if bot_entry is not None:
                base = bot_entry.reliability
            mixed = (_mix(agreed, count) * count + base * PSEUDO_COUNT) / (count + PSEUDO_COUNT)
            origin = f"agreement in this input ({agreed}/{count} shared)"
            if abs(shift) > 1e-9:  # what the tool states ranks its rules, whatever the count
                mixed = _shifted(mixed, shift)
                origin += f"; {shift:+.2f} log-odds for the confidence {bot} states of it"
            return Estimate(mixed, origin)
        if bot_entry is not None:
            value, origin = bot_entry.reliability, f"{bot} in the profile, {_ALONE}"
        elif said.confidence < 1.0:
            return Estimate(said.confidence, f"the confidence {bot} states, {_ALONE}")
        elif bot in self.bots:
            value, origin = self.bots[bot], f"{bot}'s other rules, {_ALONE}"
        else:
            value, origin = UNKNOWN, f"nothing known, {_ALONE}: ranked by {bot}'s levels"
            shift += (said.level - level) * LEVEL_LOG_ODDS
        if abs(shift) > 1e-9:
            value = _shifted(value, shift)
            origin += f"; {shift:+.2f} log-odds for what {bot} states of it against its average"
        return Estimate(value, origin)


_ALONE = "no other tool here reports this kind of issue"


def _stated(findings: Sequence[NormalizedFinding]) -> dict[Source, _Stated]:
    """Per source (in order of its first finding), the means of what its findings state,
    counted per distinct value; its example is its last finding."""
    values: Counter[tuple[str, str, float, int]] = Counter(map(_said, findings))
    sums: dict[Source, list[float]] = {}
    for (bot, rule, confidence, level), count in values.items():
        total = sums.setdefault((bot, rule), [0.0, 0.0, 0])
        total[0] += min(max(confidence, 0.0), 1.0) * count
        total[1] += level * count
        total[2] += count
    examples = _last_of_each(findings, len(sums))
    return {
        source: _Stated(total[0] / total[2], total[1] / total[2], int(total[2]), examples[source])
        for source, total in sums.items()
    }


def _last_of_each(
    findings: Sequence[NormalizedFinding], sources: int
) -> dict[Source, NormalizedFinding]:
    """The last finding of each source, the `sources` there are: read from the end, where
    most sources' last findings lie, and no further than needed."""
    last: dict[Source, NormalizedFinding] = {}
    for finding in reversed(findings):
        source = source_of(finding)
        if source not in last:
            last[source] = finding
            if len(last) == sources:
                break
    return last


# what a finding states of its source, in one flat tuple made in C: (bot, rule, confidence, level)
_said = attrgetter("bot", "rule_id", "confidence", "severity")


def _tool_means(stated: dict[Source, _Stated]) -> dict[str, tuple[float, float]]:
    """Per bot, the mean stated confidence and mean level over all its findings."""
    sums: dict[str, list[float]] = {}
    for source, said in stated.items():
        total = sums.setdefault(source[0], [0.0, 0.0, 0.0])
        total[0] += said.confidence * said.count
        total[1] += said.level * said.count
        total[2] += said.count
    return {bot: (total[0] / total[2], total[1] / total[2]) for bot, total in sums.items()}


def _family_kinds(stated: dict[Source, _Stated], family: dict[str, str]) -> dict[str, _Kinds]:
    kinds: dict[str, _Kinds] = {}
    for source, said in stated.items():
        finding = said.example
        own = kinds.setdefault(family.get(source[0], source[0]), _Kinds())
        if _reports_anything(finding):
            own.anything = True
            continue
        own.categories.add(finding.category)
        if finding.cwes:
            own.cwes.update(finding.cwes)
        else:
            own.without_cwe.add(finding.category)
    return kinds


def _reports_anything(finding: NormalizedFinding) -> bool:
    return not is_stated(finding) or (finding.category == GENERIC and not finding.cwes)


def _corroborable(
    finding: NormalizedFinding, family: dict[str, str], kinds: dict[str, _Kinds]
) -> bool:
    """Whether another family in this input reports the kind of issue `finding` is."""
    own = family.get(finding.bot, finding.bot)
    anything = _reports_anything(finding)
    for name, other in kinds.items():
        if name == own:
            continue
        if anything or other.anything:
            return True
        if finding.cwes:
            if other.cwes.intersection(finding.cwes) or finding.category in other.without_cwe:
                return True
        elif finding.category in other.categories:
            return True
    return False


def _log_ratio(confidence: float, mean: float) -> float:
    """How many log-odds a stated confidence lies above its tool's mean."""
    if confidence == mean:
        return 0.0
    return math.log(max(confidence, _FLOOR) / max(mean, _FLOOR))


def _shifted(probability: float, shift: float) -> float:
    return 1.0 / (1.0 + math.exp(-(_logit(probability) + shift)))


def _logit(probability: float) -> float:
    probability = _FLOOR if probability < _FLOOR else min(probability, _CEILING)
    return math.log(probability / (1.0 - probability))


def _population_mean(profile: Profile) -> float:
    """What an unknown bot is taken to be: the mean bot of the profile, else `PRIOR` (a
    finding nobody has corroborated yet)."""
    bots = [source.reliability for source in profile.sources if source.rule is None]
    return math.fsum(bots) / len(bots) if bots else PRIOR


def _bot_estimates(
    seen: Counter[Source],
    agreed: Counter[Source],
    possible: dict[Source, bool],
    prior: float,
) -> dict[str, float]:
    """Per bot, from the findings of its sources that another family could corroborate."""
    total: Counter[str] = Counter()
    shared: Counter[str] = Counter()
    for source, count in seen.items():
        if possible[source]:
            total[source[0]] += count
            shared[source[0]] += agreed[source]
    return {
        bot: (_mix(shared[bot], count) * count + prior * PSEUDO_COUNT) / (count + PSEUDO_COUNT)
        for bot, count in total.items()
    }


def _mix(agreed: int, count: int) -> float:
    return (agreed * AGREED + (count - agreed) * LONE) / count


def _profile_origin(entry: SourceReliability, profile: Profile) -> str:
    where = entry.origin or profile.origin or "profile"
    return f"profile {profile.name}: {where}" if profile.name else where
