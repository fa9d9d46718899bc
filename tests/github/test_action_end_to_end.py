"""action.yml run end to end as the runner runs it, against a served stand-in of GitHub.

Install (a real `pip install` of this checkout, once), read the findings, review, post,
outputs, step summary and the gate's exit status, checked as a user would check them: the
review on the pull request, the action's outputs, the job's conclusion and annotations.
The other runs reuse this interpreter's environment through the `install: false` input.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from github.action_harness import EXAMPLE_INPUTS as SAVED_COMMENTS
from github.action_harness import (
    NUMBER,
    ActionJob,
    action_job,
    installed_path,
    workflow_run_event,
)
from github.action_runner import ActionResult
from history.history_support import counts
from review_quorum.github.target import ACTIONS_BOT
from review_quorum.history import open_history
from review_quorum.markup.markers import BY, CODE, FINDING, find_markers

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")

# The example's bot comments come from its saved files; the pull request carries the same
# comments (`action_job(..., example_comments=True)`), as when the files are `gh api` output.
EXAMPLE_INPUTS = {**SAVED_COMMENTS, "read-comments": "false"}
STEPS = [
    "Set up Python",
    "Install review-quorum",
    "Fetch the pull request diff",
    "Review",
    "Post to the pull request",
    "Gate",
]


def outcomes(result: ActionResult) -> dict[str, str]:
    return {step.name: step.outcome for step in result.steps}


def plan_of(result: ActionResult) -> dict[str, object]:
    return json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def check_posted(job: ActionJob, result: ActionResult) -> None:
    """One review by the workflow's bot with one comment per inline finding, one summary."""
    [review] = job.fake.submitted_reviews_by(ACTIONS_BOT)
    assert review["state"] == "COMMENTED"
    assert review["commit_id"] == job.fake.head_sha
    comments = job.fake.comments_by(ACTIONS_BOT)
    assert len(comments) == int(result.outputs["inline-count"]) > 0
    assert all(kind in (FINDING, BY, CODE) for c in comments for kind, _ in find_markers(c["body"]))
    [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
    # and the record of the 13 bot comments it hid as duplicates of its findings
    assert [kind for kind, _ in find_markers(sticky["body"])] == ["summary"] + ["hidden"] * 13
    assert job.errors == []


SEEDED = {"pip", "setuptools"}


def installed(venv: Path) -> dict[str, str]:
    """Each distribution in a virtual environment, by normalised name, with its version."""
    [site] = venv.glob("lib/python*/site-packages")
    found = importlib.metadata.distributions(path=[str(site)])
    return {re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(): d.version for d in found}


def locked() -> dict[str, str]:
    """The pins of the Action's lock, action-requirements.txt."""
    text = (REPO_ROOT / "action-requirements.txt").read_text(encoding="utf-8")
    return dict(re.findall(r"^([a-z0-9-]+)==(\S+) \\$", text, flags=re.MULTILINE))


def test_the_action_installs_reviews_posts_and_fails_the_gate(tmp_path: Path) -> None:
    with action_job(tmp_path, example_comments=True) as job:
        result = job.run({**EXAMPLE_INPUTS, "sarif": "review-quorum.sarif"})
        assert outcomes(result) == dict.fromkeys(STEPS[:-1], "success") | {"Gate": "failure"}
        assert result.step("Gate").exit_code == 1
        assert result.conclusion == "failure"
        assert job.setup_python == [{"python-version": "3.12"}]
        venv = tmp_path / "runner-temp-1" / "review-quorum-venv"
        assert result.step("Install review-quorum").outputs["quorum"] == f"{venv}/bin/quorum"
        # Every dependency came from the hash-pinned lock, at its pinned version.
        # Every dependency came from the hash-pinned lock, at its pinned version (venv itself
        # seeds pip, and setuptools before Python 3.12).
        added = {name: v for name, v in installed(venv).items() if name not in SEEDED}
        assert added == locked() | {"review-quorum": importlib.metadata.version("review-quorum")}
        plan = plan_of(result)
        assert result.outputs == {
            "gate": "failed",
            "gate-count": "8",
            "findings-count": str(len(plan["findings"])),  # type: ignore[arg-type]
            "inline-count": str(len(plan["github_review"]["comments"])),  # type: ignore[index]
            "plan": str(tmp_path / "runner-temp-1" / "review-quorum-plan.json"),
            "sarif": "review-quorum.sarif",
        }
        sarif = json.loads((job.workspace / "review-quorum.sarif").read_text(encoding="utf-8"))
        assert sarif["version"] == "2.1.0"
        assert result.annotations("warning") == ["review-quorum: no file matches nothing/*.xml"]
        assert result.annotations("error") == [
            "review-quorum: 8 finding(s) at or above the confirmed level"
        ]
        assert result.summary == plan["summary_markdown"]
        assert result.summary.splitlines()[1] == "## Review assessment: 🔴 CRITICAL"
        check_posted(job, result)


def test_a_second_run_posts_nothing_new(tmp_path: Path) -> None:
    inputs = {**EXAMPLE_INPUTS, "install": "false", "fail-on-gate": "false"}
    with action_job(tmp_path, example_comments=True) as job:
        path = installed_path(job.python_dir)
        first = job.run(inputs, path=path)
        writes = len(job.fake.writes())
        second = job.run(inputs, path=path)
        assert outcomes(second) == dict.fromkeys(STEPS[1:-1], "success") | {
            "Set up Python": "skipped",
            "Gate": "skipped",
        }
        assert second.conclusion == "success" and second.outputs["gate"] == "failed"
        assert job.setup_python == []
        check_posted(job, first)
        [edit] = job.fake.writes()[writes:]  # the sticky summary, refreshed in place
        assert edit[0] == "PATCH" and "/issues/comments/" in edit[1]
        assert "posted 0 new inline comment(s)" in second.step("Post to the pull request").stderr


@pytest.mark.parametrize(
    ("inputs", "conclusion", "gate_step"),
    [
        ({"post": "false"}, "failure", "failure"),
        ({"post": "false", "fail-on-gate": "false"}, "success", "skipped"),
        ({"post": "false", "gate-level": "none"}, "success", "skipped"),
    ],
)
def test_without_posting_nothing_reaches_github(
    tmp_path: Path, inputs: dict[str, str], conclusion: str, gate_step: str
) -> None:
    with action_job(tmp_path, example_comments=True) as job:
        result = job.run(
            {**EXAMPLE_INPUTS, "install": "false", **inputs}, path=installed_path(job.python_dir)
        )
        assert outcomes(result)["Post to the pull request"] == "skipped"
        assert outcomes(result)["Gate"] == gate_step
        assert result.conclusion == conclusion
        assert job.fake.writes() == []
        assert job.errors == []


def test_install_false_without_quorum_on_path_fails_at_once(tmp_path: Path) -> None:
    # The machine's PATH without any folder holding quorum (an activated virtualenv has one).
    folders = os.environ.get("PATH", "").split(os.pathsep)
    machine = [folder for folder in folders if not shutil.which("quorum", path=folder)]
    with action_job(tmp_path, example_comments=True) as job:
        path = os.pathsep.join([str(job.python_dir), *machine])
        result = job.run({**EXAMPLE_INPUTS, "install": "false"}, path=path)
        assert outcomes(result)["Install review-quorum"] == "failure"
        assert set(list(outcomes(result).values())[2:]) == {"skipped"}
        assert result.annotations("error") == [
            "review-quorum: install is false, but no quorum command is on PATH"
        ]


RAW = "RAW FROM THE ARTIFACT <!-- review-quorum:finding forged --> @everyone <img src=x>"


def test_a_forks_plan_is_posted_by_the_trusted_run_as_rendered_from_its_findings(
    tmp_path: Path,
) -> None:
    """The fork workflow of docs/github.md: review without a write token, post from workflow_run."""
    with action_job(tmp_path, example_comments=True) as job:
        path = installed_path(job.python_dir)
        reviewed = job.run(
            {**EXAMPLE_INPUTS, "install": "false", "post": "false", "fail-on-gate": "false"},
            path=path,
        )
        assert job.fake.writes() == []
        plan = plan_of(reviewed)
        rendered = str(plan["summary_markdown"])
        plan["summary_markdown"] = plan["github_review"]["body"] = RAW  # type: ignore[index]
        for comment in plan["github_review"]["comments"]:  # type: ignore[index]
            comment["body"] = RAW
        artifact = tmp_path / "artifact" / "review-quorum-plan.json"
        artifact.parent.mkdir()
        artifact.write_text(json.dumps(plan), encoding="utf-8")
        inputs = {"install": "false", "plan": str(artifact), "pull-request": str(NUMBER)}
        posted = job.run(inputs, path=path, event_name="workflow_run", event=workflow_run_event())
        assert outcomes(posted) == {
            "Set up Python": "skipped",
            "Install review-quorum": "success",
            "Fetch the pull request diff": "skipped",
            "Review": "skipped",
            "Post to the pull request": "success",
            "Gate": "skipped",
        }
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        # Rendered afresh from the plan rebuilt from the bots' comments on GitHub; the
        # plan's verdicts are not used (the posting run was given none).
        assert sticky["body"].startswith(rendered.split("\n\n")[0])
        assert "Posted from a saved plan, taken as a proposal" in sticky["body"]
        assert "Not used: the plan's 7 verifier verdict(s)." in sticky["body"]
        comments = job.fake.comments_by(ACTIONS_BOT)
        bodies = [c["body"] for c in comments]
        bodies += [r["body"] for r in job.fake.submitted_reviews_by(ACTIONS_BOT)]
        stderr = posted.step("Post to the pull request").stderr
        assert f"posted {len(comments)} new inline comment(s) in 1 review(s)" in stderr
        assert not any("RAW FROM THE ARTIFACT" in body for body in bodies)
        assert job.errors == []


def test_a_plan_without_a_pull_request_to_post_to_fails_clearly(tmp_path: Path) -> None:
    with action_job(tmp_path, example_comments=True) as job:
        inputs = {"install": "false", "plan": "plan.json"}
        path = installed_path(job.python_dir)
        result = job.run(inputs, path=path, event_name="workflow_run", event=workflow_run_event())
        assert outcomes(result)["Post to the pull request"] == "failure"
        assert result.annotations("error") == [
            "review-quorum: no pull request to post to; pass the pull-request input"
        ]


def test_the_history_input_records_the_run(tmp_path: Path) -> None:
    history = tmp_path / "history" / "h.db"
    inputs = {**EXAMPLE_INPUTS, "install": "false", "post": "false", "fail-on-gate": "false"}
    with action_job(tmp_path) as job:
        result = job.run({**inputs, "history": str(history)}, path=installed_path(job.python_dir))
        assert result.conclusion == "success"
        assert "history: recorded run 1 of " in result.step("Review").stderr
    database = open_history(str(history), create=False)
    try:
        assert counts(database)["runs"] == 1
    finally:
        database.close()
