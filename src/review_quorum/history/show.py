"""`quorum history show`: every stored bot finding with its signals and its labelled outcome.

The outcome is computed by the database from the stored signals with the rule in effect
(`OutcomeRule.clause_sql`), so a changed rule applies at once to the whole history, and
each row says which clause decided it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.history.database import Database
from review_quorum.history.outcomes import Outcome, OutcomeRule

JOINS = (
    " FROM comment_findings f JOIN comments c ON c.id = f.comment_id"
    " JOIN pull_requests p ON p.id = c.pull_request_id"
    " JOIN repositories r ON r.id = p.repository_id"
)


JOINED_COLUMNS = {
    "owner": "r.owner",
    "name": "r.name",
    "number": "p.number",
    "bot": "c.bot",
    "created_at": "c.created_at",
}


class Filters(msgspec.Struct, frozen=True):
    """Which part of the history to look at; None means any."""

    repository: str | None = None  # OWNER/NAME
    number: int | None = None
    bot: str | None = None
    since: str | None = None  # comments created on or after (ISO date)

    def sql(self, columns: Mapping[str, str] = JOINED_COLUMNS) -> tuple[str, list[Any]]:
        """The WHERE clause and its parameters, naming each filtered column as `columns`
        spells it (the joined tables' aliases by default)."""
        clauses: list[str] = []
        params: list[Any] = []
        if self.repository is not None:
            owner, _, name = self.repository.partition("/")
            clauses.append(f"{columns['owner']} = ? AND {columns['name']} = ?")
            params += [owner, name]
        for key, value in (("number", self.number), ("bot", self.bot)):
            if value is not None:
                clauses.append(f"{columns[key]} = ?")
                params.append(value)
        if self.since is not None:
            clauses.append(f"{columns['created_at']} >= ?")
            params.append(self.since)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


class FindingOutcome(msgspec.Struct, frozen=True):
    repository: str
    number: int
    bot: str
    rule_id: str
    file: str
    line: int | None
    title: str
    url: str
    created_at: str
    signals: tuple[str, ...]
    outcome: Outcome
    reason: str


_COLUMNS = (
    "r.owner, r.name, p.number, c.bot, f.rule_id, f.file, f.line, f.title, c.html_url,"
    " c.created_at, c.thread_resolved, c.resolved_by, f.lines_changed, f.changed_by,"
    " c.author_reply, c.reactions_up, c.reactions_down, c.minimized_reason,"
    " c.minimized_by_quorum, p.state, f.cluster_bots"
)


def finding_outcomes(
    database: Database, rule: OutcomeRule, filters: Filters | None = None
) -> list[FindingOutcome]:
    """The stored bot findings matching `filters`, oldest first, each with its outcome."""
    where, params = (filters or Filters()).sql()
    rows = database.rows(
        f"SELECT {_COLUMNS}, {rule.clause_sql()}{JOINS}{where}"
        " ORDER BY r.owner, r.name, p.number, c.created_at, c.kind, c.rest_id, f.position",
        params,
    )
    return [_outcome(row, rule) for row in rows]


def _outcome(row: Sequence[Any], rule: OutcomeRule) -> FindingOutcome:
    outcome, reason = rule.decided_by(int(row[-1]))
    return finding_outcome(row, signals(row[10:-1]), outcome, reason)


def finding_outcome(
    row: Sequence[Any], said: tuple[str, ...], outcome: Outcome, reason: str
) -> FindingOutcome:
    """A finding's outcome from a row that starts with `_COLUMNS`' first ten columns."""
    owner, name, number, bot, rule_id, file, line, title, url, created = row[:10]
    return FindingOutcome(
        repository=f"{owner}/{name}",
        number=int(number),
        bot=bot,
        rule_id=rule_id,
        file=file,
        line=line,
        title=title,
        url=url,
        created_at=created,
        signals=said,
        outcome=outcome,
        reason=reason,
    )


def signals(values: Sequence[Any]) -> tuple[str, ...]:
    """The stored signals of one finding as short phrases, in a fixed order."""
    resolved, resolved_by, changed, changed_by, reply, up, down = values[:7]
    minimized, by_quorum, state, cluster_bots = values[7:]
    said: list[str] = []
    if resolved:
        said.append(f"thread resolved by {resolved_by}" if resolved_by else "thread resolved")
    if changed:
        said.append(f"lines changed in {changed_by[:7]}")
    if reply:
        said.append(f"author {reply}" if reply != "replied" else "author replied")
    if up or down:
        said.append(f"reactions +{up}/-{down}")
    if minimized in ("wont-fix", "by-design"):
        said.append(f"thread closed as {minimized}")
    elif minimized:
        said.append(f"hidden as {minimized}")
    if by_quorum:
        said.append("hidden by quorum as a duplicate")
    if cluster_bots > 1:
        said.append(f"also said by {cluster_bots - 1} other bot(s)")
    said.append(f"pull request {state}")
    return tuple(said)
