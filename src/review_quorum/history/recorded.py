"""`quorum history show` for recorded runs: each source's finding at its last sighting.

Like the synced rows of `show`, each row has its signals and its outcome with the reason:
the run that last saw it and where the run came from, what the plan did with it, how many
other sources agreed, what the next run showed (`successive`) and any explicit triage.
Outcomes follow `facts.RECORDED_OUTCOME`, the same as `stats` counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from review_quorum.history.database import Database
from review_quorum.history.facts import RECORDED_OUTCOME, fact_filters, last_sightings
from review_quorum.history.outcomes import Outcome
from review_quorum.history.show import Filters, FindingOutcome, finding_outcome

_COLUMNS = """r.owner AS owner, r.name AS name, p.number AS number, m.bot AS bot,
    m.rule_id AS rule_id, m.file AS file, m.line AS line, m.title AS title,
    COALESCE(m.comment_url, '') AS url, run.recorded_at AS created_at, run.id AS run,
    run.origin AS origin, run.head_sha AS head, fi.disposition AS disposition,
    fi.detected_by AS detected_by, COALESCE(o.detail, '') AS detail,
    COALESCE(t.refuted, 0) AS refuted, COALESCE(t.confirmed, 0) AS confirmed,
    p.state AS state, {outcome} AS outcome, m.id AS member"""
_REASONS = {
    "refuted": "triaged: a false positive or a thumbs-down",
    "confirmed": "triaged: acknowledged, won't fix or a thumbs-up",
    "addressed": "gone at the next run, which changed its lines",
    "went_away": "gone at the next run, its lines unchanged (no evidence)",
    "merged": "still reported at the last run before the merge",
}


def recorded_outcomes(database: Database, filters: Filters | None = None) -> list[FindingOutcome]:
    """Each recorded finding at its last sighting matching `filters`, oldest first."""
    where, params = fact_filters(filters or Filters())
    query = f"SELECT {_COLUMNS.format(outcome=RECORDED_OUTCOME)}{last_sightings()}"
    rows = database.rows(
        f"SELECT * FROM ({query}) sightings{where}"
        " ORDER BY owner, name, number, created_at, member",
        params,
    )
    return [_row(row) for row in rows]


def _row(row: Sequence[Any]) -> FindingOutcome:
    run = row[10]
    origin, head, disposition, detected_by, detail, refuted, confirmed, state, went = row[11:20]
    others = len(str(detected_by).split(",")) - 1
    said = [f"recorded run {run} ({origin}) at {str(head)[:7]}", f"plan: {disposition}"]
    if others > 0:
        said.append(f"also said by {others} other source(s)")
    if detail:
        said.append(detail)
    said.append(f"pull request {state}")
    outcome = Outcome.UNKNOWN if went == "went_away" else Outcome(went)
    reason = _reason(went, bool(refuted), bool(confirmed), state)
    return finding_outcome(row, tuple(said), outcome, reason)


def _reason(outcome: str, refuted: bool, confirmed: bool, state: str) -> str:
    if refuted:
        return _REASONS["refuted"]
    if confirmed:
        return _REASONS["confirmed"]
    if outcome in ("addressed", "went_away"):
        return _REASONS[outcome]
    if outcome == "dismissed" and state == "merged":
        return _REASONS["merged"]
    return "no outcome yet"
