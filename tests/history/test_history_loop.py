"""The whole loop on one pull request: three recorded runs, a fix, triage, coverage, stats.

Runs `quorum review --github --post --db` three times against the GitHub stand-in (REST
and GraphQL validated by ../shared's contracts) while a local git repository holds the
three heads. Between the first and second run a fix rewrites the injection's lines, a
maintainer replies ``/quorum false-positive`` to our comment on the assert finding, and a
fork author (read access) tries the same on the injection. Coverage: copilot reviewed the
head, coderabbit an older commit only, gemini said it hit its rate limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from github.github_reading import connect
from github.github_support import BOT, TOKEN, _spec
from history.test_successive import ASSERT, INJECTION_BANDIT, INJECTION_SEMGREP, heads, item
from history.triage_fake import TriageGitHub
from review_quorum.cli import main
from review_quorum.history import open_history
from review_quorum.markup.markers import FINDING, find_markers

__all__ = ["heads"]  # the fixture: a git repository with three heads
XSS_BY_COPILOT = "Unescaped output reaches the template"
CONFIG = 'expected-bots = ["copilot", "coderabbit", "gemini"]\ninline-level = "unverified"\n'


def scene(monkeypatch: pytest.MonkeyPatch, head: str) -> TriageGitHub:
    fake = TriageGitHub(_spec(), head_sha=head)
    fake.add_token(TOKEN, BOT)
    fake.set_diff({"app/db.py": range(1, 61), "app/web.py": range(1, 61)})
    fake.permissions.update({"maintainer": "maintain", "forker": "read"})
    fake.bot_users.add("Copilot")  # GitHub marks Copilot's reviewer account as a bot
    review = fake._review("Copilot", "", "COMMENTED", head)
    fake.reviews.append(review)
    spec = {"path": "app/web.py", "line": 30, "body": XSS_BY_COPILOT}
    fake.review_comments.append(fake._review_comment("Copilot", review["id"], spec))
    fake.reviews.append(fake._review("coderabbitai[bot]", "", "COMMENTED", "0" * 40))
    limit = "You have reached your daily rate limit. Please try again later."
    fake.issue_comments.append(fake._issue_comment("gemini-code-assist[bot]", limit))
    connect(fake, monkeypatch)
    return fake


def run(
    tmp_path: Path, db: str, head: str, findings: list[tuple[Any, ...]], n: int
) -> tuple[int, str]:
    """One recorded, posted run: its exit status and the summary it posted."""
    path = tmp_path / f"files{n}.json"
    path.write_text(json.dumps([item(*spec) for spec in findings]), encoding="utf-8")
    config = tmp_path / "quorum.toml"
    config.write_text(CONFIG, encoding="utf-8")
    argv = ["review", str(path), "--github", "--post", "--db", db, "--config", str(config)]
    argv += ["--repo", "octo-org/widgets", "--pr", "7", "--head-sha", head, "--gate-level"]
    argv += ["needs-verification", "--format", "markdown", "-o", str(tmp_path / f"run{n}.md")]
    status = main(argv)
    return status, (tmp_path / f"run{n}.md").read_text(encoding="utf-8")


def our_comment(fake: TriageGitHub, title: str) -> dict[str, Any]:
    (found,) = [
        c
        for c in fake.review_comments
        if c["user"]["login"] == BOT and title in c["body"] and find_markers(c["body"])
    ]
    return found


def inline_section(summary: str) -> str:
    """The summary's list of findings posted inline (empty when there is none)."""
    _, heading, rest = summary.partition("posted inline\n")
    return rest.split("\n### ")[0] if heading else ""


def posted_titles(fake: TriageGitHub, since: int) -> list[str]:
    return [
        c["body"]
        for c in fake.review_comments[since:]
        if c["user"]["login"] == BOT and any(k == FINDING for k, _ in find_markers(c["body"]))
    ]


def test_three_runs_triage_and_coverage(
    tmp_path: Path,
    db_target: str,
    heads: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake = scene(monkeypatch, heads[0])
    status, first = run(
        tmp_path, db_target, heads[0], [INJECTION_BANDIT, INJECTION_SEMGREP, ASSERT], 1
    )
    assert status == 1  # both findings gate
    assert "**Did not review this commit:** coderabbit (reviewed an older commit only)" in first
    assert "gemini (said it would not review: rate-limit notice)" in first
    assert "copilot" not in first.split("Did not review this commit")[1].split("\n")[0]

    assert ASSERT[4] in inline_section(first)
    asserted = our_comment(fake, ASSERT[4])
    fake.reply(asserted, "maintainer", "/quorum false-positive only a test helper asserts")
    fake.reply(our_comment(fake, "SQL injection"), "forker", "/quorum false-positive")
    fake.head_sha = heads[1]
    before = len(fake.review_comments)
    status, second = run(tmp_path, db_target, heads[1], [ASSERT], 2)
    assert status == 0, second
    assert "**Acknowledged** (not posted again, not gating):" in second
    assert ASSERT[4] not in inline_section(second)
    assert "Use of assert detected (app/db.py:40): false positive by @maintainer" in second
    assert not any(ASSERT[4] in body for body in posted_titles(fake, before))

    fake.head_sha = heads[2]
    before = len(fake.review_comments)
    status, third = run(tmp_path, db_target, heads[2], [ASSERT], 3)
    assert status == 0 and "false positive by @maintainer" in third
    assert not any(ASSERT[4] in body for body in posted_titles(fake, before))

    capsys.readouterr()
    assert main(["stats", "--db", db_target, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = {(r["bot"], r["rule"]): r for r in data["rules"]}
    assert {b["bot"] for b in data["bots"]} == {"bandit", "semgrep", "copilot"}
    assert rules[("bandit", "B608")]["addressed"] == 1
    assert rules[("semgrep", "sql")]["addressed"] == 1
    assert rules[("bandit", "B101")]["dismissed"] == 1  # the maintainer's false positive
    database = open_history(db_target)
    try:
        stored = database.rows("SELECT action, actor, reason FROM triage")
    finally:
        database.close()
    assert stored == [("false-positive", "maintainer", "only a test helper asserts")]
