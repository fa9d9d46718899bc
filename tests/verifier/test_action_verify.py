"""action.yml with the verifier inputs, run as the runner runs it: a pull request from the
repository itself is verified (and no pull request text is sent); a fork's is not."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from github.action_harness import (
    EXAMPLE_INPUTS,
    action_job,
    installed_path,
    pull_request_event,
)
from review_quorum.github.target import ACTIONS_BOT
from verifier.openai_standin import StandIn

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")


def inputs(url: str) -> dict[str, str]:
    return {
        **EXAMPLE_INPUTS,
        "verdicts": "",
        "install": "false",
        "fail-on-gate": "false",
        "post": "false",
        "verify-url": url,
        "verify-model": "m",
    }


def test_the_action_verifies_a_pull_request_from_the_repository(
    tmp_path: Path, standin: StandIn
) -> None:
    event = pull_request_event()
    with action_job(tmp_path, example_comments=True) as job:
        shutil.copytree(job.workspace / "head" / "app", job.workspace / "app")
        posting = {**inputs(standin.url), "post": "true"}
        result = job.run(posting, path=installed_path(job.python_dir), event=event)
        assert result.step("Review").outcome == "success"
        # The saved plan is posted. A posting run rebuilds it from the pull request and uses
        # no verdicts it was not given itself (SPEC 8, trust round 2), so its summary claims
        # no verification it did not apply. (Passing the review's verdicts to the post step
        # is the follow-up that brings them back.)
        assert result.step("Post to the pull request").outcome == "success"
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        assert "Verifier: 3 verified" not in sticky["body"]
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
    assert plan["verification"]["verified"] == 3
    assert len(standin.requests) == 3  # the SARIF-less run asked once per cluster
    pull = event["pull_request"]
    for request in standin.requests:
        body = json.dumps(request["body"])
        for text in (pull["title"], pull["body"], pull["head"]["label"]):  # the ref is a word
            assert text not in body


def test_the_action_does_not_verify_a_forks_pull_request(tmp_path: Path, standin: StandIn) -> None:
    event = copy.deepcopy(pull_request_event())
    event["pull_request"]["head"]["repo"] = {
        **event["pull_request"]["head"]["repo"],
        "full_name": "octo-dev/stockroom",
        "fork": True,
    }
    with action_job(tmp_path) as job:
        shutil.copytree(job.workspace / "head" / "app", job.workspace / "app")
        result = job.run(inputs(standin.url), path=installed_path(job.python_dir), event=event)
        assert result.step("Review").outcome == "success"
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
    assert standin.requests == []
    assert "verification" not in plan
    assert any("fork" in note for note in result.annotations("notice"))
