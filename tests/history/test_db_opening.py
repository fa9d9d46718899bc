"""`--db` from the command line: always a value, reading never creates, other files refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from history.history_support import HEAD
from review_quorum.cli import main
from review_quorum.history import open_history

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
