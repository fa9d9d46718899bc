"""`quorum review --baseline-db SHA` on both history backends: the baseline is the run the
history recorded for that commit in the repository under review, never another
repository's run of the same commit kept in the same database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum.cli import main
from test_baseline import BASE_SHA, SHELL, SQL, review, sarif, scene, states

__all__ = ["scene"]  # the fixture, used by name


def record(target: str, findings: str, repository: str) -> None:
    argv = ["review", findings, "--bots", "1", "--db", target, "--repo", repository]
    assert main([*argv, "--pr", "1", "--head-sha", BASE_SHA, "-o", "recorded.md"]) in (0, 1)


def test_a_baseline_is_read_from_the_repository_under_review_only(
    scene: Path, db_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Our merge-base had only the shell call; another repository's run of the same commit,
    # recorded after ours (so the newest), has the SQL injection: were it taken, the SQL
    # injection this pull request adds would pass as pre-existing.
    ours = sarif([(SHELL[0], 11, SHELL[1])])
    Path("ours.sarif").write_text(json.dumps(ours), encoding="utf-8")
    record(target=db_target, findings="ours.sarif", repository="o/r")
    theirs = sarif([(SQL[0], 4, SQL[1])])
    Path("theirs.sarif").write_text(json.dumps(theirs), encoding="utf-8")
    record(target=db_target, findings="theirs.sarif", repository="o/other")
    monkeypatch.setenv("QUORUM_HISTORY_DB", db_target)
    _, log = review("--baseline-db", BASE_SHA, "--repo", "o/r")
    assert states(log) == [
        ("absent", 11, "security"),
        ("new", 6, "security"),
        ("new", 13, "security"),
    ]
    _, report = review("--baseline-db", BASE_SHA, "--repo", "o/r", fmt="json")
    assert report["gate"]["count"] == 2  # both are gated on
    _, log = review("--baseline-db", BASE_SHA, "--repo", "o/other")
    assert states(log) == [("new", 13, "security"), ("unchanged", 6, "security")]


def test_a_baseline_of_a_repository_the_history_has_no_run_of_is_an_error(
    scene: Path, db_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    record(target=db_target, findings="base.sarif", repository="o/other")
    monkeypatch.setenv("QUORUM_HISTORY_DB", db_target)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    capsys.readouterr()
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "-o", "out"]
    assert main([*argv, "--baseline-db", BASE_SHA, "--repo", "o/r"]) == 2
    err = capsys.readouterr().err
    assert f"the history has no run of commit {BASE_SHA} in o/r" in err
    assert not Path("out").exists()
    assert main([*argv, "--baseline-db", BASE_SHA]) == 2  # which repository is this?
    err = capsys.readouterr().err
    assert "--baseline-db: name the repository under review with --repo" in err
    assert not Path("out").exists()
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/other")
    assert main([*argv, "--baseline-db", BASE_SHA]) in (0, 1)
    assert "1 fixed by this pull request" in Path("out").read_text(encoding="utf-8")
