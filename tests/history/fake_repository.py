"""A stand-in for GitHub holding one repository's past pull requests, for `history sync`.

Requests for the operations in ../shared/github/github-rest-subset.json are validated
against it (`GitHubSpec`), answers included; the reads history needs beyond it (list pull
requests, a pull request's commits, a commit with its files' patches, the reactions of a
review or issue comment) are validated against `EXTRA_ROUTES`, written from GitHub's REST
documentation: path parameter types, the query parameters each operation accepts (enums
included) and `per_page` at most 100. GraphQL documents are validated against GitHub's
schema and executed over the same state (`fake_graphql`). Lists are paged with `Link`
headers; any operation can be made to fail (a rate limit) or to stop the run half-way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import graphql
import httpx
import orjson

from github import fake_graphql
from github.fake import FakeTime, Fault, Interrupted
from github.fake_payloads import Payloads, error, json_response
from github.github_openapi import GitHubSpec, SpecViolation
from review_quorum.github import GitHubClient, RetryPolicy
from review_quorum.github.client import graphql_url_for

API = "https://api.github.com"
PAGING = {"per_page": "integer", "page": "integer"}
REACTION = "+1|-1|laugh|confused|heart|hooray|rocket|eyes"
# operation: (path pattern, {query parameter: "integer" | "string" | "a|b|c" enum})
EXTRA_ROUTES: dict[str, tuple[str, dict[str, str]]] = {
    "pulls/list": (
        r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls",
        {
            "state": "open|closed|all",
            "head": "string",
            "base": "string",
            "sort": "created|updated|popularity|long-running",
            "direction": "asc|desc",
            **PAGING,
        },
    ),
    "pulls/list-commits": (
        r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls/(?P<pull_number>\d+)/commits",
        PAGING,
    ),
    "repos/get-commit": (
        r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/commits/(?P<ref>[^/]+)",
        PAGING,
    ),
    "reactions/list-for-pull-request-review-comment": (
        r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/pulls/comments/(?P<comment_id>\d+)/reactions",
        {"content": REACTION, **PAGING},
    ),
    "reactions/list-for-issue-comment": (
        r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/comments/(?P<comment_id>\d+)/reactions",
        {"content": REACTION, **PAGING},
    ),
}


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
        comment["reactions"] = _rollup([])
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
        comment["reactions"] = _rollup([])
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
        to["reactions"] = _rollup(listed)

    def resolve(self, comment: dict[str, Any], by: str) -> None:
        self.threads[comment["id"]] = {"isResolved": True, "resolvedBy": {"login": by}}

    def minimize(self, comment: dict[str, Any], reason: str) -> None:
        self.minimized[comment["node_id"]] = reason

    def listing(self) -> dict[str, Any]:
        closed = self.state == "closed"
        return {
            "id": self.number * 1000,
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


def _rollup(reactions: list[dict[str, Any]]) -> dict[str, Any]:
    counts = dict.fromkeys(REACTION.split("|"), 0)
    for reaction in reactions:
        counts[reaction["content"]] += 1
    return {"url": "https://api.github.com/reactions", "total_count": len(reactions), **counts}


class FakeRepository:
    def __init__(self, spec: GitHubSpec, *, owner: str = "octo-org", repo: str = "widgets"):
        self.spec, self.owner, self.repo, self.api_url = spec, owner, repo, API
        self.graphql_url = graphql_url_for(API)
        self.tokens: dict[str, str] = {}
        self.user_ids: dict[str, int] = {}
        self.pulls: dict[int, Pull] = {}
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        self._ids = 10_000

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    def add_pull(self, number: int, author: str, created_at: str, **options: Any) -> Pull:
        pull = Pull(self, number, author, f"Change {number}", created_at, **options)
        self.pulls[number] = pull
        return pull

    def interrupt(self, operation: str, *, skip: int = 0) -> None:
        self.faults.append(Fault(operation, 0, skip=skip, interrupt=True))

    def fail(self, operation: str, status: int, **options: Any) -> None:
        self.faults.append(Fault(operation, status, **options))

    def client(self, token: str, time: FakeTime | None = None) -> GitHubClient:
        time = time or FakeTime()
        http = httpx.Client(transport=httpx.MockTransport(self.handle))
        return GitHubClient(
            http, token=token, api_url=API, sleep=time.sleep, clock=time.clock, retry=RetryPolicy()
        )

    def operations(self) -> list[str]:
        return [path for _, path, _ in self.log]

    # --- the transport ------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if request.headers.get("authorization", "").removeprefix("Bearer ") not in self.tokens:
            return error(401, "Bad credentials")
        if url == self.graphql_url:
            response = self._graphql(request)
            self.log.append(("POST", "/graphql", response.status_code))
            return response
        assert url.startswith(self.api_url + "/"), f"request outside the API: {url}"
        assert request.method == "GET", f"history sync must only read, not {request.method}"
        path = url[len(self.api_url) :].split("?", 1)[0]
        query = dict(parse_qsl(request.url.query.decode()))
        operation, params = self._route(path, query)
        fault = self._fault(operation)
        response = (
            json_response(fault.status, fault.body, fault.headers)
            if fault is not None
            else self._dispatch(operation, params, query, path)
        )
        self.log.append(("GET", path, response.status_code))
        return response

    def _route(self, path: str, query: dict[str, str]) -> tuple[str, dict[str, str]]:
        for operation, (pattern, accepted) in EXTRA_ROUTES.items():
            found = re.fullmatch(pattern, path)
            if found:
                _check_query(operation, accepted, query)
                return operation, found.groupdict()
        matched = self.spec.match("GET", path)
        if matched is None:
            raise SpecViolation(f"no GitHub operation for GET {path}")
        route, params = matched
        self.spec.check_request(route, params, query, None)
        return route.operation_id, params

    def _fault(self, operation: str) -> Fault | None:
        for fault in self.faults:
            if fault.operation != operation or fault.times <= 0:
                continue
            if fault.skip:
                fault.skip -= 1
                return None
            fault.times -= 1
            if fault.interrupt:
                raise Interrupted(operation)
            return fault
        return None

    def _dispatch(
        self, operation: str, params: dict[str, str], query: dict[str, str], path: str
    ) -> httpx.Response:
        if (params["owner"], params["repo"]) != (self.owner, self.repo):
            return error(404, "Not Found")
        if operation == "pulls/list":
            return self._page(self._listing(query), query, path)
        if operation == "repos/get-commit":
            return self._commit(params["ref"], query)
        if operation.startswith("reactions/"):
            reactions = self._reactions(int(params["comment_id"]))
            return (
                error(404, "Not Found") if reactions is None else self._page(reactions, query, path)
            )
        pull = self.pulls.get(int(params.get("pull_number") or params["issue_number"]))
        if pull is None:
            return error(404, "Not Found")
        answers: dict[str, Callable[[], Any]] = {
            "pulls/get": pull.listing,
            "pulls/list-commits": lambda: [_without_files(c) for c in pull.commits],
            "pulls/list-review-comments": lambda: pull.review_comments,
            "pulls/list-reviews": lambda: pull.reviews,
            "issues/list-comments": lambda: pull.issue_comments,
        }
        data = answers[operation]()
        response = (
            json_response(200, data) if isinstance(data, dict) else self._page(data, query, path)
        )
        for route in self.spec.routes:
            if route.operation_id == operation:
                self.spec.check_response(route, 200, orjson.loads(response.content))
        return response

    def _listing(self, query: dict[str, str]) -> list[dict[str, Any]]:
        state = query.get("state", "open")
        pulls = [p for p in self.pulls.values() if state in ("all", p.state)]
        key = "updated_at" if query.get("sort") == "updated" else "created_at"
        pulls.sort(key=lambda p: getattr(p, key), reverse=query.get("direction", "desc") == "desc")
        return [pull.listing() for pull in pulls]

    def _commit(self, ref: str, query: dict[str, str]) -> httpx.Response:
        for pull in self.pulls.values():
            for commit in pull.commits:
                if commit["sha"] == ref:
                    per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
                    files = commit["files"][(page - 1) * per_page : page * per_page]
                    return json_response(200, {**_without_files(commit), "files": files})
        return error(404, "No commit found for SHA")

    def _reactions(self, comment_id: int) -> list[dict[str, Any]] | None:
        for pull in self.pulls.values():
            ids = {c["id"] for c in pull.review_comments + pull.issue_comments}
            if comment_id in ids:
                return pull.reactions.get(comment_id, [])
        return None

    def _page(self, items: list[Any], query: dict[str, str], path: str) -> httpx.Response:
        per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        links = [
            f'<{self.api_url}{path}?{urlencode(query | {"page": str(number)})}>; rel="{rel}"'
            for rel, number, present in [
                ("next", page + 1, page < last),
                ("last", last, page < last),
            ]
            if present
        ]
        return json_response(200, chunk, {"Link": ", ".join(links)} if links else {})

    # --- GraphQL --------------------------------------------------------------------------

    def _graphql(self, request: httpx.Request) -> httpx.Response:
        fault = self._fault("graphql")
        if fault is not None:
            return json_response(fault.status, fault.body, fault.headers)
        body = orjson.loads(request.content) if request.content else None
        checked = fake_graphql.check_request(fake_graphql.github_schema(), body)
        limit = {"cost": 1, "remaining": 4999, "resetAt": "2030-01-01T00:00:00Z"}
        root = {"repository": self._repository, "nodes": self._nodes, "rateLimit": limit}
        result = graphql.execute(
            fake_graphql.github_schema(),
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
                    "comments": lambda root=root, **_: {"nodes": [{"databaseId": root}]},
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


def _check_query(operation: str, accepted: dict[str, str], query: dict[str, str]) -> None:
    for name, value in query.items():
        kind = accepted.get(name)
        if kind is None:
            raise SpecViolation(f"{operation}: unknown query parameter {name!r}")
        if kind == "integer" and not value.isdigit():
            raise SpecViolation(f"{operation}: {name} must be an integer, not {value!r}")
        if "|" in kind and value not in kind.split("|"):
            raise SpecViolation(f"{operation}: {name} must be one of {kind}, not {value!r}")
    if int(query.get("per_page", "30")) > 100:
        raise SpecViolation(f"{operation}: per_page is at most 100")
