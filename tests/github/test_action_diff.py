"""action.yml fetching the diff itself: `gh pr diff`, else `git diff BASE...HEAD`.

GitHub cannot produce the diff of a very large pull request, so the Action falls back to
git. A comment event (`issue_comment`) names the pull request by number only, without its
base and head commits: the fallback asks GitHub for them (the stand-in's `pulls/get`,
validated against GitHub's contract) instead of diffing nothing. `gh` is stood in for by a
script that fails as `gh pr diff` does on an oversized pull request; the workspace holds
the example's base and head as two git commits.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from github.action_harness import (
    EXAMPLE,
    EXAMPLE_INPUTS,
    ActionJob,
    action_job,
    installed_path,
    issue_comment_event,
)
from github.action_runner import ActionResult

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("git") is None, reason="bash and git run it"
)
FETCH = "Fetch the pull request diff"
INPUTS = {k: v for k, v in EXAMPLE_INPUTS.items() if k != "diff"} | {
    "install": "false",
    "post": "false",
    "fail-on-gate": "false",
}
GH_TOO_LARGE = """#!/bin/sh
echo "could not find pull request diff: HTTP 406: the diff exceeded the maximum number of lines" >&2
exit 1
"""


def commit_pull_request(workspace: Path) -> tuple[str, str]:
    """The example's base and head trees as two commits in the workspace: (base, head)."""

    def git(*args: str) -> str:
        identity = ["-c", "user.name=Octo Dev", "-c", "user.email=octo@example.invalid"]
        done = subprocess.run(
            ["git", *identity, *args], cwd=workspace, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    git("init", "-q", "-b", "main")
    shutil.copytree(EXAMPLE / "base" / "app", workspace / "app")
    git("add", "app")
    git("commit", "-q", "-m", "base")
    base = git("rev-parse", "HEAD")
    git("rm", "-r", "-q", "app")  # so that git hashes every head file afresh
    shutil.copytree(EXAMPLE / "head" / "app", workspace / "app")
    git("add", "app")
    git("commit", "-q", "-m", "head")
    return base, git("rev-parse", "HEAD")


def run_on_comment(job: ActionJob, tmp_path: Path) -> ActionResult:
    """The action on an issue_comment event, with a `gh` that cannot produce the diff."""
    tools = tmp_path / "gh-too-large"
    tools.mkdir()
    (tools / "gh").write_text(GH_TOO_LARGE, encoding="utf-8")
    (tools / "gh").chmod(0o755)
    path = os.pathsep.join([str(tools), installed_path(job.python_dir)])
    return job.run(INPUTS, path=path, event_name="issue_comment", event=issue_comment_event())


def test_a_comment_event_falls_back_to_git_with_the_commits_github_names(
    tmp_path: Path,
) -> None:
    with action_job(tmp_path) as job:
        job.fake.base_sha, job.fake.head_sha = commit_pull_request(job.workspace)
        result = run_on_comment(job, tmp_path)
        assert result.step(FETCH).outcome == "success", result.log
        assert result.annotations("warning")[0] == (
            "review-quorum: gh pr diff failed; falling back to git diff BASE...HEAD"
        )
        fetched = Path(result.step(FETCH).outputs["path"]).read_text(encoding="utf-8")
        assert fetched == (EXAMPLE / "pr.diff").read_text(encoding="utf-8")
        assert result.step("Review").outcome == "success"
        assert result.outputs["gate"] == "failed" and result.outputs["gate-count"] == "8"
        assert job.errors == []


def test_commits_missing_from_the_checkout_fail_clearly(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        _, head = commit_pull_request(job.workspace)
        job.fake.base_sha, job.fake.head_sha = "c" * 40, head  # the base was not fetched
        result = run_on_comment(job, tmp_path)
        assert (result.step(FETCH).outcome, result.step(FETCH).exit_code) == ("failure", 2)
        assert result.annotations("error") == [
            f"review-quorum: git diff {'c' * 40}...{head} failed (check out with fetch-depth: 0)"
        ]
        assert result.step("Review").outcome == "skipped"
