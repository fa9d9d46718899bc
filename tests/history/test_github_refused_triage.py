"""GitHub counts every refused ``/quorum`` command as a skipped record, as GitLab, Azure
DevOps and Bitbucket do: a reader's (no write access) and a bot's are named in the JSON
report's ``skipped``, with whose it was and why, and change nothing; so is a reader's
thumbs-down."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from history.test_history_loop import our_comment, scene
from history.test_successive import ASSERT, heads, item
from review_quorum.cli import main

__all__ = ["heads"]  # the fixture: a git repository with three heads


def run(tmp_path: Path, db: str, head: str, n: int) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "files.json"
    path.write_text(json.dumps([item(*ASSERT)]), encoding="utf-8")
    out = tmp_path / f"run{n}.json"
    argv = ["review", str(path), "--github", "--post", "--db", db, "--bots", "1"]
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
