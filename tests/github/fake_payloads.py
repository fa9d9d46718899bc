"""The JSON objects the fake GitHub answers with, shaped like GitHub's own.

`Payloads` builds users, reviews, review comments and issue comments with the fields the
OpenAPI extract's response schemas require (ids, node ids, URLs, timestamps, author
association); `reaction_rollup` a comment's summary of its reactions; and the error bodies
GitHub sends: `basic-error`, `validation-error-simple` (bare strings that name no comment)
and `validation-error` (objects naming a field).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
import orjson

WEB = "https://github.com"
DOCS = "https://docs.github.com/rest"
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
# Ids as GitHub gives them now: past 2^32, so past GraphQL's deprecated 32-bit `databaseId`
# (and past the bundled example's saved comments, which the fake may hold too).
FIRST_ID = 4_300_000_000


class Payloads:
    """Builders for one pull request's objects; `FakeGitHub` keeps the state."""

    api_url: str
    owner: str
    repo: str
    number: int
    author: str
    head_sha: str
    user_ids: dict[str, int]
    bot_users: set[str]
    _ids: int
    _tick: int

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _now(self) -> str:
        self._tick += 1
        hours, minutes, seconds = self._tick // 3600 % 24, self._tick // 60 % 60, self._tick % 60
        return f"2026-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}Z"

    def _user(self, login: str) -> dict[str, Any]:
        user_id = self.user_ids.setdefault(login, 500 + len(self.user_ids))
        kind = "Bot" if login.endswith("[bot]") or login in self.bot_users else "User"
        return {
            "login": login,
            "id": user_id,
            "node_id": f"U_{user_id}",
            "type": kind,
            "site_admin": False,
        }

    @property
    def _web_pull(self) -> str:
        return f"{WEB}/{self.owner}/{self.repo}/pull/{self.number}"

    def _association(self, login: str) -> str:
        return "OWNER" if login == self.owner else "CONTRIBUTOR" if login == self.author else "NONE"

    def _review(self, login: str, body: str, state: str, commit: str | None) -> dict[str, Any]:
        review_id = self._next_id()
        html = f"{self._web_pull}#pullrequestreview-{review_id}"
        pull_url = f"{self.api_url}/repos/{self.owner}/{self.repo}/pulls/{self.number}"
        review = {
            "id": review_id,
            "node_id": f"PRR_{review_id}",
            "user": self._user(login),
            "body": body,
            "state": state,
            "html_url": html,
            "pull_request_url": pull_url,
            "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
            "commit_id": commit or self.head_sha,
            "author_association": self._association(login),
        }
        if state != "PENDING":
            review["submitted_at"] = self._now()
        return review

    def _review_comment(
        self, login: str, review_id: int | None, comment: dict[str, Any]
    ) -> dict[str, Any]:
        comment_id = self._next_id()
        html = f"{self._web_pull}#discussion_r{comment_id}"
        url = f"{self.api_url}/repos/{self.owner}/{self.repo}/pulls/comments/{comment_id}"
        pull_url = f"{self.api_url}/repos/{self.owner}/{self.repo}/pulls/{self.number}"
        line = comment.get("line")
        start = max((line or 1) - 3, 1)
        now = self._now()
        return {
            "url": url,
            "pull_request_review_id": review_id,
            "id": comment_id,
            "node_id": f"PRRC_{comment_id}",
            "diff_hunk": f"@@ -{start},3 +{start},4 @@",
            "path": comment["path"],
            "position": line,
            "original_position": line,
            "commit_id": self.head_sha,
            "original_commit_id": self.head_sha,
            "user": self._user(login),
            "body": comment["body"],
            "created_at": now,
            "updated_at": now,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": self._association(login),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "start_line": comment.get("start_line"),
            "original_start_line": comment.get("start_line"),
            "start_side": comment.get("start_side"),
            "line": line,
            "original_line": line,
            "side": comment.get("side", "RIGHT"),
            "subject_type": "line",
        }

    def _issue_comment(self, login: str, body: str) -> dict[str, Any]:
        comment_id = self._next_id()
        now = self._now()
        issue = f"{self.api_url}/repos/{self.owner}/{self.repo}/issues/{self.number}"
        return {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "url": f"{self.api_url}/repos/{self.owner}/{self.repo}/issues/comments/{comment_id}",
            "html_url": f"{self._web_pull}#issuecomment-{comment_id}",
            "body": body,
            "user": self._user(login),
            "created_at": now,
            "updated_at": now,
            "issue_url": issue,
            "author_association": self._association(login),
            "performed_via_github_app": None,
        }


def reaction_rollup(reactions: list[dict[str, Any]]) -> dict[str, Any]:
    """The `reactions` summary GitHub puts on a comment: the count of each kind."""
    counts = dict.fromkeys(REACTIONS, 0)
    for reaction in reactions:
        counts[reaction["content"]] += 1
    return {"url": "https://api.github.com/reactions", "total_count": len(reactions), **counts}


def json_response(status: int, data: Any, headers: Mapping[str, str] = {}) -> httpx.Response:
    return httpx.Response(
        status,
        content=orjson.dumps(data),
        headers={"Content-Type": "application/json; charset=utf-8", **headers},
    )


def error(status: int, message: str) -> httpx.Response:
    return json_response(
        status, {"message": message, "documentation_url": DOCS, "status": str(status)}
    )


def unprocessable(message: str) -> httpx.Response:
    """GitHub's validation-error-simple: the errors are bare strings naming no comment."""
    body = {
        "message": "Unprocessable Entity",
        "errors": [message],
        "documentation_url": DOCS,
        "status": "422",
    }
    return json_response(422, body)


def validation(resource: str, field_name: str, message: str) -> httpx.Response:
    error = {"resource": resource, "code": "custom", "field": field_name, "message": message}
    body = {
        "message": "Validation Failed",
        "errors": [error],
        "documentation_url": DOCS,
        "status": "422",
    }
    return json_response(422, body)
