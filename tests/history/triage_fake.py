"""The GitHub stand-in for `quorum review --github --post`, plus the reads triage needs.

`FakeGitHub` validates every request and answer against ../shared's REST and GraphQL
contracts. Triage also reads two operations outside that extract, validated here as
`fake_repository.EXTRA_ROUTES` are (written from GitHub's REST documentation): a
person's permission on the repository (``GET /repos/{owner}/{repo}/collaborators/
{username}/permission``: ``{"permission": "admin|maintain|write|triage|read|none",
"role_name", "user"}``, 404 for someone who is not a collaborator) and the reactions of a
review or issue comment.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

import httpx

from github.fake import FakeGitHub
from github.fake_payloads import error, json_response
from history.fake_repository import EXTRA_ROUTES, _check_query, _rollup

PERMISSION = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/collaborators/(?P<username>[^/]+)/permission"
REACTIONS = {
    op: pattern for op, (pattern, _) in EXTRA_ROUTES.items() if op.startswith("reactions/")
}


class TriageGitHub(FakeGitHub):
    """One pull request that can be posted to, with collaborators and reactions."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.permissions: dict[str, str] = {}
        self.reactions: dict[int, list[dict[str, Any]]] = {}

    def react(self, comment: dict[str, Any], login: str, content: str) -> None:
        listed = self.reactions.setdefault(comment["id"], [])
        user = self._user(login)
        listed.append({"id": self._next_id(), "node_id": "REA", "user": user, "content": content})
        comment["reactions"] = _rollup(listed)

    def reply(self, to: dict[str, Any], login: str, body: str) -> None:
        reply = self._review_comment(
            login, None, {"path": to["path"], "line": to["line"], "body": body}
        )
        reply["in_reply_to_id"] = to["id"]
        self.review_comments.append(reply)

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = str(request.url)[len(self.api_url) :].split("?", 1)[0]
        query = dict(parse_qsl(request.url.query.decode()))
        answered = self._triage_read(request.method, path, query)
        if answered is None:
            return super().handle(request)
        self.log.append((request.method, path, answered.status_code))
        return answered

    def _triage_read(self, method: str, path: str, query: dict[str, str]) -> httpx.Response | None:
        found = re.fullmatch(PERMISSION, path)
        if found and method == "GET":
            assert not query, "the permission endpoint takes no query"
            login = found["username"]
            permission = self.permissions.get(login)
            if permission is None:
                return error(404, f"{login} is not a user")
            return json_response(
                200,
                {"permission": permission, "role_name": permission, "user": self._user(login)},
            )
        for operation, pattern in REACTIONS.items():
            match = re.fullmatch(pattern, path)
            if match and method == "GET":
                _check_query(operation, EXTRA_ROUTES[operation][1], query)
                return json_response(200, self.reactions.get(int(match["comment_id"]), []))
        return None
