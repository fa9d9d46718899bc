"""With `--db`: the verifier's answers are kept in the history database, its verdicts are
recorded with the run, and `quorum stats` shows the verifier as a source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from history.conftest import db_target  # noqa: F401  (SQLite, and PostgreSQL when there is one)
from review_quorum.cli import main
from review_quorum.history import open_history
from verifier.openai_standin import StandIn
from verifier.test_review_cli import example_args

HEADS = ["a" * 40, "b" * 40]


def review(tmp_path: Path, standin: StandIn, head: str, target: str) -> None:
    argv = example_args(tmp_path)
    at = argv.index("--verify-cache")
    del argv[at : at + 2]
    argv += ["--verify-url", standin.url, "--verify-model", "m", "--db", target]
    argv += ["--repo", "octo-org/widgets", "--pr", "7", "--head-sha", head]
    assert main([*argv, "-o", str(tmp_path / "plan.json")]) == 1


def test_answers_verdicts_and_stats_live_in_the_history(
    tmp_path: Path,
    standin: StandIn,
    capsys: pytest.CaptureFixture[str],
    db_target: str,  # noqa: F811
) -> None:
    standin.verdicts["app/export.py:7"] = {"verdict": "CONFIRMED", "severity": "high"}
    review(tmp_path, standin, HEADS[0], db_target)
    assert len(standin.requests) == 3
    assert not (tmp_path / ".quorum-verifier-cache.json").exists()
    review(tmp_path, standin, HEADS[1], db_target)  # a push that left the code alone: nothing asked
    assert len(standin.requests) == 3
    database = open_history(db_target)
    try:
        assert database.value("SELECT COUNT(*) FROM verifier_answers") == 3
        recorded = database.rows(
            "SELECT fi.file, fi.line, v.source, v.verdict FROM verdicts v"
            " JOIN findings fi ON fi.id = v.finding_id JOIN runs r ON r.id = fi.run_id"
            " WHERE r.head_sha = ? ORDER BY fi.file, fi.line",
            (HEADS[1],),
        )
    finally:
        database.close()
    assert [tuple(row) for row in recorded] == [
        ("app/auth.py", 59, "verifier", "LIKELY"),
        ("app/export.py", 7, "verifier", "CONFIRMED"),
        ("app/stock.py", 39, "verifier", "LIKELY"),
    ]
    capsys.readouterr()
    assert main(["stats", "--db", db_target, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    bots = {row["bot"]: row for row in data["bots"]}
    assert bots["verifier"]["findings"] == 3
    rules = {(row["bot"], row["rule"]) for row in data["rules"]}
    assert {("verifier", "CONFIRMED"), ("verifier", "LIKELY")} <= rules


def test_with_a_history_the_cache_file_is_not_read(
    tmp_path: Path,
    standin: StandIn,
    db_target: str,  # noqa: F811
) -> None:
    argv = example_args(tmp_path)
    at = argv.index("--verify-cache")
    del argv[at : at + 2]
    flags = ["--verify-url", standin.url, "--verify-model", "m"]
    assert main([*argv, *flags, "-o", str(tmp_path / "plan.json")]) == 1
    assert (tmp_path / ".quorum-verifier-cache.json").exists()
    review(tmp_path, standin, HEADS[0], db_target)
    assert len(standin.requests) == 6  # asked again: the history had none of the answers


def test_a_cache_file_named_keeps_the_answers_out_of_the_history(
    tmp_path: Path,
    standin: StandIn,
    db_target: str,  # noqa: F811
) -> None:
    argv = example_args(tmp_path)  # names --verify-cache
    argv += ["--verify-url", standin.url, "--verify-model", "m", "--db", db_target]
    argv += ["--repo", "octo-org/widgets", "--pr", "7", "--head-sha", HEADS[0]]
    assert main([*argv, "-o", str(tmp_path / "plan.json")]) == 1
    cache = Path(argv[argv.index("--verify-cache") + 1])
    assert len(standin.requests) == 3 and cache.exists()
    database = open_history(db_target)
    try:
        assert database.value("SELECT COUNT(*) FROM verifier_answers") == 0
    finally:
        database.close()
