"""Per-finding confidence (SPEC section 4, seed 000): score, band and posting policy.

A verified finding gets a deterministic 0..100 score from its verifier verdict, evidence
strength, context completeness and drafter/verifier severity concordance, a band, and a
disposition (inline, summary, audit, dropped) with a reason naming the rule that decided
it. Every combination of inputs is finite, so the score and placement of each combination
are computed once per posting threshold into a lookup table keyed by enum tuples; scoring
a finding is one dictionary lookup, and a million findings are scored by C-level maps
with no Python loop body per finding. The vocabulary and record validation live in
`verdicts`, the bands and thresholds in `bands`, the posting rules, the cap and the
assessment in `posting`; this module re-exports them, and the package re-exports this
module, so that `review_quorum.scoring.confidence` is the one import. Everything here is
pure: no files, no output, no exit status.
"""

from __future__ import annotations

import collections
import enum
import functools
import itertools
import operator
from collections.abc import Callable, Hashable, Iterable
from typing import NamedTuple

import msgspec
from msgspec.structs import replace

from review_quorum.errors import FindingError, shown
from review_quorum.scoring.confidence.bands import (
    Band,
    band_for,
    resolve_post_threshold,
)
from review_quorum.scoring.confidence.posting import (
    DEFAULT_COMMENT_CAP,
    Disposition,
    PostingRule,
    apply_cap,
    place,
)
from review_quorum.scoring.confidence.verdicts import (
    ENUM_FIELDS,
    SEVERITY_RANK,
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    Verdict,
    VerifierSeverity,
    allowed_values,
)

__all__ = [
    "BASE_POINTS",
    "CONCORDANCE_POINTS",
    "CONTEXT_POINTS",
    "EVIDENCE_POINTS",
    "Breakdown",
    "ConfidenceResult",
    "ScoreGate",
    "ScoreReport",
    "ScoredFinding",
    "score_finding",
    "score_findings",
    "severity_distance",
]


class ScoreGate(enum.StrEnum):
    """Why a finding scored 0 without being scored: out of scope, or dismissed."""

    SCOPE = "scope"
    DISMISSED = "dismissed"


BASE_POINTS = {Verdict.CONFIRMED: 70, Verdict.LIKELY: 40}
EVIDENCE_POINTS = {
    EvidenceStrength.DIRECT: 18,
    EvidenceStrength.CIRCUMSTANTIAL: 8,
    EvidenceStrength.SPECULATIVE: -4,
}
CONTEXT_POINTS = {
    ContextCompleteness.FULL: 12,
    ContextCompleteness.PARTIAL: 4,
    ContextCompleteness.NONE: -10,
}
CONCORDANCE_POINTS = {0: 5, 1: 0, 2: -8}


class Breakdown(msgspec.Struct, frozen=True):
    """How a score was reached; a gated finding has subtotal and concordance 0."""

    subtotal: int
    concordance: int
    severity_distance: int
    gate: ScoreGate | None


class ConfidenceResult(msgspec.Struct, frozen=True):
    """The score, band and placement of one finding.

    `rank` is the comment cap's ordering key, higher first: (score, CONFIRMED over LIKELY,
    subtotal, evidence points, context points). `order` packs `rank` into one integer with
    the same ordering, so that sorting a million findings compares integers. Results are
    shared: every finding with the same inputs gets the same object.
    """

    score: int
    band: Band
    disposition: Disposition
    forced: bool
    rule: PostingRule
    reason: str
    breakdown: Breakdown
    rank: tuple[int, int, int, int, int]
    order: int


class ScoredFinding(NamedTuple):
    """One input with its result; `position` is the input's index in the input sequence.

    A NamedTuple rather than a frozen dataclass: a report builds one per finding, a
    million at a time, and a tuple is built in C without running a Python `__init__`.
    """

    position: int
    input: FindingInput
    result: ConfidenceResult


class ScoreReport(msgspec.Struct, frozen=True):
    """Every finding in input order, and the four posting groups.

    `inline` lists forced findings first, then the rest, each by rank; `summary` is by
    rank; `audit` and `dropped` keep input order.
    """

    findings: tuple[ScoredFinding, ...]
    inline: tuple[ScoredFinding, ...]
    summary: tuple[ScoredFinding, ...]
    audit: tuple[ScoredFinding, ...]
    dropped: tuple[ScoredFinding, ...]
    post_threshold: int
    comment_cap: int


def severity_distance(drafter: VerifierSeverity, verifier: VerifierSeverity) -> int:
    return abs(SEVERITY_RANK[drafter] - SEVERITY_RANK[verifier])


TableKey = tuple[
    Verdict,
    EvidenceStrength,
    ContextCompleteness,
    VerifierSeverity,
    VerifierSeverity,
    Category,
    bool,
    bool,
]


def _compute(key: TableKey, post_threshold: int) -> ConfidenceResult:
    verdict, evidence, context, drafter, verifier, category, in_diff, in_changed = key
    distance = severity_distance(drafter, verifier)
    gate = None if in_diff and in_changed else ScoreGate.SCOPE
    if gate is None and verdict is Verdict.DISMISSED:
        gate = ScoreGate.DISMISSED
    subtotal = concordance = 0
    if gate is None:
        subtotal = BASE_POINTS[verdict] + EVIDENCE_POINTS[evidence] + CONTEXT_POINTS[context]
        concordance = CONCORDANCE_POINTS[distance]
    score = min(max(subtotal + concordance, 0), 100)
    placement = place(
        in_diff=in_diff,
        in_changed_code=in_changed,
        verdict=verdict,
        category=category,
        verifier_severity=verifier,
        score=score,
        post_threshold=post_threshold,
    )
    confirmed = int(verdict is Verdict.CONFIRMED)
    rank = (score, confirmed, subtotal, EVIDENCE_POINTS[evidence], CONTEXT_POINTS[context])
    return ConfidenceResult(
        score=score,
        band=band_for(score),
        disposition=placement.disposition,
        forced=placement.forced,
        rule=placement.rule,
        reason=placement.reason,
        breakdown=Breakdown(subtotal, concordance, distance, gate),
        rank=rank,
        order=_pack(rank),
    )


class _Table(dict[Hashable, ConfidenceResult]):
    """Results by input combination at one threshold, each computed on first use."""

    def __init__(self, post_threshold: int) -> None:
        super().__init__()
        self.post_threshold = post_threshold
        # ids of the results the comment cap applies to (inline, not forced); a result
        # lives as long as its table, so its id stays unique.
        self.capped_ids: set[int] = set()

    def __missing__(self, key: Hashable) -> ConfidenceResult:
        if not (isinstance(key, tuple) and len(key) == len(_AXES)):
            raise KeyError(key)
        try:
            # Equal values count as the member they equal ("high" is HIGH, 1 is True),
            # whether or not the member's entry was computed first.
            canonical = tuple(
                axis[axis.index(value)] for value, axis in zip(key, _AXES, strict=True)
            )
        except ValueError:
            raise KeyError(key) from None
        result = self[key] = _compute(canonical, self.post_threshold)  # type: ignore[arg-type]
        if result.disposition is Disposition.INLINE and not result.forced:
            self.capped_ids.add(id(result))
        return result


_AXES: tuple[tuple[object, ...], ...] = (
    tuple(Verdict),
    tuple(EvidenceStrength),
    tuple(ContextCompleteness),
    tuple(VerifierSeverity),
    tuple(VerifierSeverity),
    tuple(Category),
    (True, False),
    (True, False),
)


def _pack(rank: tuple[int, int, int, int, int]) -> int:
    """`rank` as one integer with the same order (each part offset to be non-negative)."""
    score, confirmed, subtotal, evidence, context = rank
    return (
        (((score * 2 + confirmed) * 256 + subtotal + 128) * 64 + evidence + 32) * 64 + context + 32
    )


@functools.cache
def _table(post_threshold: int) -> _Table:
    """The (lazily filled) result table for one threshold; at most 6,804 entries."""
    return _Table(post_threshold)


def _invalid(item: FindingInput) -> FindingError:
    """The error for an input whose key is not in the table, naming the first bad field."""
    where = f"{item.file}:{item.line}"
    for name, kind in ENUM_FIELDS.items():
        value = getattr(item, name)
        if not isinstance(value, str) or value not in kind.__members__.values():
            return FindingError(
                f"{where}: {name}: {shown(value)} is not one of {allowed_values(kind)}"
            )
    flags = f"in_diff={item.in_diff!r}, in_changed_code={item.in_changed_code!r}"
    return FindingError(f"{where}: in_diff and in_changed_code must be booleans ({flags})")


def score_finding(item: FindingInput, *, post_threshold: object = None) -> ConfidenceResult:
    """The score, band and (pre-cap) placement of one finding."""
    table = _table(resolve_post_threshold(post_threshold))
    try:
        return table[_TABLE_KEY(item)]
    except (KeyError, TypeError):
        raise _invalid(item) from None


def score_findings(
    inputs: Iterable[FindingInput],
    *,
    post_threshold: object = None,
    comment_cap: int = DEFAULT_COMMENT_CAP,
) -> ScoreReport:
    """Score every input, place it, and apply the comment cap to non-forced inline ones."""
    if isinstance(comment_cap, bool) or not isinstance(comment_cap, int) or comment_cap < 0:
        raise ValueError(f"comment_cap must be a whole number >= 0, not {comment_cap!r}")
    threshold = resolve_post_threshold(post_threshold)
    items = list(inputs)
    table = _table(threshold)
    results = _results(items, table)
    _apply_comment_cap(results, comment_cap, table.capped_ids)
    # tuple.__new__ straight from C: a NamedTuple's own constructor is a Python function.
    rows = zip(itertools.count(), items, results)
    findings: list[ScoredFinding] = list(map(tuple.__new__, itertools.repeat(ScoredFinding), rows))
    groups = _group(findings, results)
    # Forced findings first, each part by rank; a stable sort keeps input order on ties.
    groups[Disposition.INLINE].sort(key=_INLINE_ORDER, reverse=True)
    groups[Disposition.SUMMARY].sort(key=_RANK, reverse=True)
    return ScoreReport(
        findings=tuple(findings),
        inline=tuple(groups[Disposition.INLINE]),
        summary=tuple(groups[Disposition.SUMMARY]),
        audit=tuple(groups[Disposition.AUDIT]),
        dropped=tuple(groups[Disposition.DROPPED]),
        post_threshold=threshold,
        comment_cap=comment_cap,
    )


_RANK: Callable[[ScoredFinding], int] = operator.attrgetter("result.order")
_INLINE_ORDER: Callable[[ScoredFinding], tuple[bool, int]] = operator.attrgetter(
    "result.forced", "result.order"
)
_ORDER: Callable[[ConfidenceResult], int] = operator.attrgetter("order")
_DISPOSITION: Callable[[ConfidenceResult], Disposition] = operator.attrgetter("disposition")
_TABLE_KEY: Callable[[FindingInput], Hashable] = operator.attrgetter(
    "verdict",
    "evidence_strength",
    "context_completeness",
    "drafter_severity",
    "verifier_severity",
    "category",
    "in_diff",
    "in_changed_code",
)


def _results(inputs: list[FindingInput], table: _Table) -> list[ConfidenceResult]:
    # The hot path runs in C: attrgetter builds each key and the table answers it; there
    # is no Python-level loop body per finding.
    try:
        return list(map(table.__getitem__, map(_TABLE_KEY, inputs)))
    except (KeyError, TypeError):
        for item in inputs:
            if _TABLE_KEY(item) not in table:
                raise _invalid(item) from None
        raise


def _apply_comment_cap(results: list[ConfidenceResult], cap: int, capped_ids: set[int]) -> None:
    """Rule 8, in place: non-forced inline results beyond the cap move to the summary.

    Written as chains of C-level maps over positions because, with a million findings,
    a Python loop body per candidate costs as much as all the scoring before it.
    """
    flags = map(capped_ids.__contains__, map(id, results))
    candidates = list(itertools.compress(range(len(results)), flags))
    if len(candidates) <= cap:
        return
    orders = dict(zip(candidates, map(_ORDER, map(results.__getitem__, candidates)), strict=True))
    _, over_cap = apply_cap(candidates, cap, orders.__getitem__)
    originals = list(map(results.__getitem__, over_cap))
    distinct = dict(zip(map(id, originals), originals, strict=True))
    variants = {key: _capped(result, cap) for key, result in distinct.items()}
    replacements = map(variants.__getitem__, map(id, originals))
    collections.deque(map(results.__setitem__, over_cap, replacements), maxlen=0)


def _group(
    findings: list[ScoredFinding], results: list[ConfidenceResult]
) -> dict[Disposition, list[ScoredFinding]]:
    """The findings of each disposition, in input order."""
    dispositions = list(map(_DISPOSITION, results))
    return {
        kind: list(itertools.compress(findings, map(kind.__eq__, dispositions)))
        for kind in Disposition
    }


def _capped(result: ConfidenceResult, cap: int) -> ConfidenceResult:
    reason = (
        f"rule 8 (comment cap): score {result.score} reaches the threshold but ranks below "
        f"the {cap} inline comment{'s' if cap != 1 else ''} the cap allows"
    )
    return replace(
        result, disposition=Disposition.SUMMARY, rule=PostingRule.COMMENT_CAP, reason=reason
    )
