"""A stand-in for GitHub holding one repository's past pull requests, for `history sync`.

`FakeRepository` is a `GitHubStandIn` (`github.fake_rest`): requests are validated against
../shared's REST extract or, for the reads history needs beyond it (list pull requests, a
pull request's commits, a commit with its files' patches, the reactions of a review or
issue comment), against `github.beyond_extract`; faults are injected and lists paged with
`Link` headers the same way as for the GitHub stand-in. This module keeps the pull
requests and answers the reads; GraphQL documents (validated against GitHub's schema) are
executed over the same state. History sync must only read: a write fails the test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import graphql
import httpx

from github import fake_graphql, graphql_contract
from github.fake_payloads import FIRST_ID, Payloads, error, json_response, reaction_rollup
from github.fake_rest import GitHubStandIn, Handler
from github.github_openapi import GitHubSpec


@dataclass
class Pull(Payloads):
    """One pull request's state; its payloads are built by `Payloads` with shared ids."""

    repository: FakeRepository
    number: int
    author: str
    title: str
    created_at: str
    state: str = "closed"
    merged: bool = True
    updated_at: str = ""
    commits: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    reactions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    threads: dict[int, dict[str, Any]] = field(default_factory=dict)
    minimized: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.api_url = self.repository.api_url
        self.owner, self.repo = self.repository.owner, self.repository.repo
        self.user_ids = self.repository.user_ids
        self.bot_users = {"Copilot"}  # GitHub marks Copilot's reviewer account as a bot
        self._tick = 0
        self.updated_at = self.updated_at or self.created_at

    def _next_id(self) -> int:
        return self.repository.next_id()

    @property
    def head_sha(self) -> str:  # type: ignore[override]
        return self.commits[-1]["sha"] if self.commits else "0" * 40

    # --- setting the scene --------------------------------------------------------------

    def commit(self, sha: str, date: str, files: dict[str, str | None], parents: int = 1) -> None:
        """A commit: per path its patch (None for a binary file), "removed" to delete it."""
        previous = self.commits[-1]["sha"] if self.commits else "f" * 40
        changes = [
            {"filename": path, "status": "removed", "additions": 0, "deletions": 1}
            if patch == "removed"
            else {"filename": path, "status": "modified", **({"patch": patch} if patch else {})}
            for path, patch in files.items()
        ]
        self.commits.append(
            {
                "sha": sha,
                "node_id": f"C_{sha[:8]}",
                "commit": {"message": f"commit {sha[:7]}", "committer": {"date": date}},
                "parents": [{"sha": previous}] + [{"sha": "e" * 40}] * (parents - 1),
                "files": changes,
            }
        )

    def inline(
        self, login: str, path: str, line: int, body: str, *, at: str, start_line: int | None = None
    ) -> dict[str, Any]:
        """A bot's review (empty body) with one inline comment, written at time `at`."""
        review = self._review(login, "", "COMMENTED", self.head_sha)
        review["submitted_at"] = at
        self.reviews.append(review)
        spec = {"path": path, "line": line, "body": body, "start_line": start_line}
        comment = self._review_comment(login, review["id"], spec)
        comment["created_at"] = comment["updated_at"] = at
        comment["reactions"] = reaction_rollup([])
        self.review_comments.append(comment)
        self.threads[comment["id"]] = {"isResolved": False, "resolvedBy": None}
        return comment

    def review_body(self, login: str, body: str, *, at: str) -> dict[str, Any]:
        review = self._review(login, body, "COMMENTED", self.head_sha)
        review["submitted_at"] = at
        self.reviews.append(review)
        return review

    def conversation(self, login: str, body: str, *, at: str) -> dict[str, Any]:
        comment = self._issue_comment(login, body)
        comment["created_at"] = comment["updated_at"] = at
        comment["reactions"] = reaction_rollup([])
        self.issue_comments.append(comment)
        return comment

    def reply(self, to: dict[str, Any], login: str, body: str, *, at: str) -> None:
        spec = {"path": to["path"], "line": to["line"], "body": body}
        reply = self._review_comment(login, None, spec)
        reply["in_reply_to_id"] = to["id"]
        reply["created_at"] = reply["updated_at"] = at
        self.review_comments.append(reply)

    def react(self, to: dict[str, Any], login: str, content: str) -> None:
        listed = self.reactions.setdefault(to["id"], [])
        user = self._user(login)
        listed.append({"id": self._next_id(), "node_id": "R", "user": user, "content": content})
        to["reactions"] = reaction_rollup(listed)

    def resolve(self, comment: dict[str, Any], by: str) -> None:
        self.threads[comment["id"]] = {"isResolved": True, "resolvedBy": {"login": by}}

    def minimize(self, comment: dict[str, Any], reason: str) -> None:
        self.minimized[comment["node_id"]] = reason

    def listing(self) -> dict[str, Any]:
        closed = self.state == "closed"
        return {
            "id": FIRST_ID + self.number,
            "number": self.number,
            "state": self.state,
            "title": self.title,
            "user": self._user(self.author),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "closed_at": self.updated_at if closed else None,
            "merged_at": self.updated_at if closed and self.merged else None,
            "head": {"sha": self.head_sha, "ref": f"topic-{self.number}"},
            "base": {"sha": "b" * 40, "ref": "main"},
        }


class FakeRepository(GitHubStandIn):
    def __init__(self, spec: GitHubSpec, *, owner: str = "octo-org", repo: str = "widgets"):
        super().__init__(spec, owner=owner, repo=repo)
        self.user_ids: dict[str, int] = {}
        self.pulls: dict[int, Pull] = {}
        self._ids = FIRST_ID + 10_000_000

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    def add_pull(self, number: int, author: str, created_at: str, **options: Any) -> Pull:
        pull = Pull(self, number, author, f"Change {number}", created_at, **options)
        self.pulls[number] = pull
        return pull

    def operations(self) -> list[str]:
        return [path for _, path, _ in self.log]

    # --- what the transport asks ---------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        reading = request.method == "GET" or str(request.url) == self.graphql_url
        assert reading, f"history sync must only read, not {request.method}"
        return super().handle(request)

    def _has_pull(self, number: int) -> bool:
        return number in self.pulls

    def _handlers(self) -> dict[str, Handler]:
        def listed(items: Any) -> Handler:
            return lambda params, query, path, **_: self._page(
                items(self._pull(params)), query, path
            )

        return {
            "pulls/list": lambda query, path, **_: self._page(self._listing(query), query, path),
            "pulls/get": lambda params, **_: json_response(200, self._pull(params).listing()),
            "pulls/list-commits": listed(lambda pull: [_without_files(c) for c in pull.commits]),
            "pulls/list-review-comments": listed(lambda pull: pull.review_comments),
            "pulls/list-reviews": listed(lambda pull: pull.reviews),
            "issues/list-comments": listed(lambda pull: pull.issue_comments),
            "repos/get-commit": self._commit,
            "reactions/list-for-pull-request-review-comment": self._list_reactions,
            "reactions/list-for-issue-comment": self._list_reactions,
        }

    def _pull(self, params: dict[str, str]) -> Pull:
        return self.pulls[int(params.get("pull_number") or params["issue_number"])]

    def _listing(self, query: dict[str, str]) -> list[dict[str, Any]]:
        state = query.get("state", "open")
        pulls = [p for p in self.pulls.values() if state in ("all", p.state)]
        key = "updated_at" if query.get("sort") == "updated" else "created_at"
        pulls.sort(key=lambda p: getattr(p, key), reverse=query.get("direction", "desc") == "desc")
        return [pull.listing() for pull in pulls]

    def _commit(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        for pull in self.pulls.values():
            for commit in pull.commits:
                if commit["sha"] == params["ref"]:
                    files, headers = self._paged(commit["files"], query, path)
                    return json_response(200, {**_without_files(commit), "files": files}, headers)
        return error(404, "No commit found for SHA")

    def _list_reactions(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        comment_id = int(params["comment_id"])
        for pull in self.pulls.values():
            ids = {c["id"] for c in pull.review_comments + pull.issue_comments}
            if comment_id in ids:
                return self._page(pull.reactions.get(comment_id, []), query, path)
        return error(404, "Not Found")

    # --- GraphQL --------------------------------------------------------------------------

    def _run_graphql(
        self, checked: graphql_contract.Checked, login: str, access: str
    ) -> httpx.Response:
        assert not checked.is_mutation, f"history sync must only read, not {checked.name}"
        limit = {"cost": 1, "remaining": 4999, "resetAt": "2030-01-01T00:00:00Z"}
        root = {"repository": self._repository, "nodes": self._nodes, "rateLimit": limit}
        result = graphql.execute(
            graphql_contract.github_schema(),
            checked.document,
            root_value=root,
            variable_values=checked.variables,
            field_resolver=fake_graphql._resolve,
        )
        assert isinstance(result, graphql.ExecutionResult) and not result.errors, result
        return json_response(200, {"data": result.data})

    def _repository(self, owner: str, name: str, **_: Any) -> dict[str, Any] | None:
        if (owner, name) != (self.owner, self.repo):
            return None
        return {"pullRequest": self._pull_request}

    def _pull_request(self, number: int, **_: Any) -> dict[str, Any] | None:
        pull = self.pulls.get(number)
        if pull is None:
            return None

        def threads(first: int, after: str | None = None, **_: Any) -> dict[str, Any]:
            assert first <= 100, "GraphQL connections give at most 100 nodes"
            nodes = [
                {
                    "isResolved": state["isResolved"],
                    "resolvedBy": state["resolvedBy"],
                    "comments": lambda root=root, **_: {"nodes": [{"fullDatabaseId": str(root)}]},
                }
                for root, state in pull.threads.items()
            ]
            return _connection(nodes, first, after)

        return {"reviewThreads": threads}

    def _nodes(self, ids: list[str]) -> list[dict[str, Any] | None]:
        assert len(ids) <= 100, "GraphQL nodes() takes at most 100 ids"
        found: dict[str, dict[str, Any]] = {}
        for pull in self.pulls.values():
            for typename, items in (
                ("PullRequestReviewComment", pull.review_comments),
                ("IssueComment", pull.issue_comments),
            ):
                for item in items:
                    reason = pull.minimized.get(item["node_id"])
                    found[item["node_id"]] = {
                        "__typename": typename,
                        "id": item["node_id"],
                        "isMinimized": reason is not None,
                        "minimizedReason": reason,
                    }
        return [found.get(node_id) for node_id in ids]


def _connection(nodes: list[Any], first: int, after: str | None) -> dict[str, Any]:
    start = int(after) if after else 0
    chunk = nodes[start : start + first]
    end = start + len(chunk)
    return {
        "nodes": chunk,
        "pageInfo": {"hasNextPage": end < len(nodes), "endCursor": str(end) if chunk else None},
    }


def _without_files(commit: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in commit.items() if key != "files"}
