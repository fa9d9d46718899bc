"""The GitHub stand-in for `quorum review --github --post`, plus the reads triage needs.

`FakeGitHub` validates every request and answer against ../shared's REST and GraphQL
contracts. Triage also reads two operations outside that extract, described (and their
requests checked) in `github.beyond_extract`: a person's permission on the repository
(``GET /repos/{owner}/{repo}/collaborators/{username}/permission``: ``{"permission":
"admin|maintain|write|triage|read|none", "role_name", "user"}``, 404 for someone who is
not a collaborator) and the reactions of a review or issue comment.
"""

from __future__ import annotations

from typing import Any

import httpx

from github.fake import FakeGitHub
from github.fake_payloads import error, json_response, reaction_rollup
from github.fake_rest import Handler


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
        comment["reactions"] = reaction_rollup(listed)

    def reply(self, to: dict[str, Any], login: str, body: str) -> None:
        self.add_reply(login, to, body)

    def _handlers(self) -> dict[str, Handler]:
        return {
            **super()._handlers(),
            "repos/get-collaborator-permission-level": self._permission,
            "reactions/list-for-pull-request-review-comment": self._list_reactions,
            "reactions/list-for-issue-comment": self._list_reactions,
        }

    def _permission(self, params: dict[str, str], **_: Any) -> httpx.Response:
        login = params["username"]
        permission = self.permissions.get(login)
        if permission is None:
            return error(404, f"{login} is not a user")
        return json_response(
            200, {"permission": permission, "role_name": permission, "user": self._user(login)}
        )

    def _list_reactions(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        return self._page(self.reactions.get(int(params["comment_id"]), []), query, path)
