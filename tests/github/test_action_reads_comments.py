"""The Action reads the pull request's bot comments by default and waits for `wait-for` bots."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from github.action_harness import EXAMPLE_INPUTS, NUMBER, action_job, installed_path
from github.pull_scene import BotNote, add_bot_review

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")

NOTE = BotNote(
    "coderabbitai[bot]",
    "app/auth.py",
    20,
    "_⚠️ Potential issue_ | _🟠 Major_\n\n**The password check compares strings in "
    "variable time.** Use a constant-time comparison.",
)
INPUTS = {**EXAMPLE_INPUTS, "install": "false", "post": "false", "fail-on-gate": "false"}


def plan_of(path: str) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def placed(plan: dict[str, Any]) -> set[tuple[str, str, int]]:
    members = [m for finding in plan["findings"] for m in finding["members"]]
    return {(m["bot"], m["evidence"]["file"], m["evidence"]["line"]) for m in members}


def test_the_bots_comments_are_read_and_the_named_bots_waited_for(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        add_bot_review(job.fake, NOTE)
        inputs = {**INPUTS, "wait-for": "coderabbit,greptile", "wait-timeout": "0"}
        result = job.run(inputs, path=installed_path(job.python_dir))
        assert result.conclusion == "success", result.step("Review").stderr
        plan = plan_of(result.outputs["plan"])
        assert ("coderabbit", NOTE.path, NOTE.line) in placed(plan)
        assert plan["awaited"]["missing"] == ["greptile"]
        assert "**Not reported when this review was made**" in result.summary
        # Greptile never spoke on the repository's pull requests: not installed, not awaited.
        assert "not waiting for greptile: no comment or review" in result.step("Review").stderr
        assert ("QUERY", "RecentAuthors", 200) in job.fake.log
        reads = {path for method, path, _ in job.fake.log if method == "GET"}
        assert f"/repos/acme/stockroom/issues/{NUMBER}/comments" in reads
        assert ("QUERY", "CommitDate", 200) in job.fake.log  # the head commit's date
        assert job.errors == []


def test_reading_the_comments_can_be_turned_off(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        add_bot_review(job.fake, NOTE)
        result = job.run({**INPUTS, "read-comments": "false"}, path=installed_path(job.python_dir))
        assert result.conclusion == "success"
        plan = plan_of(result.outputs["plan"])
        assert ("coderabbit", NOTE.path, NOTE.line) not in placed(plan)
        assert plan["github_review"].get("commit_id") is None
        assert all(method != "GET" or "/comments" not in path for method, path, _ in job.fake.log)


def test_a_bad_read_comments_value_stops_the_review(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        result = job.run({**INPUTS, "read-comments": "yes"}, path=installed_path(job.python_dir))
        assert result.step("Review").exit_code == 2
        assert result.annotations("error") == [
            "review-quorum: read-comments must be true or false, not yes"
        ]
