"""action.yml with `reporter: github-check`, run as the runner runs it against the stand-in.

The fork workflow of docs/github.md with a check run: the pull_request run reviews without
posting, the workflow_run job posts the saved plan as one check run on the pull request's
head commit; a second posting run updates that run and adds nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from github.action_harness import (
    EXAMPLE_INPUTS,
    NUMBER,
    action_job,
    installed_path,
    workflow_run_event,
)

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")


def test_a_forks_plan_is_posted_as_one_check_run_with_annotations(tmp_path: Path) -> None:
    # the saved bot comments are the pull request's own: the plan's bot findings are
    # checked against them when the check run is posted
    with action_job(tmp_path, example_comments=True) as job:
        path = installed_path(job.python_dir)
        reviewed = job.run(
            {**EXAMPLE_INPUTS, "install": "false", "post": "false", "fail-on-gate": "false"},
            path=path,
        )
        plan = json.loads(Path(reviewed.outputs["plan"]).read_text(encoding="utf-8"))
        inputs = {
            "install": "false",
            "plan": reviewed.outputs["plan"],
            "pull-request": str(NUMBER),
            "reporter": "github-check",
            "check-name": "review-quorum (example)",
        }
        bots_said = (list(job.fake.issue_comments), list(job.fake.reviews))
        for _ in range(2):
            posted = job.run(
                inputs, path=path, event_name="workflow_run", event=workflow_run_event()
            )
            assert posted.step("Post to the pull request").outcome == "success"
        [run] = job.fake.checks.named("review-quorum (example)")
        assert (run["conclusion"], run["head_sha"]) == ("failure", job.fake.head_sha)
        # The plan's verdicts are not used (the posting run was given none): a finding a
        # verdict placed is placed by consensus, and reported.
        reported = [
            (f["file"], f["line"])
            for f in plan["findings"]
            if f["line"]
            and (
                f["disposition"] in ("inline", "summary")
                or f["in_diff"] is False
                or f["verdict"] is not None
            )
        ]
        annotated = job.fake.checks.annotations[run["id"]]
        assert sorted((a["path"], a["start_line"]) for a in annotated) == sorted(reported)
        assert reported
        assert [m for m, p, _ in job.fake.writes()] == ["POST"]  # the re-run changed nothing
        # a check run only: no comment or review of ours beside the bots' own
        assert (job.fake.issue_comments, job.fake.reviews) == bots_said
        assert (
            "check run 'review-quorum (example)' unchanged"
            in posted.step("Post to the pull request").stderr
        )
        assert job.errors == []


def test_an_unknown_reporter_fails_the_step_clearly(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        path = installed_path(job.python_dir)
        inputs = {"install": "false", "plan": "plan.json", "pull-request": "7", "reporter": "x"}
        result = job.run(inputs, path=path, event_name="workflow_run", event=workflow_run_event())
        assert result.step("Post to the pull request").exit_code == 2
        assert result.annotations("error") == [
            "review-quorum: reporter must be github-review, github-check or local, not x"
        ]
