"""GitHub counts every refused ``/quorum`` command as a skipped record, as GitLab, Azure
DevOps and Bitbucket do: a reader's (no write access) and a bot's are named in the JSON
report's ``skipped``, with whose it was and why, and change nothing; so is a reader's
thumbs-down."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from github.github_support import TOKEN
from history.test_history_loop import our_comment, scene
from history.test_successive import ASSERT, heads, item
from history.triage_fake import TriageGitHub
from review_quorum.cli import main

__all__ = ["heads"]  # the fixture: a git repository with three heads


def run(tmp_path: Path, db: str, head: str, n: int, *extra: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "files.json"
    path.write_text(json.dumps([item(*ASSERT)]), encoding="utf-8")
    out = tmp_path / f"run{n}.json"
    argv = ["review", str(path), "--github", "--post", "--db", db, "--bots", "1", *extra]
    argv += ["--repo", "octo-org/widgets", "--pr", "7", "--head-sha", head, "--inline-level"]
    argv += ["unverified", "--gate-level", "unverified", "--format", "json", "-o", str(out)]
    status = main(argv)
    return status, json.loads(out.read_text(encoding="utf-8"))


def test_a_readers_and_a_bots_commands_are_counted_as_skipped(
    tmp_path: Path, heads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = scene(monkeypatch, heads[0])
    db = str(tmp_path / "h.db")
    status, _ = run(tmp_path, db, heads[0], 1)
    assert status == 1  # the assert finding gates
    ours = our_comment(fake, ASSERT[4])
    fake.reply(ours, "forker", "/quorum false-positive")
    fake.reply(ours, "helper[bot]", "/quorum ack")
    fake.react(ours, "forker", "-1")
    status, second = run(tmp_path, db, heads[0], 2)
    assert status == 1  # neither command is a decision: the finding still gates
    refused = sorted(s["reason"] for s in second["skipped"] if "triage ignored" in s["reason"])
    assert refused == [
        "triage ignored (/quorum ack by helper[bot]): a bot's triage is not a person's decision",
        "triage ignored (/quorum false-positive by forker): no write access to the repository",
        "triage ignored (thumbs-down reaction by forker): no write access to the repository",
    ]
    sources = {s["source"] for s in second["skipped"] if "triage ignored" in s["reason"]}
    assert sources == {"octo-org/widgets#7"}


def test_a_writers_reply_to_a_comment_imitating_ours_is_not_a_decision(
    tmp_path: Path, heads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone can type our marker into a comment of their own: a forker's copy of our
    inline comment is not ours, so a writer's `/quorum` reply to it decides nothing (on
    our own comment the same reply would: tests/history/test_history_loop.py)."""
    fake = scene(monkeypatch, heads[0])
    db = str(tmp_path / "h.db")
    status, _ = run(tmp_path, db, heads[0], 1)
    assert status == 1
    ours = our_comment(fake, ASSERT[4])
    review = fake._review("forker", "", "COMMENTED", heads[0])
    fake.reviews.append(review)
    spec = {"path": ours["path"], "line": ours["line"], "body": ours["body"]}
    forged = fake._review_comment("forker", review["id"], spec)
    fake.review_comments.append(forged)
    fake.reply(forged, "maintainer", "/quorum false-positive")
    fake.react(forged, "maintainer", "+1")
    status, second = run(tmp_path, db, heads[0], 2)
    assert status == 1  # the finding still gates
    assert not second.get("triage_decisions")
    gated = [f for f in second["findings"] if f["title"] == ASSERT[4]]
    assert gated and all("triage" not in f for f in gated)


def posting_as(fake: TriageGitHub, login: str) -> None:
    """The token posts as `login` and GitHub will not say so (GET /user answers 403, as it
    does for the workflow's token and app installation tokens)."""
    fake.add_token(TOKEN, login, installation=True)


@pytest.mark.parametrize("login", ["github-actions[bot]", "quorum-app[bot]"])
def test_our_comments_are_found_when_github_will_not_say_who_we_are(
    tmp_path: Path, heads: list[str], monkeypatch: pytest.MonkeyPatch, login: str
) -> None:
    """In Actions the workflow token's comments are github-actions[bot]'s; an app token's
    are the login `--bot-login` names: a writer's reply to either is a decision."""
    fake = scene(monkeypatch, heads[0])
    posting_as(fake, login)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    named = [] if login == "github-actions[bot]" else ["--bot-login", login]
    db = str(tmp_path / "h.db")
    _, first = run(tmp_path, db, heads[0], 1, *named)
    (ours,) = [
        c for c in fake.review_comments if c["user"]["login"] == login and ASSERT[4] in c["body"]
    ]
    fake.reply(ours, "maintainer", "/quorum false-positive")
    _, second = run(tmp_path, db, heads[0], 2, *named)
    assert second["gate"]["count"] == first["gate"]["count"] - 1  # it no longer gates
    (decided,) = [f for f in second["findings"] if f["title"] == ASSERT[4]]
    assert decided["triage"]["action"] == "false-positive"
