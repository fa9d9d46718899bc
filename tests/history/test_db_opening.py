"""`--db` from the command line: always a value, reading never creates, other files refused."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import review_quorum.history as history_module
from history.history_support import HEAD
from review_quorum.cli import main
from review_quorum.history import MIGRATIONS, HistoryError, connect, migrate, open_history
from review_quorum.history import database as database_module

TARGET = ["--bots", "1", "--repo", "octo-org/widgets", "--pr", "7", "--head-sha", HEAD]
FINDING = {
    "bot": "bandit",
    "finding_id": "B608",
    "severity": "medium",
    "category": "security",
    "title": "Possible SQL injection through string-based query",
    "evidence": {"file": "app/db.py", "line": 10},
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "QUORUM_HISTORY_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def findings_file(tmp_path: Path, name: str = "findings.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps([FINDING]), encoding="utf-8")
    return str(path)


def test_db_takes_a_value_and_db_default_names_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", findings_file(tmp_path), *TARGET, "--db"]) == 2
    assert "--db: expected one argument" in capsys.readouterr().err
    assert main(["review", findings_file(tmp_path), "--db", "h.db", "--db-default"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert not (tmp_path / ".quorum").exists()


@pytest.mark.parametrize(
    ("content", "what"),
    [(b"", "an empty file"), (b'[{"bot": "x"}]', "a file that is not a SQLite database")],
)
def test_a_file_that_is_not_a_database_is_refused_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, what: str
) -> None:
    # `--db` once took an optional value: `--db nf.json` meant to be an input file
    other = tmp_path / "nf.json"
    other.write_bytes(content)
    argv = ["review", "--db", str(other), findings_file(tmp_path), *TARGET, "-o", "out.md"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"quorum: error: --db {other}: {what}; quorum never overwrites a file with its "
        "history database\n"
    )
    assert other.read_bytes() == content
    assert not (tmp_path / "out.md").exists()


READING = [
    ["stats"],
    ["calibrate"],
    ["history", "show"],
]


@pytest.mark.parametrize("command", READING)
@pytest.mark.parametrize("target", ["typo.db", "nonexistent/dir/h.db", None])
def test_reading_a_database_that_does_not_exist_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], target: str | None
) -> None:
    argv = [*command, "--db", target] if target else command
    assert main(argv) == 2
    named = target or ".quorum/history.db"
    assert capsys.readouterr().err == (
        f"quorum: error: --db {named}: no history database there (recording a run with "
        "--db, or quorum history sync, creates one)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [*READING, ["review", "f.json", *TARGET]])
def test_an_unsupported_url_scheme_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    findings_file(tmp_path, "f.json")
    assert main([*command, "--db", "mysql://user:secret@x/db"]) == 2
    assert capsys.readouterr().err == (
        "quorum: error: --db mysql://user:***@x/db: mysql:// is not supported: the history "
        "is a SQLite file path or a postgresql:// URL\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["f.json"]


def test_recording_creates_the_database_and_its_folder(tmp_path: Path) -> None:
    db = tmp_path / "new" / "dir" / "h.db"
    assert main(["review", findings_file(tmp_path), "--db", str(db), *TARGET, "-o", "o.md"]) == 0
    assert db.read_bytes().startswith(b"SQLite format 3\0")
    assert sorted(path.name for path in db.parent.iterdir()) == ["h.db"]  # nothing left aside
    assert main(["stats", "--db", str(db)]) == 0


def test_a_filter_that_matches_nothing_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    open_history("h.db").close()
    assert main(["stats", "--db", "h.db", "--repo", "octo-org/nothing", "--bot", "x"]) == 0
    assert capsys.readouterr().out == (
        "No bot finding in the history h.db matches --repo octo-org/nothing --bot x.\n"
    )
    assert main(["history", "show", "--db", "h.db", "--pr", "3"]) == 0
    assert capsys.readouterr().out == "No bot finding in the history h.db matches --pr 3.\n"


# --- issue 33 item 5: a history this process may not write is viewed read-only ------------


def deny_writes(monkeypatch: pytest.MonkeyPatch, *denied: Path) -> None:
    """As a read-only mount (or another user's file) looks to `os.access`; the tests run
    as whoever they run as, and root may write anywhere."""
    real = os.access

    def access(path: Any, mode: int, **kwargs: Any) -> bool:
        if mode & os.W_OK and Path(path).absolute() in denied:
            return False
        return real(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)  # the module reads it as os.access


def recorded(tmp_path: Path) -> Path:
    db = tmp_path / "ro" / "h.db"
    assert main(["review", findings_file(tmp_path), "--db", str(db), *TARGET, "-o", "o.md"]) == 0
    return db


@pytest.mark.parametrize(
    ("file_writable", "folder_writable"),
    [(False, False), (False, True), (True, False)],
    ids=["read-only-mount", "file-only", "folder-only"],
)
def test_a_history_that_cannot_be_written_is_viewed_read_only(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    file_writable: bool,
    folder_writable: bool,
) -> None:
    db = recorded(tmp_path)
    capsys.readouterr()
    deny_writes(
        monkeypatch, *([] if file_writable else [db]), *([] if folder_writable else [db.parent])
    )
    assert main(["stats", "--db", str(db)]) == 0
    assert "bandit" in capsys.readouterr().out
    assert main(["history", "show", "--db", str(db)]) == 0
    database = open_history(str(db), create=False)
    try:
        with pytest.raises(HistoryError, match="readonly"):
            database.execute("DELETE FROM schema_version")
    finally:
        database.close()
    # immutable only where SQLite could not make its shared-memory file (it would not see
    # another process's writes): with a writable folder, a WAL reader makes one
    names = sorted(path.name for path in db.parent.iterdir())
    assert names == (["h.db", "h.db-shm", "h.db-wal"] if folder_writable else ["h.db"])


def test_an_old_schema_that_cannot_be_upgraded_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "ro" / "h.db"
    database = connect(str(db))
    migrate(database, MIGRATIONS[:1])
    database.close()
    deny_writes(monkeypatch, db, db.parent)
    assert main(["stats", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"history database {db} has an older schema than this review-quorum's" in err
    assert "not a usable" not in err


# --- issue 33 item 6: a failed first recording leaves no database behind --------------


def fail_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: Any, **kwargs: Any) -> None:
        raise HistoryError("history database h.db: database or disk is full (in: INSERT)")

    monkeypatch.setattr(history_module, "record_run", full)


def test_a_failed_first_recording_removes_the_database_it_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_recording(monkeypatch)
    db = tmp_path / "hist" / "h.db"
    argv = ["review", findings_file(tmp_path), "--db", str(db), *TARGET, "-o", "o.md"]
    assert main(argv) == 2
    assert "database or disk is full" in capsys.readouterr().err
    assert list(db.parent.iterdir()) == []
    assert main(["stats", "--db", str(db)]) == 2
    assert "no history database there" in capsys.readouterr().err


def test_a_failed_recording_keeps_a_database_that_was_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "h.db"
    open_history(str(db)).close()  # there before the run, empty
    fail_recording(monkeypatch)
    assert main(["review", findings_file(tmp_path), "--db", str(db), *TARGET]) == 2
    assert db.exists()


def test_only_an_empty_history_is_removed(tmp_path: Path) -> None:
    db = recorded(tmp_path)
    assert database_module.remove_if_empty(str(db)) is False
    assert db.exists()
    empty = tmp_path / "empty.db"
    open_history(str(empty)).close()
    assert database_module.remove_if_empty(str(empty)) is True
    assert not empty.exists()
