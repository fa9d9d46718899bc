"""`quorum stats`: per bot and per rule, how many comments, how many duplicates, how many acted on.

Everything is counted by the database (GROUP BY over the stored findings, the outcome
rule compiled to SQL), so a million stored comments cost a few aggregate queries. A
finding is a *duplicate* when the consensus engine put it in one cluster with another
bot's finding on the same pull request; two bots *agree* on each such cluster they share.
The *addressed rate* is addressed / (addressed + dismissed): unknown outcomes (open pull
requests, closed ones with no signal) are left out. A bot with at least `IGNORED_MIN`
decided findings and an addressed rate below `IGNORED_RATE` is flagged as mostly ignored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from review_quorum.history.database import Database
from review_quorum.history.outcomes import Outcome, OutcomeRule
from review_quorum.history.show import JOINS, Filters

IGNORED_RATE = 0.25
IGNORED_MIN = 3


@dataclass(slots=True)
class Tally:
    """Counts for one bot, one rule of a bot, or one month of a bot."""

    comments: int = 0
    findings: int = 0
    duplicates: int = 0
    addressed: int = 0
    dismissed: int = 0
    unknown: int = 0

    @property
    def decided(self) -> int:
        return self.addressed + self.dismissed

    @property
    def addressed_rate(self) -> float | None:
        return self.addressed / self.decided if self.decided else None

    @property
    def duplicate_rate(self) -> float | None:
        return self.duplicates / self.findings if self.findings else None

    @property
    def ignored(self) -> bool:
        rate = self.addressed_rate
        return rate is not None and self.decided >= IGNORED_MIN and rate < IGNORED_RATE

    def add(self, outcome: str, duplicate: bool, count: int) -> None:
        self.findings += count
        self.duplicates += count if duplicate else 0
        if outcome == Outcome.ADDRESSED.value:
            self.addressed += count
        elif outcome == Outcome.DISMISSED.value:
            self.dismissed += count
        else:
            self.unknown += count


@dataclass(frozen=True, slots=True)
class Agreement:
    """Two bots and the duplicate clusters they share."""

    bot: str
    other: str
    shared: int
    jaccard: float


@dataclass(slots=True)
class Stats:
    bots: dict[str, Tally] = field(default_factory=dict)
    rules: dict[tuple[str, str], Tally] = field(default_factory=dict)
    months: dict[tuple[str, str], Tally] = field(default_factory=dict)
    agreements: list[Agreement] = field(default_factory=list)
    pull_requests: int = 0

    @property
    def month_names(self) -> list[str]:
        return sorted({month for _, month in self.months})

    def ranked(self) -> list[tuple[str, Tally]]:
        """Bots by addressed rate, highest first (bots with no decided finding last)."""
        return sorted(
            self.bots.items(),
            key=lambda item: (item[1].addressed_rate is None, -(item[1].addressed_rate or 0)),
        )


def compute_stats(database: Database, rule: OutcomeRule, filters: Filters | None = None) -> Stats:
    """The statistics of the stored history matching `filters`, with outcomes by `rule`."""
    where, params = (filters or Filters()).sql()
    stats = Stats()
    duplicate = "CASE WHEN f.cluster_bots > 1 THEN 1 ELSE 0 END"
    # Every comment has exactly one finding at position 0: counting those counts comments.
    first = "SUM(CASE WHEN f.position = 0 THEN 1 ELSE 0 END)"
    rows = database.rows(
        f"SELECT c.bot, f.rule_id, SUBSTR(c.created_at, 1, 7), {rule.outcome_sql()},"
        f" {duplicate}, COUNT(*), {first}{JOINS}{where} GROUP BY 1, 2, 3, 4, 5",
        params,
    )
    for bot, rule_id, month, outcome, is_duplicate, count, comments in rows:
        stats.bots.setdefault(bot, Tally()).comments += int(comments)
        stats.months.setdefault((bot, month), Tally()).comments += int(comments)
        for tally in (
            stats.bots[bot],
            stats.rules.setdefault((bot, rule_id), Tally()),
            stats.months[(bot, month)],
        ):
            tally.add(outcome, bool(is_duplicate), int(count))
    _count_comments(database, stats, where, params)
    stats.agreements = _agreements(database, where, params, stats.bots)
    return stats


def _count_comments(database: Database, stats: Stats, where: str, params: list[object]) -> None:
    """Distinct comments per rule (a comment may hold findings of several rules)."""
    rows = database.rows(
        f"SELECT c.bot, f.rule_id, COUNT(DISTINCT c.id){JOINS}{where} GROUP BY 1, 2", params
    )
    for bot, rule_id, count in rows:
        stats.rules[(bot, rule_id)].comments = int(count)
    stats.pull_requests = int(database.value(f"SELECT COUNT(DISTINCT p.id){JOINS}{where}", params))


def _agreements(
    database: Database, where: str, params: list[object], bots: dict[str, Tally]
) -> list[Agreement]:
    """Per pair of bots, the duplicate clusters both have a finding in."""
    extra = " AND " if where else " WHERE "
    members = (
        f"SELECT DISTINCT c.pull_request_id AS pull, f.cluster AS cluster, c.bot AS bot"
        f"{JOINS}{where}{extra}f.cluster_bots > 1"
    )
    joined = database.joined("bot")
    clusters = f"SELECT {joined} AS bots FROM ({members}) members GROUP BY pull, cluster"
    shared: dict[tuple[str, str], int] = defaultdict(int)
    for joined, count in database.rows(
        f"SELECT bots, COUNT(*) FROM ({clusters}) clusters GROUP BY bots", params
    ):
        for pair in _pairs(sorted(set(joined.split("\x1f")))):
            shared[pair] += int(count)
    return [
        Agreement(bot, other, count, count / _union(bots[bot], bots[other], count))
        for (bot, other), count in sorted(shared.items())
    ]


def _pairs(members: list[str]) -> Iterable[tuple[str, str]]:
    for index, bot in enumerate(members):
        for other in members[index + 1 :]:
            yield bot, other


def _union(left: Tally, right: Tally, shared: int) -> int:
    return max(left.findings + right.findings - shared, shared, 1)
