"""One connection to the history database: SQLite (standard library) or PostgreSQL (psycopg 3).

`connect(target)` opens a SQLite file for a path and PostgreSQL for a ``postgresql://`` or
``postgres://`` URL (any other ``scheme://`` is refused); psycopg is imported only then, and
a missing driver is a `ConfigError` naming the extra to install. Only a writer
(``create=True``) creates a SQLite file and its folder, and it makes the new database aside
and links it into place, so no one ever sees it empty: a file that is not a SQLite database
(an empty one included) is refused, never overwritten. Statements are written once, in the SQL both
dialects accept, with ``?`` placeholders (turned into ``%s`` for psycopg). SQLite runs in WAL
mode with a busy timeout, and every write transaction starts with ``BEGIN IMMEDIATE`` so two
runs at once queue for the write lock instead of failing half-way; PostgreSQL uses its own
row locks and ``ON CONFLICT``. Both connections run in autocommit mode, so a read never holds
a transaction open; every write happens inside `transaction()` (an explicit ``BEGIN`` ...
``COMMIT``, rolled back on any error): all or nothing.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol

from review_quorum.errors import ConfigError, QuorumError

Dialect = Literal["sqlite", "postgresql"]
Row = tuple[Any, ...]
BUSY_TIMEOUT_SECONDS = 60.0
_URL_SCHEMES = ("postgresql://", "postgres://")
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@/]*@")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")  # two letters or more: not C:
SQLITE_HEADER = b"SQLite format 3\0"


class HistoryError(QuorumError):
    """The history database refused or failed an operation."""


class _Cursor(Protocol):
    rowcount: int

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...
    def executemany(self, sql: str, params: Sequence[Sequence[Any]]) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def fetchone(self) -> Any: ...
    def fetchmany(self, size: int) -> list[Any]: ...
    def close(self) -> None: ...


class Database:
    """A connection to one history database, in one of the two dialects."""

    def __init__(self, connection: Any, dialect: Dialect, name: str) -> None:
        self._connection = connection
        self.dialect: Dialect = dialect
        self.name = name
        self._depth = 0

    def close(self) -> None:
        self._connection.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block as one transaction (nested blocks join the outer one)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._begin()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self._end("ROLLBACK")
            raise
        self._depth = 0
        self._end("COMMIT")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns how many rows it changed."""
        cursor = self._run(sql, params)
        count = cursor.rowcount
        cursor.close()
        return int(count)

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        cursor = self._connection.cursor()
        try:
            cursor.executemany(self._sql(sql), rows)
        except Exception as err:
            raise self._error(err, sql) from err
        finally:
            cursor.close()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._run(sql, params)
        try:
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def stream(self, sql: str, params: Sequence[Any] = (), size: int = 10_000) -> Iterator[Row]:
        """The rows of a query, fetched `size` at a time."""
        cursor = self._run(sql, params)
        try:
            while batch := cursor.fetchmany(size):
                yield from (tuple(row) for row in batch)
        finally:
            cursor.close()

    def value(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None when there is no row."""
        cursor = self._run(sql, params)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()
        return None if row is None else row[0]

    def lock_schema(self) -> None:
        """Serialise schema changes between processes (inside a transaction)."""
        if self.dialect == "postgresql":
            self.execute("SELECT pg_advisory_xact_lock(7368519)")

    def joined(self, expression: str) -> str:
        """SQL aggregating `expression` over a group into one text, unit-separator joined."""
        if self.dialect == "postgresql":
            return f"string_agg({expression}, chr(31))"
        return f"group_concat({expression}, char(31))"

    def size_bytes(self) -> int:
        """How much space the database takes (pages in use, including the WAL's future)."""
        if self.dialect == "postgresql":
            return int(self.value("SELECT pg_database_size(current_database())"))
        pages = int(self.value("PRAGMA page_count"))
        return pages * int(self.value("PRAGMA page_size"))

    def _begin(self) -> None:
        self._run("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN", ()).close()

    def _end(self, statement: str) -> None:
        self._run(statement, ()).close()

    def _run(self, sql: str, params: Sequence[Any]) -> _Cursor:
        cursor: _Cursor = self._connection.cursor()
        try:
            cursor.execute(self._sql(sql), tuple(params))
        except Exception as err:
            cursor.close()
            raise self._error(err, sql) from err
        return cursor

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgresql" else sql

    def _error(self, err: Exception, sql: str) -> HistoryError:
        statement = " ".join(sql.split())[:120]
        return HistoryError(f"history database {self.name}: {err} (in: {statement})")


def connect(target: str, *, create: bool = True, read_only: bool = False) -> Database:
    """Open the history database at `target`: a file path, or a PostgreSQL URL.

    Without `create` (a command that only reads), a SQLite file that does not exist is a
    `ConfigError`, and nothing is created. `read_only` opens a SQLite file read-only
    (`_connect_read_only`), so a database on a read-only mount can be viewed.
    """
    if not target.isprintable():
        raise ConfigError(
            f"--db {redact(target)!r}: a history path or URL holds no newline or control character"
        )
    if target.startswith(_URL_SCHEMES):
        return _connect_postgresql(target)
    scheme = _SCHEME.match(target)
    if scheme:
        raise ConfigError(
            f"--db {redact(target)}: {scheme.group(1)}:// is not supported: the history is "
            "a SQLite file path or a postgresql:// URL"
        )
    path = Path(target)
    if create and not path.exists():
        _create_sqlite(path)
    _check_sqlite_file(path)
    return _connect_read_only(path) if read_only else _connect_sqlite(path)


def writable(target: str) -> bool:
    """Whether this process may write the SQLite file `target` and its folder (journals);
    True when there is no file (opening it then says so)."""
    path = Path(target)
    if not path.is_file():
        return True
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _connect_read_only(path: Path) -> Database:
    """`path` opened with SQLite's ``mode=ro`` (nothing is written, not even the WAL
    switch), plus ``immutable=1`` when its folder is not
    writable (SQLite could not make the shared-memory file a WAL reader needs) and no
    write-ahead log holds changes not yet in the file (immutable reads would miss them)."""
    uri = path.absolute().as_uri() + "?mode=ro"
    wal = Path(f"{path}-wal")
    if not os.access(path.parent, os.W_OK) and not (wal.exists() and wal.stat().st_size):
        uri += "&immutable=1"
    try:
        connection = sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
            check_same_thread=False,
        )  # fmt: skip
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(
            f"--db {path}: cannot open the history database read-only: {err}"
        ) from err
    database = Database(connection, "sqlite", str(path))
    try:
        database.value("SELECT COUNT(*) FROM sqlite_master")  # reads the schema: usable?
    except HistoryError as err:
        connection.close()
        raise ConfigError(
            f"--db {path}: cannot read the history database (opened read-only, as a command "
            f"that only reads does): {err}"
        ) from err
    return database


def is_url(target: str) -> bool:
    return target.startswith(_URL_SCHEMES)


def redact(target: str) -> str:
    """`target` with any password in a URL replaced, for messages."""
    return _PASSWORD.sub(r"\1***@", target)


_HOLDS = "SELECT (SELECT COUNT(*) FROM runs) + (SELECT COUNT(*) FROM comments)"


def remove_if_empty(target: str) -> bool:
    """Remove the SQLite history at `target` (and its journals) when it holds no run and no
    comment: what a run that created it and then failed leaves. Whether it was removed."""
    path = Path(target)
    if not path.is_file():
        return False
    try:
        connection = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
        try:
            held = connection.execute(_HOLDS).fetchone()[0]
        finally:
            connection.close()
    except sqlite3.OperationalError as err:  # no such table: created, never migrated
        held = 0 if "no such table" in str(err) else 1
    except sqlite3.Error:
        held = 1  # unreadable: leave it for the user to look at
    if held:
        return False
    for name in (f"{path}-wal", f"{path}-shm", str(path)):
        Path(name).unlink(missing_ok=True)
    return True


def _create_sqlite(path: Path) -> None:
    """An empty WAL database at `path`, made aside and linked into place (unless another
    process got there first): `path` never exists empty, so an empty file is not ours."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, aside = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
        os.close(handle)
    except OSError as err:
        raise ConfigError(f"--db {path}: cannot create the history database: {err}") from err
    try:
        connection = sqlite3.connect(aside, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode=WAL")  # writes the header
        finally:
            connection.close()
        _place(Path(aside), path)
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(f"--db {path}: cannot create the history database: {err}") from err
    finally:
        Path(aside).unlink(missing_ok=True)


def _place(aside: Path, path: Path) -> None:
    try:
        os.link(aside, path)
    except FileExistsError:
        pass  # another process created it first: both use theirs
    except OSError:  # a file system without hard links: a rename, which a racer may beat
        os.replace(aside, path)


def _check_sqlite_file(path: Path) -> None:
    """`path` holds a SQLite database; `ConfigError` naming it when it is absent or other."""
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        raise ConfigError(
            f"--db {path}: no history database there (recording a run with --db, or "
            "quorum history sync, creates one)"
        ) from None
    except IsADirectoryError:
        raise ConfigError(f"--db {path}: is a directory, not a history database") from None
    except OSError as err:
        raise ConfigError(f"--db {path}: cannot read: {err.strerror}") from err
    if header != SQLITE_HEADER:
        what = "an empty file" if not header else "a file that is not a SQLite database"
        raise ConfigError(
            f"--db {path}: {what}; quorum never overwrites a file with its history database"
        )


def _connect_sqlite(path: Path) -> Database:
    try:
        connection = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(f"--db {path}: cannot open the history database: {err}") from err
    database = Database(connection, "sqlite", str(path))
    try:
        _use_wal(database)
        database.execute("PRAGMA foreign_keys=ON")
        database.execute("PRAGMA synchronous=NORMAL")
    except HistoryError as err:
        connection.close()
        raise ConfigError(f"--db {path}: not a usable SQLite database: {err}") from err
    return database


def _use_wal(database: Database) -> None:
    """Switch to WAL; a switch racing another first opener fails fast, so it is retried."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while database.value("PRAGMA journal_mode") != "wal":
        try:
            database.execute("PRAGMA journal_mode=WAL")
        except HistoryError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _connect_postgresql(url: str) -> Database:
    name = redact(url)
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            f"--db {name}: PostgreSQL needs the optional driver: "
            "pip install 'review-quorum[postgresql]'"
        ) from None
    try:
        connection = psycopg.connect(url, autocommit=True)
    except psycopg.Error as err:
        message = str(err).replace(url, name)
        raise ConfigError(f"--db {name}: cannot connect: {message}") from err
    return Database(connection, "postgresql", name)
