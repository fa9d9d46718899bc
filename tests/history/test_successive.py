"""Three recorded runs of one pull request, a fix pushed between them: every source's outcome.

A local git repository holds the three heads; `quorum review --db` records a run at each
and `quorum stats` reads the outcomes back: the finding the fix rewrote is addressed for
both analysers that reported it, the one whose lines did not change went away, the one
moved by an insertion above it persisted, and counts as not addressed once merged.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from review_quorum.cli import main
from review_quorum.history import open_history
from review_quorum.history.changes import CommitFile
from review_quorum.history.successive import git_changes, parse_diff


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True, text=True
    )
    return done.stdout.strip()


def write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD")


def item(bot: str, rule: str, file: str, line: int, title: str) -> dict[str, Any]:
    return {
        "bot": bot,
        "finding_id": f"{rule}-{line}",
        "rule_id": rule,
        "severity": "medium",
        "category": "security",
        "title": title,
        "evidence": {"file": file, "line": line},
    }


INJECTION_BANDIT = ("bandit", "B608", "app/db.py", 10, "Possible SQL injection through a query")
INJECTION_SEMGREP = ("semgrep", "sql", "app/db.py", 11, "SQL injection: query from an f-string")
ASSERT = ("bandit", "B101", "app/db.py", 40, "Use of assert detected")
XSS = ("semgrep", "xss", "app/web.py", 30, "Unescaped output reaches the template")


@pytest.fixture
def heads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    db_lines = [f"db {n}" for n in range(1, 61)]
    web_lines = [f"web {n}" for n in range(1, 61)]
    write_lines(repo / "app/db.py", db_lines)
    write_lines(repo / "app/web.py", web_lines)
    first = commit(repo, "first")
    db_lines[9:11] = ["query(sql, params)", "# parameterised"]  # the fix: lines 10-11
    write_lines(repo / "app/db.py", db_lines)
    write_lines(repo / "app/web.py", ["import html", "import os", *web_lines])  # 30 -> 32
    second = commit(repo, "fix the injection")
    db_lines[54] = "db 55, reworded"  # far from every finding
    write_lines(repo / "app/db.py", db_lines)
    third = commit(repo, "unrelated")
    monkeypatch.chdir(repo)
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    return [first, second, third]


def record(tmp_path: Path, db: str, head: str, findings: list[tuple[Any, ...]], n: int) -> None:
    path = tmp_path / f"run{n}.json"
    path.write_text(json.dumps([item(*spec) for spec in findings]), encoding="utf-8")
    argv = ["review", str(path), "--db", db, "--repo", "octo-org/widgets", "--pr", "3"]
    argv += ["--head-sha", head, "-o", str(tmp_path / f"run{n}.md")]
    assert main(argv) in (0, 1)


def stats(db: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["stats", "--db", db, "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def outcomes(rules: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int, int, int]]:
    return {
        (r["bot"], r["rule"]): (r["addressed"], r["dismissed"], r["went_away"], r["unknown"])
        for r in rules
    }


def test_three_runs_give_each_source_its_outcome(
    tmp_path: Path, db_target: str, heads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    moved_xss = (*XSS[:3], 32, XSS[4])
    record(tmp_path, db_target, heads[0], [INJECTION_BANDIT, INJECTION_SEMGREP, ASSERT, XSS], 1)
    record(tmp_path, db_target, heads[1], [ASSERT, moved_xss], 2)
    record(tmp_path, db_target, heads[2], [moved_xss], 3)
    data = stats(db_target, capsys)
    assert data["pull_requests"] == 1
    assert outcomes(data["rules"]) == {
        ("bandit", "B608"): (1, 0, 0, 0),  # the fix rewrote its lines: addressed
        ("semgrep", "sql"): (1, 0, 0, 0),  # the same finding, from the other analyser
        ("bandit", "B101"): (0, 0, 1, 0),  # gone, its lines untouched: went away
        ("semgrep", "xss"): (0, 0, 0, 1),  # still there at the last run, pull request open
    }
    bots = {b["bot"]: b for b in data["bots"]}
    assert sorted(bots) == ["bandit", "semgrep"]
    assert bots["semgrep"]["runs"] == 3 and bots["bandit"]["runs"] == 2
    assert bots["semgrep"]["origins"] == {"db": 2} and bots["bandit"]["duplicates"] == 1
    assert bots["bandit"]["reliability"]["outcomes"] == 1
    assert bots["bandit"]["reliability"]["thin"] is True
    assert main(["history", "show", "--db", db_target, "--format", "json"]) == 0
    shown = {(r["bot"], r["rule_id"]): r for r in json.loads(capsys.readouterr().out)}
    assert shown[("bandit", "B608")]["outcome"] == "addressed"
    assert shown[("bandit", "B608")]["reason"] == "gone at the next run, which changed its lines"
    assert "also said by 1 other source(s)" in shown[("semgrep", "sql")]["signals"]
    assert shown[("bandit", "B101")]["reason"].startswith("gone at the next run, its lines")
    assert shown[("semgrep", "xss")]["signals"][0].startswith("recorded run 3 (db)")
    database = open_history(db_target)
    try:  # a sync would store the merge; then what was left is not addressed
        database.execute("UPDATE pull_requests SET state = 'merged'")
    finally:
        database.close()
    after = outcomes(stats(db_target, capsys)["rules"])
    assert after[("semgrep", "xss")] == (0, 1, 0, 0)
    assert after[("bandit", "B608")] == (1, 0, 0, 0)


def test_runs_without_the_diff_between_heads_are_no_evidence(
    tmp_path: Path, db_target: str, heads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    unknown_head = "d" * 40  # not in the repository: git cannot show the diff
    record(tmp_path, db_target, heads[0], [INJECTION_BANDIT], 1)
    record(tmp_path, db_target, unknown_head, [], 2)
    assert outcomes(stats(db_target, capsys)["rules"]) == {("bandit", "B608"): (0, 0, 0, 1)}


def test_the_diff_between_heads_is_read_file_by_file(heads: list[str]) -> None:
    files = git_changes(heads[0], heads[1])
    assert files is not None and files.files is not None
    assert [(f.path, f.status) for f in files.files] == [
        ("app/db.py", "modified"),
        ("app/web.py", "modified"),
    ]
    assert git_changes(heads[0], "d" * 40) is None
    diff = "\n".join(
        [
            "diff --git a/old.py b/new.py",
            "similarity index 100%",
            "rename from old.py",
            "rename to new.py",
            "diff --git a/gone.py b/gone.py",
            "deleted file mode 100644",
            "@@ -1,2 +0,0 @@",
            "-a",
            "-b",
        ]
    )
    assert parse_diff(diff) == [
        CommitFile("new.py", "renamed", "", "old.py"),
        CommitFile("gone.py", "removed", "@@ -1,2 +0,0 @@\n-a\n-b", ""),
    ]
