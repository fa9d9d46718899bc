"""Which pull request to post to: command line first, then the GitHub Actions environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum.errors import ConfigError, InputError
from review_quorum.github import PullRequest, resolve_target

SHA = "0123456789abcdef0123456789abcdef01234567"


def event_file(tmp_path: Path, payload: object) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return str(path)


def test_the_command_line_names_the_pull_request() -> None:
    assert resolve_target("octo/widgets", 12, {}) == PullRequest("octo", "widgets", 12)


def test_the_actions_environment_names_repository_number_and_head(tmp_path: Path) -> None:
    env = {
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_EVENT_PATH": event_file(
            tmp_path, {"pull_request": {"number": 5, "head": {"sha": SHA}}}
        ),
    }
    assert resolve_target(None, None, env) == PullRequest("octo", "widgets", 5, SHA)


def test_another_pr_on_the_command_line_does_not_take_the_event_head(tmp_path: Path) -> None:
    env = {
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_EVENT_PATH": event_file(
            tmp_path, {"pull_request": {"number": 5, "head": {"sha": SHA}}}
        ),
    }
    assert resolve_target("octo/other", 6, env) == PullRequest("octo", "other", 6)


def test_an_issue_comment_on_a_pull_request(tmp_path: Path) -> None:
    payload = {"issue": {"number": 9, "pull_request": {"url": "https://api.github.com/x"}}}
    env = {"GITHUB_REPOSITORY": "octo/widgets", "GITHUB_EVENT_PATH": event_file(tmp_path, payload)}
    assert resolve_target(None, None, env) == PullRequest("octo", "widgets", 9)


@pytest.mark.parametrize(
    ("repository", "number", "message"),
    [
        (None, 3, "no pull request to post to: pass --repo OWNER/NAME --pr N"),
        ("octo/widgets", None, "no pull request to post to"),
        ("octo", 3, r"--repo: expected OWNER/NAME, not 'octo'"),
        ("octo/../../admin", 3, r"--repo: expected OWNER/NAME, not 'octo/\.\./\.\./admin'"),
        ("octo/..", 3, "expected OWNER/NAME"),
        ("-octo/widgets", 3, "expected OWNER/NAME"),
        ("octo/wid gets", 3, "expected OWNER/NAME"),
        ("octo/widgets", 0, r"--pr: expected a pull request number >= 1, not 0"),
    ],
)
def test_a_missing_or_bad_target_is_a_config_error(
    repository: str | None, number: int | None, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_target(repository, number, {})


def test_a_push_event_has_no_pull_request(tmp_path: Path) -> None:
    env = {
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_EVENT_PATH": event_file(tmp_path, {"ref": "refs/heads/main"}),
    }
    with pytest.raises(ConfigError, match="no pull request to post to"):
        resolve_target(None, None, env)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, r"missing\.json: GITHUB_EVENT_PATH names a file that does not exist"),
        ("{not json", r"event\.json:char 1: the event payload is not JSON"),
        ("[1]", r"event\.json:/: the event payload is not a JSON object"),
    ],
)
def test_a_broken_event_payload_names_the_file(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / ("missing.json" if content is None else "event.json")
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        resolve_target("octo/widgets", 1, {"GITHUB_EVENT_PATH": str(path)})


def test_a_malformed_head_sha_is_ignored(tmp_path: Path) -> None:
    env = {
        "GITHUB_EVENT_PATH": event_file(
            tmp_path, {"pull_request": {"number": 5, "head": {"sha": "../x"}}}
        )
    }
    assert resolve_target("octo/widgets", None, env).head_sha is None
