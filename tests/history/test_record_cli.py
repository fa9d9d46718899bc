"""`quorum review --db` and `quorum post --db`: a run recorded once, whichever command sees it."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from github.github_support import TOKEN, new_fake
from history.history_support import HEAD, counts
from review_quorum.cli import main, posting
from review_quorum.history import open_history

FINDINGS = [
    {
        "bot": "bandit",
        "finding_id": "B608",
        "severity": "medium",
        "category": "security",
        "title": "Possible SQL injection through string-based query",
        "evidence": {"file": "app/db.py", "line": 10},
    },
    {
        "bot": "semgrep",
        "finding_id": "sql",
        "severity": "high",
        "category": "security",
        "title": "SQL query built from an f-string",
        "evidence": {"file": "app/db.py", "line": 11},
    },
]
TARGET = ["--repo", "octo-org/widgets", "--pr", "7", "--head-sha", HEAD]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "QUORUM_HISTORY_DB"):
        monkeypatch.delenv(name, raising=False)


def findings_file(tmp_path: Path) -> str:
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(FINDINGS), encoding="utf-8")
    return str(path)


def test_review_records_the_run_once(
    tmp_path: Path, db_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["review", findings_file(tmp_path), "--bots", "2", "--db", db_target, *TARGET]
    assert main([*argv, "-o", str(tmp_path / "out.md")]) == 1  # the gate fails: confirmed
    assert main([*argv, "-o", str(tmp_path / "out.md")]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "quorum: history: recorded run 1 of octo-org/widgets#7 at cccccccccccc (1 findings)",
        "quorum: history: already recorded; nothing changed: run 1 of octo-org/widgets#7 "
        "at cccccccccccc (1 findings)",
    ]
    database = open_history(db_target)
    try:
        assert counts(database) == {
            "repositories": 1,
            "pull_requests": 1,
            "runs": 1,
            "findings": 1,
            "members": 2,
        }
    finally:
        database.close()


def test_db_default_records_in_the_default_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["review", findings_file(tmp_path), "--db-default", *TARGET, "-o", "out.md"]) == 1
    assert (tmp_path / ".quorum" / "history.db").is_file()
    monkeypatch.setenv("QUORUM_HISTORY_DB", str(tmp_path / "elsewhere.db"))
    assert main(["review", findings_file(tmp_path), "--db-default", *TARGET, "-o", "out.md"]) == 1
    assert (tmp_path / "elsewhere.db").is_file()
    (tmp_path / ".quorum.toml").write_text('history-db = "configured.db"\n', encoding="utf-8")
    assert main(["review", findings_file(tmp_path), "--db-default", *TARGET, "-o", "out.md"]) == 1
    assert (tmp_path / "configured.db").is_file()
    assert capsys.readouterr().err.count("history: recorded run 1 ") == 3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--repo", "octo-org/widgets", "--pr", "7"],
            "quorum: error: --db: recording needs the head commit: pass --head-sha SHA "
            "(or run in a pull_request workflow, or review with --git BASE..HEAD)\n",
        ),
        (
            ["--head-sha", HEAD],
            "quorum: error: --db: recording needs the pull request: pass --repo OWNER/NAME "
            "--pr N, or run in a GitHub Actions pull_request workflow\n",
        ),
    ],
)
def test_recording_without_its_identity_is_a_usage_error(
    tmp_path: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "h.db")
    out = tmp_path / "out.md"
    assert main(["review", findings_file(tmp_path), "--db", db, *extra, "-o", str(out)]) == 2
    assert capsys.readouterr().err == message
    assert not out.exists()  # checked before any work is done


def test_a_bad_head_sha_is_a_usage_error(tmp_path: Path) -> None:
    argv = ["review", findings_file(tmp_path), "--db", "x.db", "--head-sha", "main"]
    assert main(argv) == 2


def test_post_records_the_plan_review_saved_as_the_same_run(
    tmp_path: Path,
    db_target: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = new_fake()
    fake.set_diff({"app/db.py": range(1, 50)})
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    plan = str(tmp_path / "plan.json")
    review = ["review", findings_file(tmp_path), "--bots", "2", "--format", "json", "-o", plan]
    assert main([*review, "--db", db_target, *TARGET]) == 1
    assert main(["post", plan, "--db", db_target, *TARGET, "--dry-run"]) == 0
    assert main(["post", plan, "--db", db_target, *TARGET]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        "quorum: history: recorded run 1 of octo-org/widgets#7 at cccccccccccc (1 findings)"
    )
    assert "quorum: warning: --dry-run: the run is not recorded in the history" in lines
    assert lines[-1] == (
        "quorum: history: already recorded; nothing changed: run 1 of octo-org/widgets#7 "
        "at cccccccccccc (1 findings)"
    )


def test_post_never_records_what_a_plan_claims_of_a_bot_that_did_not_say_it(
    tmp_path: Path,
    db_target: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = new_fake()
    fake.set_diff({"app/db.py": range(1, 50)})
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    ghost = {**FINDINGS[0], "bot": "cursor", "finding_id": "c1", "title": "False positive"}
    path = tmp_path / "findings.json"
    path.write_text(json.dumps([*FINDINGS, ghost]), encoding="utf-8")
    plan = str(tmp_path / "plan.json")
    assert main(["review", str(path), "--format", "json", "-o", plan]) == 1
    assert main(["post", plan, "--db", db_target, *TARGET]) == 0
    database = open_history(db_target)
    try:
        bots = {row[0] for row in database.rows("SELECT bot FROM members")}
    finally:
        database.close()
    assert bots == {"bandit", "semgrep"}  # cursor has no comment here: not credited
    assert "quorum: warning: not credited: cursor" in capsys.readouterr().err


def test_post_reads_a_plan_made_with_stored_triage_and_honours_only_its_own_history(
    tmp_path: Path,
    db_target: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from review_quorum.history.triage import Decision, store

    fake = new_fake()
    fake.set_diff({"app/db.py": range(1, 50)})
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    plan = tmp_path / "plan.json"
    review = ["review", findings_file(tmp_path), "--bots", "2", "--format", "json", "-o", str(plan)]
    assert main([*review, "--db", db_target, *TARGET]) == 1  # the finding gates
    fingerprint = json.loads(plan.read_text())["findings"][0]["fingerprint"]
    database = open_history(db_target)
    try:
        decision = Decision(fingerprint, "ack", "alice", "2026-01-01T00:00:00Z", "known", "ic:5")
        store(database, "octo-org", "widgets", 7, [decision])
    finally:
        database.close()
    assert main([*review, "--db", db_target, *TARGET]) == 0  # acknowledged: out of the gate
    capsys.readouterr()
    assert main(["post", str(plan), "--db", db_target, *TARGET, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert "does not match" not in err and "not honoured" not in err
    assert '"path": "app/db.py"' not in out  # acknowledged: not commented on again
    saved = json.loads(plan.read_text())
    assert saved["gate"]["count"] == 0 and saved["findings"][0]["triage"]["actor"] == "alice"
    # a posting run without that history honours none of the plan's triage, and says so
    assert main(["post", str(plan), *TARGET, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    unheld = "1 triage decision(s) the plan claims are not in this run's history: not honoured"
    assert f"quorum: warning: {unheld}" in err.splitlines()
    assert unheld in out  # the summary says it
    assert '"path": "app/db.py"' in out  # and the finding is commented on again
