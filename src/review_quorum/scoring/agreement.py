"""The consensus engine (SPEC section 3, seed 001): cluster findings, score agreement, gate.

The reference semantics are a greedy single pass in which every finding is compared with
the anchor (first member) of every earlier group. This module computes exactly that result
in near-linear time: groups are indexed by (file, category); lined anchors by line, so a
lined finding probes only the `2 * line_window + 1` lines around it, and compares titles
only when a lineless anchor is older than its best line match; and anchors' titles, which
findings without a line need, are compared one by one while a bucket is small and through
a `TitleIndex` once it is large (a prefix-filter set-similarity join: size filter, rarity
order, keys of several shared tokens, first match in group order), so a title comparison
only touches anchors that can possibly match, and the earliest group wins, exactly as in
the greedy pass.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from operator import attrgetter
from typing import Literal, TypeVar, cast

from review_quorum.errors import QuorumWarning, shown
from review_quorum.model import (
    MAX_BOTS,
    MAX_LINE,
    ConsensusFinding,
    ConsensusLevel,
    NormalizedFinding,
    Severity,
    check_line_window,
    distinct_bots,
    level_for,
)
from review_quorum.scoring.title_index import TitleIndex

CONFIRMED_FLOOR = 0.66
NEEDS_VERIFICATION_FLOOR = 0.33
FLOORS = (CONFIRMED_FLOOR, NEEDS_VERIFICATION_FLOOR)

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "if",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "should",
        "the",
        "this",
        "that",
        "to",
        "with",
        "would",
    ]
)
# Whole ASCII words of three or more characters that start with a letter or underscore.
_WORD = re.compile(r"\b[a-z_][a-z0-9_]{2,}", re.ASCII)
_NO_MATCH = sys.maxsize  # larger than any group index

Order = Literal["input", "canonical"]


def title_tokens(title: str) -> frozenset[str]:
    """The token set used for fuzzy title matching (SPEC 3.2)."""
    tokens = set(_WORD.findall(title.lower()))
    if not tokens.isdisjoint(STOPWORDS):
        tokens -= STOPWORDS
    # From a set, a frozenset is made at its size: a title of five to seven words takes
    # 472 bytes, where one grown word by word takes 728 (and the cost is the same)
    return frozenset(tokens)


def bucket_for_score(score: float) -> ConsensusLevel:
    """The consensus level of a score (lower edges inclusive)."""
    return level_for(score, FLOORS)


def must_address(
    consensus: Iterable[ConsensusFinding],
    *,
    min_level: ConsensusLevel = ConsensusLevel.CONFIRMED,
) -> list[ConsensusFinding]:
    """The findings at or above `min_level`, in order: what the CI gate blocks on."""
    floor = min_level.rank
    return [finding for finding in consensus if finding.level.rank >= floor]


def blocks(
    consensus: Iterable[ConsensusFinding],
    *,
    min_level: ConsensusLevel = ConsensusLevel.CONFIRMED,
) -> bool:
    """Whether the CI gate fails: `must_address` is not empty. It stops at the first such
    finding, which output order puts first (a million findings are not read again)."""
    floor = min_level.rank
    return any(finding.level.rank >= floor for finding in consensus)


def canonical_key(finding: NormalizedFinding) -> tuple[object, ...]:
    """A total order on findings, so canonical ordering does not depend on input order."""
    evidence = finding.evidence
    return (
        evidence.file,
        finding.category,
        evidence.line is None,
        evidence.line or 0,
        finding.title,
        -finding.severity,
        finding.bot,
        finding.finding_id,
        finding.confidence,
        evidence.end_line or 0,
        evidence.snippet,
        evidence.symbol,
    )


def compute_consensus(
    findings: Iterable[NormalizedFinding],
    *,
    bots_ran: int | None = None,
    line_window: int = 3,
    title_overlap: float = 0.5,
    order: Order = "input",
) -> list[ConsensusFinding]:
    """Cluster `findings` into consensus findings, scored and ordered per SPEC 3."""
    check_line_window(line_window)
    if not math.isfinite(title_overlap):
        raise ValueError(f"title_overlap must be a finite number, not {title_overlap!r}")
    if order not in ("input", "canonical"):
        raise ValueError(f"order must be 'input' or 'canonical', not {order!r}")
    items = list(findings)
    if order == "canonical":
        items.sort(key=canonical_key)
    ran = resolve_bots_ran(items, bots_ran)
    groups = _cluster(items, line_window, title_overlap)
    consensus = _summarise(groups, ran)
    sort_for_output(consensus)
    return consensus


def resolve_bots_ran(findings: Sequence[NormalizedFinding], bots_ran: int | None) -> int:
    """The denominator of agreement: explicit, else the distinct bots seen; at least 1."""
    seen = len(distinct_bots(findings))
    if bots_ran is None:
        return max(seen, 1)
    if isinstance(bots_ran, bool) or not isinstance(bots_ran, int) or not 0 <= bots_ran <= MAX_BOTS:
        raise ValueError(
            f"bots_ran must be a whole number from 0 to {MAX_BOTS}, not {shown(bots_ran)}"
        )
    if bots_ran < seen:
        warnings.warn(
            f"bots_ran={bots_ran} is lower than the {seen} distinct bots in the input; "
            "agreement is capped at 100%",
            QuorumWarning,
            stacklevel=3,
        )
    return max(bots_ran, 1)


def sort_for_output(consensus: list[ConsensusFinding], *, by_priority: bool = False) -> None:
    """Sort in output order (SPEC 3.7): score desc, severity desc, file, line (none last).

    One stable sort on one number per finding that orders as the tuple key `(-score,
    -severity, file, line is None, line)` does: the sum of a weight for each part, the
    rank of its score among the distinct scores (highest first), its severity from the
    highest, the rank of its file among the distinct files and of its line among the
    distinct lines (none after every line), each rank counted in units of all the
    combinations of the parts after it. The weights are floats (compared fastest) while
    every sum is exact in a float (below 2**53), else integers.

    `by_priority` (the reliability model, when a finding states a priority; the agreement
    model's order is SPEC 3.7's exactly) puts the priority its tools state (a member's
    highest, `NormalizedFinding.priority`) between severity and file: of two findings tied
    on score and severity, the one its tool ranks higher comes first, and findings with no
    stated priority after those with one.
    """
    scores = sorted(set(map(_score, consensus)), reverse=True)  # -0.0, 0.0: one score
    files = sorted(set(map(_file, consensus)))
    if by_priority:
        _sort_by_priority(consensus, scores, files)
        return
    lines: set[int | None] = set(map(_line, consensus))
    lines.discard(None)
    lines_none_last: list[int | None] = [*sorted(cast(set[int], lines)), None]
    line_span = len(lines_none_last)
    file_span = len(files) * line_span
    severity_span = len(Severity) * file_span
    number = float if len(scores) * severity_span < 2**53 else int
    score_weight = _ranks(scores, number(severity_span))
    severity_weight = [number(file_span) * (max(Severity) - severity) for severity in Severity]
    file_weight = _ranks(files, number(line_span))
    line_weight = _ranks(lines_none_last, number(1))

    def key(finding: ConsensusFinding) -> float:
        return (
            score_weight[finding.consensus_score]
            + severity_weight[finding.severity]
            + file_weight[finding.file]
            + line_weight[finding.line]
        )

    consensus.sort(key=key)


def _ranks(values: list[_Ranked], unit: _Number) -> dict[_Ranked, _Number]:
    """Each of `values` (distinct, in order) to its position times `unit`."""
    return {value: unit * rank for rank, value in enumerate(values)}


def _sort_by_priority(
    consensus: list[ConsensusFinding], scores: list[float], files: list[str]
) -> None:
    """`sort_for_output` with each finding's highest stated priority after its severity
    (no priority, -1, after every stated one); `scores` and `files` are the distinct ones,
    in order."""
    score_rank, file_rank = _ranks(scores, 1), _ranks(files, 1)
    top, last = max(Severity), MAX_LINE + 1

    def key(finding: ConsensusFinding) -> tuple[int, int, float, int, int]:
        line = finding.line
        return (
            score_rank[finding.consensus_score],
            top - finding.severity,
            -max(map(_priority, finding.members)),
            file_rank[finding.file],
            last if line is None else line,
        )

    consensus.sort(key=key)


_score, _file, _line = attrgetter("consensus_score"), attrgetter("file"), attrgetter("line")
_Ranked = TypeVar("_Ranked", bound=Hashable)
_Number = TypeVar("_Number", int, float)
_priority = attrgetter("priority")


Spread = tuple[NormalizedFinding | None, int | None, str, Severity, float]
# A group's members in input order: a list, or the finding itself while it is alone (a
# million findings make about as many groups of one, and a list of one takes 64 bytes)
Group = list[NormalizedFinding] | NormalizedFinding


def spread(members: Sequence[NormalizedFinding]) -> Spread:
    """One pass over a cluster's members, for both models' summaries: the first member
    with a line and the smallest line (None and None when no member has one), the longest
    title, the highest severity and the highest confidence (the first of each on ties)."""
    first = members[0]
    lined, line = None, None
    title, severity, confidence = first.title, first.severity, first.confidence
    for member in members:
        member_line = member.evidence.line
        if member_line is not None:
            if lined is None:
                lined, line = member, member_line
            elif member_line < line:  # type: ignore[operator]  # set with `lined`
                line = member_line
        if len(member.title) > len(title):
            title = member.title
        if member.severity > severity:
            severity = member.severity
        if member.confidence > confidence:
            confidence = member.confidence
    return lined, line, title, severity, confidence


def _summarise(groups: list[Group], bots_ran: int) -> list[ConsensusFinding]:
    """Each group's consensus finding, in one loop rather than a call per group (a million
    findings make up to a million groups). Groups of one finding of a bot share
    `alone[bot]`: their `detected_by` and agreement ratio (a million findings alive with the
    output, and as many groups of one)."""
    confirmed, needs_verification = FLOORS  # level_for, inline
    alone: dict[str, tuple[tuple[str], float]] = {}
    consensus: list[ConsensusFinding] = []
    members: tuple[NormalizedFinding, ...]
    detected_by: tuple[str, ...]
    for group in groups:
        if not isinstance(group, list):  # a group of one finding (most of them), held alone
            anchor, members = group, (group,)
            shared = alone.get(anchor.bot)
            if shared is None:  # one bot of at least one: the ratio is at most 1
                shared = alone[anchor.bot] = ((anchor.bot,), 1 / bots_ran)
            detected_by, ratio = shared
            line, title = anchor.evidence.line, anchor.title
            severity, confidence = anchor.severity, anchor.confidence
        else:
            anchor, members = group[0], tuple(group)
            detected_by = tuple(sorted({member.bot for member in members}))
            _, line, title, severity, confidence = spread(members)
            ratio = len(detected_by) / bots_ran
            ratio = 1.0 if ratio > 1.0 else ratio
        confidence = 0.0 if confidence < 0.0 else 1.0 if confidence > 1.0 else confidence
        score = ratio * confidence
        if score >= confirmed:
            level = ConsensusLevel.CONFIRMED
        elif score >= needs_verification:
            level = ConsensusLevel.NEEDS_VERIFICATION
        else:
            level = ConsensusLevel.UNVERIFIED
        # Positional on purpose: keywords cost a third more.
        consensus.append(
            ConsensusFinding(
                anchor.evidence.file,
                line,
                anchor.category,
                title,
                severity,
                detected_by,
                bots_ran,
                ratio,
                confidence,
                score,
                level,
                members,
            )
        )
    return consensus


class _Titles:
    """Token sets of titles, each computed once per distinct title."""

    __slots__ = ("_tokens", "threshold")

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._tokens: dict[str, frozenset[str]] = {}

    def tokens(self, title: str) -> frozenset[str]:
        tokens = self._tokens.get(title)
        if tokens is None:
            tokens = self._tokens[title] = title_tokens(title)
        return tokens


class _Bucket:
    """The groups of one (file, category): lined anchors by line, and anchors' titles.

    A million findings make a hundred thousand buckets, most of which never see a finding
    without a line: the title indexes are made only when one is needed.
    """

    __slots__ = ("by_line", "first_lineless", "groups", "lineless", "titled")

    def __init__(self) -> None:
        self.first_lineless = _NO_MATCH
        self.by_line: dict[int, int] = {}
        self.groups: list[int] = []  # every anchor's group, in order
        self.titled: TitleIndex | None = None  # every anchor, for findings without a line
        self.lineless: TitleIndex | None = None  # lineless anchors, for findings with one

    def add(self, group: int, line: int | None, title: str, titles: _Titles) -> None:
        self.groups.append(group)
        if self.titled is not None:
            self.titled.add(group, title)
        if line is not None:
            self.by_line.setdefault(line, group)
            return
        if self.lineless is None:
            self.lineless = TitleIndex(titles.threshold, titles.tokens)
            self.first_lineless = group
        self.lineless.add(group, title)

    def every_anchor(self, titles: _Titles, title_of: Callable[[int], str]) -> TitleIndex:
        """The index of every anchor's title, made on first use."""
        if self.titled is None:
            self.titled = TitleIndex(titles.threshold, titles.tokens)
            for group in self.groups:
                self.titled.add(group, title_of(group))
        return self.titled


def _cluster(findings: Sequence[NormalizedFinding], window: int, threshold: float) -> list[Group]:
    groups: list[Group] = []
    buckets: dict[tuple[str, str], _Bucket] = {}
    titles = _Titles(threshold)
    titles_always_match = threshold <= 0
    span = 2 * window + 1

    def title_of(group: int) -> str:
        members = groups[group]
        return (members[0] if isinstance(members, list) else members).title

    for finding in findings:
        evidence = finding.evidence
        line = evidence.line
        key = (evidence.file, finding.category)
        bucket = buckets.get(key)
        target = _NO_MATCH
        if bucket is None:
            bucket = buckets[key] = _Bucket()
        elif titles_always_match:
            target = _match_when_titles_always_match(bucket, line, window)
        elif line is not None:
            # The hot path (`_nearest_lined`, inlined): probe the lines around `line`...
            by_line = bucket.by_line
            if span <= len(by_line):
                for candidate in range(line - window, line + window + 1):
                    group = by_line.get(candidate)
                    if group is not None and group < target:
                        target = group
            else:
                for anchor_line, group in by_line.items():
                    if group < target and -window <= anchor_line - line <= window:
                        target = group
            # ...then, only when one is older than the best line match, lineless anchors.
            if bucket.first_lineless < target:
                lineless = bucket.lineless
                assert lineless is not None  # a lineless anchor exists
                target = lineless.first_match(titles.tokens(finding.title), target)
        else:
            every = bucket.every_anchor(titles, title_of)
            target = every.first_match(titles.tokens(finding.title), _NO_MATCH)
        if target == _NO_MATCH:
            target = len(groups)
            groups.append(finding)  # a group of one is its finding, not a list (see Group)
            if line is not None and bucket.titled is None:  # bucket.add inline: most groups
                bucket.groups.append(target)
                bucket.by_line.setdefault(line, target)
            else:
                bucket.add(target, line, finding.title, titles)
        else:
            members = groups[target]
            if isinstance(members, list):
                members.append(finding)
            else:
                groups[target] = [members, finding]
    return groups


def _match_when_titles_always_match(bucket: _Bucket, line: int | None, window: int) -> int:
    """With title_overlap <= 0 every title comparison succeeds (Jaccard is never negative)."""
    if line is None:
        return bucket.groups[0]
    return min(_nearest_lined(bucket.by_line, line, window), bucket.first_lineless)


def _nearest_lined(by_line: dict[int, int], line: int, window: int) -> int:
    """The earliest group whose anchor line lies within `window` of `line`."""
    best = _NO_MATCH
    if 2 * window + 1 <= len(by_line):
        for candidate in range(line - window, line + window + 1):
            group = by_line.get(candidate)
            if group is not None and group < best:
                best = group
    else:
        for anchor_line, group in by_line.items():
            if group < best and -window <= anchor_line - line <= window:
                best = group
    return best
