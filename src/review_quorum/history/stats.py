"""`quorum stats`: per bot and per rule, how many comments, how many duplicates, how many acted on.

Everything is counted by the database (GROUP BY over the stored findings, the outcome
rule compiled to SQL), so a million stored comments cost a few aggregate queries. A
finding is a *duplicate* when the consensus engine put it in one cluster with another
bot's finding on the same pull request; two bots *agree* on each such cluster they share.
The *addressed rate* is addressed / (addressed + dismissed): unknown outcomes (open pull
requests, closed ones with no signal) are left out. A bot with at least `IGNORED_MIN`
decided findings and an addressed rate below `IGNORED_RATE` is flagged as mostly ignored.
Each bot's and rule's reliability is the figure `calibrate` (and `review --db`) gives it,
empirical Bayes over the shipped profile (`history.rates.rate` sets it), with the 95%
interval of its posterior and the number of outcomes behind it; under `THIN_MIN` it is
marked thin.
Synced comments and recorded runs are counted together (`facts`); a recorded finding is
counted once per pull request, with the plan's disposition, the run's origin, and the
number of runs it appeared in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import msgspec

from review_quorum.history.database import Database
from review_quorum.history.facts import materialized, sightings_sql, synced_sql
from review_quorum.history.outcomes import Outcome, OutcomeRule
from review_quorum.history.show import Filters
from review_quorum.history.successive import WENT_AWAY

IGNORED_RATE = 0.25
IGNORED_MIN = 3
THIN_MIN = 10  # fewer decided outcomes than this: an estimate too thin to trust


class Reliability(msgspec.Struct, frozen=True):
    """A source's reliability as `calibrate` estimates it (empirical Bayes over the shipped
    profile) and the 95% interval of its Beta posterior."""

    estimate: float
    low: float
    high: float


class Tally(msgspec.Struct):
    """Counts for one bot, one rule of a bot, or one month of a bot."""

    comments: int = 0
    findings: int = 0
    duplicates: int = 0
    addressed: int = 0
    dismissed: int = 0
    unknown: int = 0
    went_away: int = 0
    runs: int = 0
    dispositions: dict[str, int] = msgspec.field(default_factory=dict)
    origins: dict[str, int] = msgspec.field(default_factory=dict)
    only_addressed: int = 0  # addressed findings no other bot raised
    pulls: int = 0  # pull requests it has findings on (bots only)
    # what `calibrate` gives the source, set by `history.rates.rate` (bots and rules with
    # decided outcomes only)
    reliability: Reliability | None = None

    @property
    def only(self) -> int:
        """Findings no other bot raised (not in a cluster with another bot's finding)."""
        return self.findings - self.duplicates

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
    def thin(self) -> bool:
        return self.decided < THIN_MIN

    @property
    def ignored(self) -> bool:
        rate = self.addressed_rate
        return rate is not None and self.decided >= IGNORED_MIN and rate < IGNORED_RATE

    def add(self, outcome: str, duplicate: bool, count: int) -> None:
        self.findings += count
        self.duplicates += count if duplicate else 0
        if outcome == Outcome.ADDRESSED.value:
            self.addressed += count
            self.only_addressed += 0 if duplicate else count
        elif outcome == Outcome.DISMISSED.value:
            self.dismissed += count
        elif outcome == WENT_AWAY:
            self.went_away += count
        else:
            self.unknown += count

    def add_where(self, origin: str, disposition: str, count: int) -> None:
        self.origins[origin] = self.origins.get(origin, 0) + count
        if disposition:
            self.dispositions[disposition] = self.dispositions.get(disposition, 0) + count


class Agreement(msgspec.Struct, frozen=True):
    """Two bots and the duplicate clusters they share."""

    bot: str
    other: str
    shared: int
    jaccard: float


class Stats(msgspec.Struct):
    bots: dict[str, Tally] = msgspec.field(default_factory=dict)
    rules: dict[tuple[str, str], Tally] = msgspec.field(default_factory=dict)
    months: dict[tuple[str, str], Tally] = msgspec.field(default_factory=dict)
    agreements: list[Agreement] = msgspec.field(default_factory=list)
    pull_requests: int = 0
    costs: dict[str, float] = msgspec.field(default_factory=dict)  # config `cost-per-run`

    @property
    def addressed(self) -> int:
        """Addressed findings of every bot."""
        return sum(tally.addressed for tally in self.bots.values())

    def cost_per_addressed(self, bot: str) -> float | None:
        """What one addressed finding of `bot` cost: its cost per run (configured) times its
        runs (the recorded runs it appeared in, else the pull requests it commented on: one
        review each), over its addressed findings; None when unknown."""
        cost, tally = self.costs.get(bot), self.bots[bot]
        runs = tally.runs or tally.pulls
        if cost is None or not runs or not tally.addressed:
            return None
        return cost * runs / tally.addressed

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
    """The statistics of the stored history matching `filters`, with outcomes by `rule`.

    Synced comments and recorded runs are counted together (`facts`): the synced ones
    straight from their tables, the recorded ones from a temporary table, and the counts
    added (the two share no comment and no cluster; pull requests are counted once).
    """
    stats = Stats()
    synced, synced_params = synced_sql(rule, filters)
    _count_synced(database, stats, synced, synced_params)
    shared = _shared(database, synced, synced_params)
    with materialized(database, filters) as table:
        recorded = f"SELECT * FROM {table}"
        _count_recorded(database, stats, recorded)
        for pair, count in _shared(database, recorded, []).items():
            shared[pair] += count
        stats.pull_requests = int(
            database.value(
                f"SELECT COUNT(*) FROM (SELECT pull FROM ({synced}) s"
                f" UNION SELECT pull FROM ({recorded}) r) pulls",
                synced_params,
            )
        )
        for bot, pulls in database.rows(
            f"SELECT bot, COUNT(DISTINCT pull) FROM (SELECT bot, pull FROM ({synced}) s"
            f" UNION SELECT bot, pull FROM ({recorded}) r) pulls GROUP BY bot",
            synced_params,
        ):
            stats.bots[bot].pulls = int(pulls)
    _count_runs(database, stats, filters)
    stats.agreements = [
        Agreement(bot, other, count, count / _union(stats.bots[bot], stats.bots[other], count))
        for (bot, other), count in sorted(shared.items())
    ]
    return stats


def _tallies(stats: Stats, bot: str, rule_id: str, month: str) -> tuple[Tally, Tally, Tally]:
    return (
        stats.bots.setdefault(bot, Tally()),
        stats.rules.setdefault((bot, rule_id), Tally()),
        stats.months.setdefault((bot, month), Tally()),
    )


def _count_synced(database: Database, stats: Stats, facts: str, params: list[Any]) -> None:
    """Synced findings in one aggregate: a comment counted at its first finding (for its
    bot and month) and at the first finding of each of its rules (for the rule)."""
    rows = database.rows(
        "SELECT bot, rule_id, SUBSTR(created_at, 1, 7), outcome, duplicate, COUNT(*),"
        f" SUM(first_of_comment), SUM(first_of_rule) FROM ({facts}) facts"
        " GROUP BY 3, 2, 1, 4, 5",
        params,
    )
    for bot, rule_id, month, outcome, is_duplicate, count, comments, rule_comments in rows:
        by_bot, by_rule, by_month = _tallies(stats, bot, rule_id, month)
        by_bot.comments += int(comments)
        by_month.comments += int(comments)
        by_rule.comments += int(rule_comments)
        for tally in (by_bot, by_rule, by_month):
            tally.add(outcome, bool(is_duplicate), int(count))
            tally.add_where("sync", "", int(count))


def _count_recorded(database: Database, stats: Stats, facts: str) -> None:
    """Recorded findings (a comment may be read by several members: counted distinct)."""
    rows = database.rows(
        "SELECT bot, rule_id, SUBSTR(created_at, 1, 7), outcome, duplicate, origin,"
        f" disposition, COUNT(*) FROM ({facts}) facts GROUP BY 1, 2, 3, 4, 5, 6, 7"
    )
    for bot, rule_id, month, outcome, is_duplicate, origin, disposition, count in rows:
        for tally in _tallies(stats, bot, rule_id, month):
            tally.add(outcome, bool(is_duplicate), int(count))
            tally.add_where(origin, disposition, int(count))
    for bot, comments in database.rows(
        f"SELECT bot, COUNT(DISTINCT comment) FROM ({facts}) facts GROUP BY bot"
    ):
        stats.bots[bot].comments += int(comments)
    for group, tallies in (("rule_id", stats.rules), ("SUBSTR(created_at, 1, 7)", stats.months)):
        for bot, other, comments in database.rows(
            f"SELECT bot, {group}, COUNT(DISTINCT comment) FROM ({facts}) facts GROUP BY 1, 2"
        ):
            tallies[(bot, other)].comments += int(comments)


def _count_runs(database: Database, stats: Stats, filters: Filters | None) -> None:
    """The recorded runs each bot and rule appeared in (persisted findings included)."""
    sightings, params = sightings_sql(filters)
    for bot, runs in database.rows(
        f"SELECT bot, COUNT(DISTINCT run) FROM ({sightings}) s GROUP BY bot", params
    ):
        if bot in stats.bots:
            stats.bots[bot].runs = int(runs)
    for bot, rule_id, runs in database.rows(
        f"SELECT bot, rule_id, COUNT(DISTINCT run) FROM ({sightings}) s GROUP BY 1, 2", params
    ):
        if (bot, rule_id) in stats.rules:
            stats.rules[(bot, rule_id)].runs = int(runs)


def _shared(database: Database, facts: str, params: list[Any]) -> defaultdict[tuple[str, str], int]:
    """Per pair of bots, the duplicate clusters both have a finding in.

    Each cluster's bots are joined as they come (a bot may repeat) and made distinct
    here, which saves the database a sort.
    """
    joined = database.joined("bot")
    clusters = (
        f"SELECT {joined} AS bots FROM ({facts}) facts WHERE duplicate = 1 GROUP BY pull, cluster"
    )
    shared: defaultdict[tuple[str, str], int] = defaultdict(int)
    for joined, count in database.rows(
        f"SELECT bots, COUNT(*) FROM ({clusters}) clusters GROUP BY bots", params
    ):
        for pair in _pairs(sorted(set(joined.split("\x1f")))):
            shared[pair] += int(count)
    return shared


def _pairs(members: list[str]) -> Iterable[tuple[str, str]]:
    for index, bot in enumerate(members):
        for other in members[index + 1 :]:
            yield bot, other


def _union(left: Tally, right: Tally, shared: int) -> int:
    return max(left.findings + right.findings - shared, shared, 1)
