"""Every stored finding as one row of facts, whatever it came from: the SQL `stats` counts over.

Two kinds of rows, with the same columns:

- *sync*: a finding of a bot comment read by `quorum history sync`, its outcome decided
  by the outcome rule over the comment's signals;
- *recorded*: one source's finding (a member) in a run recorded by `quorum review --db`
  (origin ``db``) or the Action (``action``). A finding reported by several successive runs
  of one pull request counts once, at its last sighting (members *persisted* into the next
  run are left out). Its outcome: explicit triage first (a false positive or a thumbs-down
  dismisses it; an acknowledgement, a won't-fix or a thumbs-up confirms it), then what the
  next run showed (`successive`: addressed; went away), then, for the last run of a merged
  pull request, not addressed (dismissed); otherwise unknown. A member read from a GitHub
  comment that the history has also synced counts once, as that comment.

- *verified*: a verdict recorded with a finding, as a finding of the source ``verifier``
  whose rule is the verdict (CONFIRMED, LIKELY, DISMISSED), with the outcome of the
  finding's first member: the verifier's own addressed and dismissed rates.

Columns: origin, owner, name, number, pull, bot, rule_id, created_at, outcome (addressed,
dismissed, went_away, unknown), duplicate (another source said the same), disposition
(the plan's: inline, summary, audit, dropped; empty for sync), comment (a key per bot
comment, NULL for an analyser's finding), cluster (a key per cluster of the pull
request), run (the run's id, NULL for sync). The two kinds never share a comment or a
cluster key (``c...`` for synced ones), so counts of each kind add up; only pull requests
are shared.

`stats` counts the synced rows straight from their tables (`synced_sql`, which also says
which row is its comment's first finding and the first of its rule, so distinct comments
need no DISTINCT), and the recorded rows, whose joins are dearer and read several times,
from a temporary table (`materialized`). A history of synced comments only thus costs a
few aggregate scans and no copy of itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from review_quorum.history.database import Database
from review_quorum.history.outcomes import OutcomeRule
from review_quorum.history.show import JOINED_COLUMNS, JOINS, Filters

FACTS_TABLE = "quorum_facts"
CONFIRMING = ("ack", "wont-fix", "thumbs-up")
REFUTING = ("false-positive", "thumbs-down")

_SYNCED = """SELECT 'sync' AS origin, r.owner AS owner, r.name AS name, p.number AS number,
    p.id AS pull, c.bot AS bot, f.rule_id AS rule_id, c.created_at AS created_at,
    {outcome} AS outcome, CASE WHEN f.cluster_bots > 1 THEN 1 ELSE 0 END AS duplicate,
    '' AS disposition, 'c' || CAST(c.id AS TEXT) AS comment,
    'c' || CAST(f.cluster AS TEXT) AS cluster, CAST(NULL AS BIGINT) AS run,
    CASE WHEN f.position = 0 OR NOT EXISTS (SELECT 1 FROM comment_findings e
        WHERE e.comment_id = f.comment_id AND e.position < f.position) THEN 1 ELSE 0 END
        AS first_of_comment,
    CASE WHEN f.position = 0 OR NOT EXISTS (SELECT 1 FROM comment_findings e
        WHERE e.comment_id = f.comment_id AND e.position < f.position
        AND e.rule_id = f.rule_id) THEN 1 ELSE 0 END AS first_of_rule{joins}"""

_TRIAGE = """SELECT pull_request_id, fingerprint,
    MAX(CASE WHEN action IN ({refuting}) THEN 1 ELSE 0 END) AS refuted,
    MAX(CASE WHEN action IN ({confirming}) THEN 1 ELSE 0 END) AS confirmed
    FROM triage GROUP BY pull_request_id, fingerprint"""

_RECORDED = """SELECT run.origin AS origin, r.owner AS owner, r.name AS name,
    p.number AS number, p.id AS pull, m.bot AS bot, m.rule_id AS rule_id,
    run.recorded_at AS created_at,
    {outcome} AS outcome,
    CASE WHEN fi.detected_by <> REPLACE(fi.detected_by, ',', '') THEN 1 ELSE 0 END
        AS duplicate,
    fi.disposition AS disposition,
    CASE WHEN m.comment_rest_id IS NULL THEN NULL ELSE m.comment_kind || ':'
        || CAST(m.comment_rest_id AS TEXT) END AS comment,
    'f' || CAST(fi.id AS TEXT) AS cluster, run.id AS run
{last_sightings}"""

# Each recorded finding at its last sighting (aliases m, fi, run, p, r, o, t), unless synced.
LAST_SIGHTINGS = """
    FROM members m JOIN findings fi ON fi.id = m.finding_id JOIN runs run ON run.id = fi.run_id
    JOIN pull_requests p ON p.id = run.pull_request_id
    JOIN repositories r ON r.id = p.repository_id
    LEFT JOIN run_outcomes o ON o.member_id = m.id
    LEFT JOIN ({triage}) t ON t.pull_request_id = p.id AND t.fingerprint = fi.fingerprint
    WHERE (o.outcome IS NULL OR o.outcome <> 'persisted')
    AND (m.comment_rest_id IS NULL OR NOT EXISTS (SELECT 1 FROM comments sc
        WHERE sc.pull_request_id = p.id AND sc.kind = m.comment_kind
        AND sc.rest_id = m.comment_rest_id))"""


# A verdict recorded with a finding (`verdicts`), as a finding of the source `verifier`
# whose rule is the verdict: it takes the outcome of the finding's first member, at the
# finding's last sighting, so `stats` gives the verifier addressed and dismissed rates per
# verdict (a CONFIRMED finding should be addressed, a DISMISSED one should not).
_VERIFIED = """SELECT run.origin AS origin, r.owner AS owner, r.name AS name,
    p.number AS number, p.id AS pull, 'verifier' AS bot, v.verdict AS rule_id,
    run.recorded_at AS created_at,
    {outcome} AS outcome,
    0 AS duplicate,
    fi.disposition AS disposition,
    CAST(NULL AS TEXT) AS comment,
    'f' || CAST(fi.id AS TEXT) AS cluster, run.id AS run
    FROM verdicts v JOIN findings fi ON fi.id = v.finding_id
    JOIN members m ON m.finding_id = fi.id AND m.position = 0
    JOIN runs run ON run.id = fi.run_id
    JOIN pull_requests p ON p.id = run.pull_request_id
    JOIN repositories r ON r.id = p.repository_id
    LEFT JOIN run_outcomes o ON o.member_id = m.id
    LEFT JOIN ({triage}) t ON t.pull_request_id = p.id AND t.fingerprint = fi.fingerprint
    WHERE (o.outcome IS NULL OR o.outcome <> 'persisted')"""


_SIGHTINGS = """SELECT r.owner AS owner, r.name AS name, p.number AS number, m.bot AS bot,
    m.rule_id AS rule_id, run.recorded_at AS created_at, run.id AS run
    FROM members m JOIN findings fi ON fi.id = m.finding_id JOIN runs run ON run.id = fi.run_id
    JOIN pull_requests p ON p.id = run.pull_request_id
    JOIN repositories r ON r.id = p.repository_id"""


def sightings_sql(filters: Filters | None = None) -> tuple[str, list[Any]]:
    """A subquery of every member of every recorded run (persisted ones too), filtered."""
    where, params = fact_filters(filters or Filters())
    return f"SELECT * FROM ({_SIGHTINGS}) sightings{where}", params


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f"'{value}'" for value in values)


RECORDED_OUTCOME = """CASE WHEN t.refuted = 1 THEN 'dismissed'
    WHEN t.confirmed = 1 THEN 'addressed'
    WHEN o.outcome = 'addressed' THEN 'addressed'
    WHEN o.outcome = 'went_away' THEN 'went_away'
    WHEN o.outcome IS NULL AND p.state = 'merged' THEN 'dismissed'
    ELSE 'unknown' END"""


def last_sightings() -> str:
    """The FROM ... WHERE of every recorded finding at its last sighting."""
    triage = _TRIAGE.format(refuting=_quoted(REFUTING), confirming=_quoted(CONFIRMING))
    return LAST_SIGHTINGS.format(triage=triage)


def synced_sql(rule: OutcomeRule, filters: Filters | None = None) -> tuple[str, list[Any]]:
    """A subquery of the synced findings matching `filters`, outcomes by `rule`.

    Beside the facts' columns: first_of_comment (1 for the first finding of its comment,
    so summing it counts comments) and first_of_rule (1 for the first of its rule in its
    comment). SQLite evaluates ``position = 0`` first, so a comment of one finding costs
    no lookup.
    """
    where, params = fact_filters(filters or Filters())
    synced = _SYNCED.format(outcome=rule.outcome_sql(), joins=JOINS)
    return f"SELECT * FROM ({synced}) synced{where}", params


def recorded_sql(filters: Filters | None = None) -> tuple[str, list[Any]]:
    """A subquery of the recorded findings (at their last sighting) and the verdicts recorded
    with them (as findings of the source ``verifier``) matching `filters`."""
    recorded = _RECORDED.format(outcome=RECORDED_OUTCOME, last_sightings=last_sightings())
    triage = _TRIAGE.format(refuting=_quoted(REFUTING), confirming=_quoted(CONFIRMING))
    recorded += " UNION ALL " + _VERIFIED.format(outcome=RECORDED_OUTCOME, triage=triage)
    where, params = fact_filters(filters or Filters())
    return f"SELECT * FROM ({recorded}) recorded{where}", params


@contextmanager
def materialized(database: Database, filters: Filters | None = None) -> Iterator[str]:
    """The recorded facts matching `filters` computed once into a temporary table; yields
    its name.

    Statistics read them several times (counts, distinct comments, agreement), so their
    joins are done once. The table lives in this connection only and is dropped after.
    """
    query, params = recorded_sql(filters)
    database.execute(f"DROP TABLE IF EXISTS {FACTS_TABLE}")
    # Created empty first: PostgreSQL takes no parameters in CREATE TABLE AS.
    empty, _ = recorded_sql(None)
    database.execute(f"CREATE TEMP TABLE {FACTS_TABLE} AS SELECT * FROM ({empty}) f WHERE 1 = 0")
    try:
        database.execute(f"INSERT INTO {FACTS_TABLE} {query}", params)
        yield FACTS_TABLE
    finally:
        database.execute(f"DROP TABLE IF EXISTS {FACTS_TABLE}")


def fact_filters(filters: Filters) -> tuple[str, list[Any]]:
    """`filters` over the facts table, whose columns need no table alias."""
    return filters.sql({key: key for key in JOINED_COLUMNS})
