"""The history store: what quorum decided on each run, and what reviewers did afterwards.

`open_history(target)` opens (creating and migrating as needed) the database at a SQLite
path or a PostgreSQL URL; `create=False` (reading only) refuses a SQLite file that is not
there instead of creating it. `record_run` stores a review run (`recording`);
`history.sync.sync` reads past pull requests' outcomes from GitHub (`sync`, imported on
its own since it needs the GitHub client); `finding_outcomes` labels each stored bot
finding by an `OutcomeRule` (`show`, `outcomes`); `compute_stats` counts them (`stats`)
and `calibrate` turns them into a reliability profile (`calibrate`).
"""

from __future__ import annotations

from review_quorum.history.database import (
    Database,
    HistoryError,
    connect,
    is_url,
    redact,
    writable,
)
from review_quorum.history.outcomes import DEFAULT_RULE, Outcome, OutcomeRule
from review_quorum.history.rates import calibrate
from review_quorum.history.recording import Recorded, RunRecord, record_run
from review_quorum.history.schema import MIGRATIONS, current_version, migrate, schema_is_current
from review_quorum.history.show import Filters, FindingOutcome, finding_outcomes
from review_quorum.history.stats import Stats, compute_stats


def open_history(target: str, *, create: bool = True) -> Database:
    """The history database at `target`, migrated to the current schema.

    Without `create` (a command that only reads) a SQLite file this process may not write
    (a read-only mount, another user's file) is opened read-only, so it can still be
    viewed; its schema must then be current, since it cannot be migrated there.
    """
    if not create and not is_url(target) and not writable(target):
        database = connect(target, create=False, read_only=True)
        try:
            if not schema_is_current(database):
                raise HistoryError(
                    f"history database {target} has an older schema than this review-quorum's "
                    "and cannot be upgraded where it is (read-only): run a command that "
                    "records (quorum history sync, or quorum review --db) where it is "
                    "writable first"
                )
        except BaseException:
            database.close()
            raise
        return database
    database = connect(target, create=create)
    try:
        migrate(database)
    except BaseException:
        database.close()
        raise
    return database


__all__ = [
    "DEFAULT_RULE",
    "MIGRATIONS",
    "Database",
    "Filters",
    "FindingOutcome",
    "HistoryError",
    "Outcome",
    "OutcomeRule",
    "Recorded",
    "RunRecord",
    "Stats",
    "calibrate",
    "compute_stats",
    "connect",
    "current_version",
    "finding_outcomes",
    "migrate",
    "open_history",
    "record_run",
    "redact",
]
