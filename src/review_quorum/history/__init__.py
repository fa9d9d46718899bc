"""The history store: what quorum decided on each run, and what reviewers did afterwards.

`open_history(target)` opens (creating and migrating as needed) the database at a SQLite
path or a PostgreSQL URL. `record_run` stores a review run (see `recording`).
"""

from __future__ import annotations

from review_quorum.history.database import Database, HistoryError, connect, redact
from review_quorum.history.recording import Recorded, RunRecord, record_run
from review_quorum.history.schema import MIGRATIONS, current_version, migrate


def open_history(target: str) -> Database:
    """The history database at `target`, migrated to the current schema."""
    database = connect(target)
    try:
        migrate(database)
    except BaseException:
        database.close()
        raise
    return database


__all__ = [
    "MIGRATIONS",
    "Database",
    "HistoryError",
    "Recorded",
    "RunRecord",
    "connect",
    "current_version",
    "migrate",
    "open_history",
    "record_run",
    "redact",
]
