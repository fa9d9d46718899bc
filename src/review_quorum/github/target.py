"""Which pull request to post to: from `--repo OWNER/NAME --pr N` or the Actions environment.

In GitHub Actions, `GITHUB_REPOSITORY` names the repository and the event payload at
`GITHUB_EVENT_PATH` holds `pull_request.number` and `pull_request.head.sha` (the commit the
review is about). Command-line values win over the environment. Owner and repository names
are checked against GitHub's alphabet so that they can never escape their URL path segment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import orjson

from review_quorum.errors import ConfigError, InputError

_OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
ACTIONS_BOT = "github-actions[bot]"


class PullRequest(msgspec.Struct, frozen=True):
    """One pull request; `head_sha` is the commit under review when known."""

    owner: str
    repo: str
    number: int
    head_sha: str | None = None

    @classmethod
    def create(cls, repository: str, number: int, head_sha: str | None = None) -> PullRequest:
        """A pull request from ``OWNER/NAME`` and its number, validated."""
        owner, slash, name = repository.strip().partition("/")
        if not slash or not _OWNER.fullmatch(owner) or not _valid_name(name):
            raise ConfigError(f"--repo: expected OWNER/NAME, not {repository!r}")
        if number < 1:
            raise ConfigError(f"--pr: expected a pull request number >= 1, not {number}")
        if head_sha is not None and not _SHA.fullmatch(head_sha):
            head_sha = None
        return cls(owner, name, number, head_sha)

    @property
    def path(self) -> str:
        """The API path of the repository, ``/repos/OWNER/NAME``."""
        return f"/repos/{self.owner}/{self.repo}"

    def __str__(self) -> str:
        return f"{self.owner}/{self.repo}#{self.number}"


def resolve_target(
    repository: str | None,
    number: int | None,
    env: Mapping[str, str],
    *,
    missing: str = "no pull request to post to",
) -> PullRequest:
    """The pull request named on the command line, completed from the Actions environment;
    `missing` starts the error saying what needed it when there is none."""
    event = _event(env)
    repository = repository or env.get("GITHUB_REPOSITORY") or None
    pull = _object(event.get("pull_request"))
    event_number = pull.get("number", _issue_pull_number(event))
    if number is None and isinstance(event_number, int) and not isinstance(event_number, bool):
        number = event_number
    if repository is None or number is None:
        raise ConfigError(
            f"{missing}: pass --repo OWNER/NAME --pr N, "
            "or run in a GitHub Actions pull_request workflow"
        )
    head = _object(pull.get("head"))
    same_pull = number == event_number
    sha = head.get("sha") if same_pull and isinstance(head.get("sha"), str) else None
    return PullRequest.create(repository, number, sha)


def in_actions(env: Mapping[str, str]) -> bool:
    return env.get("GITHUB_ACTIONS", "").lower() == "true"


def _event(env: Mapping[str, str]) -> Mapping[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        document = orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise InputError(path, "", "GITHUB_EVENT_PATH names a file that does not exist") from None
    except OSError as err:
        raise InputError(path, "", f"cannot read the event payload: {err.strerror}") from err
    except orjson.JSONDecodeError as err:
        raise InputError(path, f"char {err.pos}", "the event payload is not JSON") from None
    if not isinstance(document, dict):
        raise InputError(path, "/", "the event payload is not a JSON object")
    return document


def _issue_pull_number(event: Mapping[str, Any]) -> object:
    """An issue_comment event on a pull request names it as an issue with a pull_request key."""
    issue = event.get("issue")
    if isinstance(issue, dict) and isinstance(issue.get("pull_request"), dict):
        return issue.get("number")
    return None


def _object(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _valid_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name)) and name not in {".", ".."}
