"""Versioned migrations on both backends: applied once, refused when newer, all or nothing."""

from __future__ import annotations

import pytest

from review_quorum.history import (
    MIGRATIONS,
    HistoryError,
    connect,
    current_version,
    migrate,
    open_history,
)
from review_quorum.history.schema import Migration

TABLES = [
    "comment_findings",
    "comments",
    "findings",
    "members",
    "pull_requests",
    "repositories",
    "run_outcomes",
    "runs",
    "schema_version",
    "sync_progress",
    "triage",
]


def tables(target: str) -> list[str]:
    database = connect(target)
    try:
        if database.dialect == "sqlite":
            rows = database.rows("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            rows = database.rows(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = current_schema()"
            )
    finally:
        database.close()
    return sorted(name for (name,) in rows)


def test_a_new_database_gets_every_migration_once(db_target: str) -> None:
    database = connect(db_target)
    try:
        assert migrate(database) == [m.version for m in MIGRATIONS]
        assert migrate(database) == []
        assert current_version(database) == MIGRATIONS[-1].version
        described = database.rows("SELECT version, description FROM schema_version")
        assert described == [(m.version, m.description) for m in MIGRATIONS]
    finally:
        database.close()
    assert set(TABLES) <= set(tables(db_target))


def test_a_database_newer_than_the_code_is_refused(db_target: str) -> None:
    open_history(db_target).close()
    database = connect(db_target)
    try:
        with database.transaction():
            database.execute(
                "INSERT INTO schema_version (version, description, applied_at)"
                " VALUES (999, 'from the future', '2030-01-01T00:00:00Z')"
            )
        with pytest.raises(HistoryError, match="schema version 999, newer than this"):
            migrate(database)
    finally:
        database.close()


def test_a_failing_migration_changes_nothing(db_target: str) -> None:
    database = connect(db_target)
    broken = Migration(
        1,
        "half of it works",
        ("CREATE TABLE first_half (id {id})", "CREATE TABLE broken (oops NOT A TYPE ,,)"),
    )
    try:
        with pytest.raises(HistoryError, match="history database"):
            migrate(database, (broken,))
        assert current_version(database) == 0
    finally:
        database.close()
    assert tables(db_target) == ["schema_version"]


def test_a_later_migration_applies_on_top_of_an_existing_database(db_target: str) -> None:
    first = Migration(1, "one table", ("CREATE TABLE one (id {id}, name TEXT)",))
    second = Migration(2, "a column more", ("ALTER TABLE one ADD COLUMN extra TEXT",))
    database = connect(db_target)
    try:
        assert migrate(database, (first,)) == [1]
        with database.transaction():
            database.execute("INSERT INTO one (name) VALUES ('kept')")
        assert migrate(database, (first, second)) == [2]
        assert database.rows("SELECT name, extra FROM one") == [("kept", None)]
    finally:
        database.close()
