"""The pieces an end-to-end run of action.yml needs: an event, a job, and a served stand-in.

`ActionJob` wires `action_runner.CompositeRun` to the bundled example pull request
(`examples/pr-review`, copied into a workspace), a `pull_request` event payload shaped like
GitHub's, and the GitHub stand-in served on 127.0.0.1. `job.run(inputs)` runs the action
with those `with:` inputs; tests parametrize it by inputs and check what a user would see.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT
from github.action_runner import ActionResult, CompositeRun, Runner, current_path
from github.fake import FakeGitHub
from github.fake_server import serve
from github.github_support import addressable, new_fake
from review_quorum.github.target import ACTIONS_BOT

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
OWNER, REPO, NUMBER = "acme", "stockroom", 1  # the bundled example's pull request
WORKFLOW_TOKEN = "ghs_workflowtoken0123456789abcdefghijklmn"
HEAD_SHA = "3f1c" + "a" * 36
BASE_SHA = "9e2d" + "b" * 36
EXAMPLE_INPUTS = {
    "findings": "  analysers/*.sarif\n\nbots/**/*.json\nnothing/*.xml\n",
    "diff": "pr.diff",
    "verdicts": "verdicts.json",
    "config": "quorum.toml",
}


def _repository(owner: str, name: str) -> dict[str, Any]:
    return {
        "id": 4242,
        "node_id": "R_kgDOAAAQkg",
        "name": name,
        "full_name": f"{owner}/{name}",
        "private": False,
        "owner": {"login": owner, "id": 77, "type": "Organization"},
        "html_url": f"https://github.com/{owner}/{name}",
        "default_branch": "main",
    }


def pull_request_event(action: str = "synchronize") -> dict[str, Any]:
    """A `pull_request` event payload with the fields GitHub sends that the action reads."""
    repository = _repository(OWNER, REPO)
    author = {"login": "octo-dev", "id": 1001, "type": "User"}
    return {
        "action": action,
        "number": NUMBER,
        "pull_request": {
            "url": f"https://api.github.com/repos/{OWNER}/{REPO}/pulls/{NUMBER}",
            "id": 987654,
            "node_id": "PR_kwDOAAAQks4AAQ",
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}",
            "number": NUMBER,
            "state": "open",
            "locked": False,
            "title": "Add the stock report endpoint",
            "user": author,
            "body": "Adds /report.",
            "draft": False,
            "merged": False,
            "merge_commit_sha": "5c7e" + "c" * 36,
            "head": {
                "label": "octo-dev:report",
                "ref": "report",
                "sha": HEAD_SHA,
                "user": author,
                "repo": repository,
            },
            "base": {
                "label": f"{OWNER}:main",
                "ref": "main",
                "sha": BASE_SHA,
                "user": repository["owner"],
                "repo": repository,
            },
        },
        "repository": repository,
        "sender": author,
    }


def workflow_run_event(conclusion: str = "failure") -> dict[str, Any]:
    """A `workflow_run` event: the pull_request run of a fork's head commit has completed."""
    fork = _repository("octo-dev", REPO) | {"id": 5151, "fork": True}
    return {
        "action": "completed",
        "workflow_run": {
            "id": 30433642,
            "name": "review-quorum",
            "event": "pull_request",
            "status": "completed",
            "conclusion": conclusion,
            "head_branch": "report",
            "head_sha": HEAD_SHA,
            "run_attempt": 1,
            "pull_requests": [],  # GitHub lists none for a pull request from a fork
            "head_repository": fork,
            "repository": _repository(OWNER, REPO),
        },
        "workflow": {"id": 161335, "name": "review-quorum", "path": ".github/workflows/r.yml"},
        "repository": _repository(OWNER, REPO),
        "sender": {"login": "octo-dev", "id": 1001, "type": "User"},
    }


def issue_comment_event(login: str = "coderabbitai[bot]") -> dict[str, Any]:
    """An `issue_comment` event: a bot commented on the pull request (an issue to GitHub).

    It names the pull request only by number: no commits, no base or head.
    """
    repository = _repository(OWNER, REPO)
    url = f"https://github.com/{OWNER}/{REPO}/pull/{NUMBER}"
    bot = {"login": login, "id": 2002, "type": "Bot"}
    return {
        "action": "created",
        "issue": {
            "number": NUMBER,
            "title": "Add the stock report endpoint",
            "state": "open",
            "user": {"login": "octo-dev", "id": 1001, "type": "User"},
            "pull_request": {"html_url": url, "diff_url": f"{url}.diff"},
        },
        "comment": {"id": 555001, "body": "Reviewed: one finding.", "user": bot},
        "repository": repository,
        "sender": bot,
    }


def python_only(directory: Path) -> Path:
    """A folder holding only `python`, as setup-python leaves on PATH (no quorum on it)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "python").symlink_to(sys.executable)
    return directory


class ActionJob:
    """A job that runs the action against one stand-in pull request, as often as asked."""

    def __init__(self, root: Path, fake: FakeGitHub, errors: list[str]) -> None:
        self.root, self.fake, self.errors = root, fake, errors
        self.workspace = root / "workspace"
        shutil.copytree(EXAMPLE, self.workspace)
        self.python_dir = python_only(root / "setup-python")
        self.setup_python: list[Mapping[str, str]] = []
        self.runs = 0

    def run(
        self,
        inputs: Mapping[str, str],
        *,
        path: str | None = None,
        event_name: str = "pull_request",
        event: Mapping[str, Any] = {},
        env: Mapping[str, str] = {},
    ) -> ActionResult:
        """Run the action with these `with:` inputs (PATH: python only, unless given), and
        `env` as the job's own environment (a step's `env:`, secrets)."""
        self.runs += 1
        runner = Runner(
            workspace=self.workspace,
            temp=self.root / f"runner-temp-{self.runs}",
            event_name=event_name,
            event=event or pull_request_event(),
            repository=f"{OWNER}/{REPO}",
            api_url=self.fake.api_url,
            token=WORKFLOW_TOKEN,
            path=path or current_path(self.python_dir),
            stand_ins={"actions/setup-python": self.setup_python.append},
            extra_env=dict(env),
        )
        return CompositeRun(REPO_ROOT, runner, inputs).run()


def with_example_comments(fake: FakeGitHub) -> None:
    """The example's saved bot comments (`bots/*.json`) as the pull request's own: each is
    the stand-in's own full object, with every field the saved one has."""

    def saved(name: str) -> list[dict[str, Any]]:
        return json.loads((EXAMPLE / "bots" / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    fake.reviews += [
        {**fake._review(r["user"]["login"], "", "COMMENTED", None), **r}
        for r in saved("pulls-reviews.json")
    ]
    fake.review_comments += [
        {**fake._review_comment(c["user"]["login"], None, c), **c}
        for c in saved("pulls-comments.json")
    ]
    fake.issue_comments += [
        {**fake._issue_comment(c["user"]["login"], ""), **c} for c in saved("issue-comments.json")
    ]


@contextmanager
def action_job(root: Path, *, example_comments: bool = False) -> Iterator[ActionJob]:
    """A job with the example pull request open on a served stand-in of GitHub (with its
    saved bot comments, when asked: a plan naming them is checked against them on posting)."""

    def build(url: str) -> FakeGitHub:
        fake = new_fake(owner=OWNER, repo=REPO, number=NUMBER, head_sha=HEAD_SHA, api_url=url)
        fake.add_token(WORKFLOW_TOKEN, ACTIONS_BOT, installation=True)
        fake.set_diff(addressable(EXAMPLE / "pr.diff"))
        if example_comments:
            with_example_comments(fake)
        return fake

    with serve(build) as (fake, errors):
        yield ActionJob(root, fake, errors)


def installed_path(python_dir: Path) -> str:
    """PATH for `install: false`: this interpreter's environment, where quorum is installed."""
    return current_path(Path(sys.executable).parent, python_dir)
