"""The Action hides the bots' duplicate comments by default, and can link instead of post."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from github.action_harness import action_job, installed_path
from github.pull_scene import BotNote, add_bot_review
from review_quorum.github.target import ACTIONS_BOT

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")

NOTES = (
    BotNote(
        "coderabbitai[bot]",
        "app/db.py",
        67,
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**SQL injection: the search term is "
        "concatenated into the query.** Use a bound parameter.",
    ),
    BotNote(
        "sourcery-ai[bot]",
        "app/db.py",
        68,
        "**issue (security):** SQL injection through the search term concatenated into the query.",
    ),
)
# Only the pull request's own comments: the example's saved bot comments name other ids.
INPUTS = {"diff": "pr.diff", "config": "quorum.toml", "install": "false", "fail-on-gate": "false"}


def bot_comments(job_fake: object) -> list[dict[str, object]]:
    comments: list[dict[str, object]] = job_fake.review_comments  # type: ignore[attr-defined]
    return [c for c in comments if c["user"]["login"] in {n.login for n in NOTES}]  # type: ignore[index]


def test_posting_hides_the_duplicates_by_default(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        for note in NOTES:
            add_bot_review(job.fake, note)
        result = job.run(INPUTS, path=installed_path(job.python_dir))
        assert result.conclusion == "success", result.step("Post to the pull request").stderr
        hidden = job.fake.graphql.state.minimized
        assert hidden == {c["node_id"]: "DUPLICATE" for c in bot_comments(job.fake)}
        assert "2 duplicate bot comment(s) hidden" in result.step("Post to the pull request").stderr
        assert job.errors == []


def test_link_mode_posts_no_inline_comment_and_keeps_one_bot_comment(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        for note in NOTES:
            add_bot_review(job.fake, note)
        inputs = {**INPUTS, "inline-mode": "link"}
        result = job.run(inputs, path=installed_path(job.python_dir))
        assert result.conclusion == "success", result.step("Post to the pull request").stderr
        plan = json.loads(Path(result.outputs["plan"]).read_text(encoding="utf-8"))
        assert plan["github_review"]["comments"] == [] and result.outputs["inline-count"] == "0"
        assert job.fake.comments_by(ACTIONS_BOT) == []
        first, second = bot_comments(job.fake)
        assert set(job.fake.graphql.state.minimized) == {second["node_id"]}
        [sticky] = job.fake.issue_comments_by(ACTIONS_BOT)
        assert f"[comment by coderabbit]({first['html_url']})" in sticky["body"]


def test_hiding_can_be_turned_off_and_bad_values_are_refused(tmp_path: Path) -> None:
    with action_job(tmp_path) as job:
        for note in NOTES:
            add_bot_review(job.fake, note)
        off = job.run({**INPUTS, "hide-duplicates": "false"}, path=installed_path(job.python_dir))
        assert off.conclusion == "success"
        assert job.fake.graphql.state.minimized == {}
        bad = job.run({**INPUTS, "inline-mode": "both"}, path=installed_path(job.python_dir))
        assert bad.conclusion == "failure"
        assert "inline-mode must be post or link, not both" in bad.step("Review").stdout
