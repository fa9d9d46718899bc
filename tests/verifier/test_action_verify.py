"""action.yml with the verifier inputs, run as the runner runs it: a pull request from the
repository itself is verified (and no pull request text is sent); a fork's is not."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from github.action_harness import (
    EXAMPLE_INPUTS,
    NUMBER,
    action_job,
    installed_path,
    pull_request_event,
    workflow_run_event,
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
        # the bots' findings come from their comments on GitHub only, as a user's would;
        # the code is read from the head checkout in head/
        posting = {**inputs(standin.url), "post": "true", "findings": "analysers/*.sarif"}
        posting["verify-checkout"] = "head"
        result = job.run(posting, path=installed_path(job.python_dir), event=event)
        assert result.step("Review").outcome == "success"
        # The posting step verifies the plan as it rebuilds it from GitHub's comments (the
        # plan's own verdicts are not used) and says so in the sticky summary. The bots'
        # clusters are answered from the review step's cache; a saved plan keeps no
        # message bodies, so the analyser's cluster (bandit's) is asked once more.
        assert result.step("Post to the pull request").outcome == "success"
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
    assert plan["verification"]["verified"] == 3
    assert "Verifier: 1 verified, 2 from the cache (3 LIKELY)" in sticky["body"]
    assert "Not used: the plan's 3 verifier verdict(s)." in sticky["body"]
    assert len(standin.requests) == 4  # 3 by the review step, 1 by the posting step
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
    with action_job(tmp_path, example_comments=True) as job:
        shutil.copytree(job.workspace / "head" / "app", job.workspace / "app")
        posting = {**inputs(standin.url), "post": "true"}
        result = job.run(posting, path=installed_path(job.python_dir), event=event)
        assert result.step("Review").outcome == "success"
        assert result.step("Post to the pull request").outcome == "success"
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
    assert standin.requests == []  # neither the review nor the posting step
    assert "verification" not in plan
    assert "Verifier:" not in sticky["body"]
    notices = [note for note in result.annotations("notice") if "fork" in note]
    assert len(notices) == 2


def test_the_trusted_run_posting_a_forks_plan_verifies_it_itself(
    tmp_path: Path, standin: StandIn
) -> None:
    """The fork flow of docs/github.md: the workflow_run job verifies the plan as it
    rebuilds it, with answers of its own only: never a cache the artifact carries."""
    with action_job(tmp_path, example_comments=True) as job:
        path = installed_path(job.python_dir)
        untrusted = {**inputs(""), "findings": "analysers/*.sarif", "verify-url": ""}
        reviewed = job.run(untrusted, path=path)
        artifact = tmp_path / "artifact"
        artifact.mkdir()
        shutil.copy(reviewed.outputs["plan"], artifact / "review-quorum-plan.json")
        trusted = {
            "install": "false",
            "plan": str(artifact / "review-quorum-plan.json"),
            "pull-request": str(NUMBER),
            "diff": "pr.diff",
            "verify-url": standin.url,
            "verify-model": "m",
            "verify-checkout": "head",
        }
        first = job.run(trusted, path=path, event_name="workflow_run", event=workflow_run_event())
        assert first.step("Post to the pull request").outcome == "success"
        asked = len(standin.requests)
        assert asked > 0
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        assert f"Verifier: {asked} verified, 0 from the cache" in sticky["body"]
        # The fork uploads answers of its own (every finding DISMISSED) where a cache is
        # looked for by default: beside the plan, and in the working directory.
        [own] = (tmp_path / "runner-temp-2").glob("review-quorum-verify.*/cache.json")
        forged = json.loads(own.read_text(encoding="utf-8"))
        for entry in forged["entries"].values():
            entry.update(verdict="DISMISSED", cited_lines=[], reason="FORGED")
        for place in (artifact, job.workspace, job.workspace / "head"):
            (place / ".quorum-verifier-cache.json").write_text(json.dumps(forged), "utf-8")
            (place / "review-quorum-verifier-cache.json").write_text(json.dumps(forged), "utf-8")
        again = job.run(trusted, path=path, event_name="workflow_run", event=workflow_run_event())
        assert again.step("Post to the pull request").outcome == "success"
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
    assert len(standin.requests) == 2 * asked  # asked again: nothing from the fork's answers
    assert f"Verifier: {asked} verified, 0 from the cache" in sticky["body"]


def test_the_review_step_takes_the_verifier_inputs(tmp_path: Path, standin: StandIn) -> None:
    """verify-concurrency, verify-timeout, verify-max, verify-budget-s and verify-key-env
    reach the review step's verifier (each answer of the stand-in takes 1.5 s here)."""
    standin.always = "slow"
    key = {"VERIFIER_KEY": "sk-standin-0123"}

    def verification(limits: dict[str, str]) -> dict[str, Any]:
        standin.requests.clear()
        standin.most_in_flight = 0
        given = {**inputs(standin.url), "verify-checkout": "head", **limits}
        result = job.run(given, path=installed_path(job.python_dir), env=key)
        assert result.step("Review").outcome == "success"
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
        found: dict[str, Any] = plan["verification"]
        return found

    with action_job(tmp_path) as job:
        at_once = verification({"verify-timeout": "5", "verify-concurrency": "3"})
        assert (at_once["verified"], standin.most_in_flight) == (3, 3)  # three, not two
        timed_out = verification({"verify-timeout": "0.5", "verify-budget-s": "10"})
        assert timed_out["not_verified"] == {"timeout": 3}  # 0.5 s, not 60
        # two of the three, one at a time: the 0.4 s budget is spent by the first
        limits = {"verify-max": "2", "verify-concurrency": "1", "verify-budget-s": "0.4"}
        spent = verification({**limits, "verify-key-env": "VERIFIER_KEY"})
    assert spent["not_verified"] == {"time budget": 1, "timeout": 1}
    assert spent["skipped"]["budget"] == 1
    assert len(standin.requests) == 1
    assert standin.requests[0]["headers"]["authorization"] == "Bearer sk-standin-0123"


def test_the_posting_step_takes_the_verifier_inputs(tmp_path: Path, standin: StandIn) -> None:
    """verify-max, verify-concurrency, verify-budget-s and verify-key-env reach the posting
    step's verifier too (a fork's plan, posted and verified by the workflow_run job)."""
    with action_job(tmp_path, example_comments=True) as job:
        path = installed_path(job.python_dir)
        untrusted = {**inputs(""), "findings": "analysers/*.sarif", "verify-url": ""}
        plan = job.run(untrusted, path=path).outputs["plan"]
        standin.always = "slow"  # each answer takes 1.5 s
        trusted = {
            "install": "false",
            "plan": plan,
            "pull-request": str(NUMBER),
            "diff": "pr.diff",
            "verify-url": standin.url,
            "verify-model": "m",
            "verify-checkout": "head",
            "verify-max": "2",
            "verify-concurrency": "1",
            "verify-budget-s": "0.4",
            "verify-key-env": "VERIFIER_KEY",
        }
        key = {"VERIFIER_KEY": "sk-standin-0123"}
        event = workflow_run_event()
        posted = job.run(trusted, path=path, event_name="workflow_run", event=event, env=key)
        assert posted.step("Post to the pull request").outcome == "success"
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        body = sticky["body"]
        first = (len(standin.requests), standin.most_in_flight)
        # and verify-timeout: both asked, each given up after 0.3 s (not 60)
        trusted.update({"verify-timeout": "0.3", "verify-budget-s": "10"})
        again = job.run(trusted, path=path, event_name="workflow_run", event=event, env=key)
        assert again.step("Post to the pull request").outcome == "success"
        [timed_out] = job.fake.issue_comments_by(ACTIONS_BOT)
    assert "Not verified, placed by consensus: 2 (timeout: 2)." in timed_out["body"]
    # verify-max 2 of the 3 eligible; one at a time, so the 0.4 s budget is spent by the
    # first (cut at the budget), and the second is never sent
    assert "Not verified: budget (1 more eligible than --verify-max)." in body
    assert "Not verified, placed by consensus: 2 (time budget: 1, timeout: 1)." in body
    assert first == (1, 1)
    assert len(standin.requests) == 3  # 1, then 2 more
    assert standin.requests[0]["headers"]["authorization"] == "Bearer sk-standin-0123"
