"""The fake GitHub's GraphQL endpoint: GitHub's schema checks every request, then the same
state the REST side keeps answers it.

Requests are checked first (`graphql_contract`). Execution reads and changes the
`FakeGitHub` state: node ids are the REST objects' `node_id`s, a review thread is a
top-level review comment with its replies (id `PRRT_<database id of the first comment>`),
and the minimized and resolved flags sit beside the REST objects. Connections insist on
`first` or `last` between 1 and 100, as GitHub does. Errors take GitHub's shape (`type`,
`path`, `locations`, `message`), and a token's access decides what it may change: "read"
changes nothing, "comment" may resolve threads but not hide comments, "write" may do both.
Each request costs one point of an hourly budget; an exhausted budget answers GitHub's
RATE_LIMIT error until the reset.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import graphql
import httpx
from graphql import GraphQLError, GraphQLResolveInfo

from github.fake_payloads import json_response
from github.graphql_contract import Checked, github_schema

if TYPE_CHECKING:
    from github.fake import FakeGitHub

HOUR = 3600
LIMIT = 5000
MINIMIZABLE = {"IC": "issue_comments", "PRRC": "review_comments", "PRR": "reviews"}
NOT_ALLOWED = "Resource not accessible by integration"


class Refusal(Exception):
    """An error GitHub answers inside `errors`, with its `type`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class GraphQLState:
    """What the GraphQL side adds to the REST state, and what tests look at."""

    minimized: dict[str, str] = field(default_factory=dict)  # node id -> classifier
    resolved: dict[int, str] = field(default_factory=dict)  # root comment id -> login
    refused: dict[str, tuple[str, str]] = field(default_factory=dict)  # node id -> error
    documents: list[str] = field(default_factory=list)
    page_cap: int | None = None
    used: int = 0
    reset_at: float = 0.0


class GraphQLEndpoint:
    """Answers POST /graphql for one fake GitHub."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.state = GraphQLState()

    def handle(self, checked: Checked, login: str, access: str) -> httpx.Response:
        self.state.documents.append(checked.text)
        now = self.fake.time.now
        if now >= self.state.reset_at:
            self.state.used, self.state.reset_at = 0, now + HOUR
        headers = self._limit_headers()
        if self.state.used >= LIMIT:
            message = "API rate limit already exceeded for user ID 1."
            problem = {"type": "RATE_LIMIT", "code": "graphql_rate_limit", "message": message}
            return json_response(200, {"errors": [problem]}, headers)
        self.state.used += 1
        view = View(self, login, access)
        result = graphql.execute(
            github_schema(),
            checked.document,
            root_value=view.mutation() if checked.is_mutation else view.query(),
            variable_values=checked.variables,
            operation_name=checked.name or None,
            field_resolver=_resolve,
        )
        assert isinstance(result, graphql.ExecutionResult)  # every resolver is synchronous
        answer: dict[str, Any] = {"data": result.data}
        if result.errors:
            answer["errors"] = [_github_error(item) for item in result.errors]
        return json_response(200, answer, self._limit_headers())

    def _limit_headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(LIMIT),
            "x-ratelimit-remaining": str(max(LIMIT - self.state.used, 0)),
            "x-ratelimit-reset": str(int(self.state.reset_at)),
            "x-ratelimit-resource": "graphql",
        }

    def exhaust(self, remaining: int = 0) -> None:
        """Spend the budget down to `remaining` points (the window starts now)."""
        self.state.reset_at = self.fake.time.now + HOUR
        self.state.used = LIMIT - remaining

    def refuse(self, node_id: str, kind: str = "UNPROCESSABLE", message: str = "") -> None:
        """Make every mutation on `node_id` fail with a GitHub error of `kind`."""
        self.state.refused[node_id] = (kind, message or f"Could not change {node_id}")


def _resolve(source: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
    """Dict fields by name; a callable field is called with the field's arguments."""
    name = info.field_name
    if not isinstance(source, dict):
        raise AssertionError(f"the fake has no object for {info.parent_type.name}.{name}")
    if name not in source:
        raise AssertionError(f"the fake does not implement {info.parent_type.name}.{name}")
    value = source[name]
    return value(**args) if callable(value) else value


def _github_error(item: GraphQLError) -> dict[str, Any]:
    original = item.original_error
    if not isinstance(original, Refusal):
        # A resolver bug or a null where the schema promises a value: the fake is wrong.
        raise AssertionError(f"fake GraphQL failed at {item.path}: {item.message}") from original
    answer: dict[str, Any] = {"type": original.kind, "path": item.path, "message": item.message}
    if item.locations:
        answer["locations"] = [{"line": at.line, "column": at.column} for at in item.locations]
    return answer


class View:
    """The GraphQL objects of one request, built on demand from the REST state."""

    def __init__(self, endpoint: GraphQLEndpoint, login: str, access: str) -> None:
        self.endpoint = endpoint
        self.fake = endpoint.fake
        self.state = endpoint.state
        self.login = login
        self.access = access

    # --- roots -----------------------------------------------------------------------

    def query(self) -> dict[str, Any]:
        return {
            "repository": self.repository,
            "node": self.node,
            "nodes": lambda ids: [self._node_or_none(node_id) for node_id in ids],
            "rateLimit": self.rate_limit,
            "viewer": self._actor(self.fake._user(self.login)),
        }

    def mutation(self) -> dict[str, Any]:
        return {
            "minimizeComment": self.minimize,
            "unminimizeComment": self.unminimize,
            "resolveReviewThread": lambda input: self._resolve_thread(input, True),
            "unresolveReviewThread": lambda input: self._resolve_thread(input, False),
        }

    def rate_limit(self, dryRun: bool = False) -> dict[str, Any]:
        reset = self.state.reset_at
        return {
            "cost": 1,
            "limit": LIMIT,
            "nodeCount": 1,
            "remaining": max(LIMIT - self.state.used, 0),
            "used": self.state.used,
            "resetAt": _iso(reset),
        }

    def repository(self, owner: str, name: str, followRenames: bool = True) -> dict[str, Any]:
        if (owner, name) != (self.fake.owner, self.fake.repo):
            raise Refusal(
                "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
            )
        return {
            "__typename": "Repository",
            "id": f"R_{self.fake.owner}_{self.fake.repo}",
            "nameWithOwner": f"{owner}/{name}",
            "pullRequest": self.pull_request,
            "pullRequests": self.pull_requests,
            "object": self.git_object,
        }

    def git_object(self, oid: str | None = None, expression: str | None = None) -> Any:
        """The head commit (the only object the fake knows); anything else is null."""
        if oid != self.fake.head_sha:
            return None
        return {"__typename": "Commit", "oid": oid, "committedDate": self.fake.head_committed_at}

    def pull_request(self, number: int) -> dict[str, Any]:
        if number != self.fake.number:
            raise Refusal(
                "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
            )
        fake = self.fake
        return {
            "__typename": "PullRequest",
            "id": f"PR_{fake.number}",
            "number": fake.number,
            "reviewThreads": lambda **page: self._page(self._threads(), "reviewThreads", page),
            "comments": lambda **page: self._page(
                [self.issue_comment(item) for item in fake.issue_comments], "comments", page
            ),
            "reviews": lambda **page: self._page(
                [self.review(item) for item in self._visible_reviews()], "reviews", page
            ),
        }

    def pull_requests(self, orderBy: dict[str, str], **page: Any) -> dict[str, Any]:
        """This pull request (the latest updated), then the others from the newest."""
        if orderBy["field"] != "UPDATED_AT" or set(page) - {"first", "last", "after", "before"}:
            raise AssertionError(f"the fake lists pull requests by update only, not {page}")
        others = [self._other_pull(number, *pull) for number, pull in self.fake.other_pulls]
        pulls = [self.pull_request(self.fake.number), *reversed(others)]
        return self._page(pulls[:: -1 if orderBy["direction"] == "ASC" else 1], "pulls", page)

    def _other_pull(
        self, number: int, commenters: list[str], reviewers: list[str]
    ) -> dict[str, Any]:
        def authors(typename: str, logins: list[str]) -> Any:
            users = [self.fake._user(login) for login in logins]
            items = [{"__typename": typename, "author": self._actor(user)} for user in users]
            return lambda **page: self._page(items, typename, page)

        return {
            "__typename": "PullRequest",
            "number": number,
            "comments": authors("IssueComment", commenters),
            "reviews": authors("PullRequestReview", reviewers),
        }

    def node(self, id: str) -> dict[str, Any]:
        found = self._node_or_none(id)
        if found is None:
            raise Refusal("NOT_FOUND", f"Could not resolve to a node with the global id of '{id}'")
        return found

    # --- objects ---------------------------------------------------------------------

    def review_comment(self, item: dict[str, Any]) -> dict[str, Any]:
        return {
            "__typename": "PullRequestReviewComment",
            **self._comment(item),
            "path": item["path"],
            "line": item["line"],
            "outdated": item["line"] is None,
            "replyTo": lambda: self._reply_to(item),
        }

    def issue_comment(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"__typename": "IssueComment", **self._comment(item)}

    def review(self, item: dict[str, Any]) -> dict[str, Any]:
        return {"__typename": "PullRequestReview", **self._comment(item), "state": item["state"]}

    def thread(self, root: dict[str, Any]) -> dict[str, Any]:
        members = [root] + [
            item for item in self.fake.review_comments if item.get("in_reply_to_id") == root["id"]
        ]
        resolved_by = self.state.resolved.get(root["id"])
        return {
            "__typename": "PullRequestReviewThread",
            "id": f"PRRT_{root['id']}",
            "isResolved": resolved_by is not None,
            "isOutdated": root["line"] is None,
            "path": root["path"],
            "line": root["line"],
            "resolvedBy": None
            if resolved_by is None
            else self._actor(self.fake._user(resolved_by)),
            "viewerCanResolve": self.access != "read",
            "comments": lambda **page: self._page(
                [self.review_comment(item) for item in members], "comments", page
            ),
        }

    def _comment(self, item: dict[str, Any]) -> dict[str, Any]:
        node_id = item["node_id"]
        reason = self.state.minimized.get(node_id)
        return {
            "id": node_id,
            "databaseId": lambda: _int32(item["id"]),
            "fullDatabaseId": str(item["id"]),
            "body": item["body"],
            "url": item["html_url"],
            "author": self._actor(item["user"]),
            "viewerDidAuthor": item["user"]["login"] == self.login,
            "isMinimized": reason is not None,
            "minimizedReason": None if reason is None else reason.lower().replace("_", "-"),
            "viewerCanMinimize": self.access == "write",
            "createdAt": item.get("created_at") or item.get("submitted_at"),
        }

    def _actor(self, user: dict[str, Any]) -> dict[str, Any]:
        if user["type"] == "Bot":  # GraphQL names an app by its slug, without "[bot]"
            return {"__typename": "Bot", "login": user["login"].removesuffix("[bot]")}
        return {"__typename": "User", "login": user["login"]}

    # --- mutations -------------------------------------------------------------------

    def minimize(self, input: dict[str, Any]) -> dict[str, Any]:
        subject = self._subject(input["subjectId"])
        if self.access != "write":
            raise Refusal("FORBIDDEN", NOT_ALLOWED)
        self.state.minimized[input["subjectId"]] = input["classifier"]
        return {"clientMutationId": input.get("clientMutationId"), "minimizedComment": subject()}

    def unminimize(self, input: dict[str, Any]) -> dict[str, Any]:
        subject = self._subject(input["subjectId"])
        if self.access != "write":
            raise Refusal("FORBIDDEN", NOT_ALLOWED)
        self.state.minimized.pop(input["subjectId"], None)
        return {"clientMutationId": input.get("clientMutationId"), "unminimizedComment": subject()}

    def _subject(self, node_id: str) -> Callable[[], dict[str, Any]]:
        if node_id in self.state.refused:
            raise Refusal(*self.state.refused[node_id])
        prefix, _, _ = node_id.partition("_")
        item = self._by_node(MINIMIZABLE.get(prefix), node_id)
        if item is None:
            raise Refusal(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'"
            )
        return lambda: self._view(prefix, item)

    def _resolve_thread(self, input: dict[str, Any], resolve: bool) -> dict[str, Any]:
        thread_id = input["threadId"]
        if thread_id in self.state.refused:
            raise Refusal(*self.state.refused[thread_id])
        root = self._thread_root(thread_id)
        if root is None:
            raise Refusal(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{thread_id}'"
            )
        if self.access == "read":
            raise Refusal("FORBIDDEN", NOT_ALLOWED)
        if resolve:
            self.state.resolved[root["id"]] = self.login
        else:
            self.state.resolved.pop(root["id"], None)
        return {"clientMutationId": input.get("clientMutationId"), "thread": self.thread(root)}

    # --- helpers ---------------------------------------------------------------------

    def _node_or_none(self, node_id: str) -> dict[str, Any] | None:
        prefix, _, _ = node_id.partition("_")
        if prefix == "PRRT":
            root = self._thread_root(node_id)
            return None if root is None else self.thread(root)
        item = self._by_node(MINIMIZABLE.get(prefix), node_id)
        return None if item is None else self._view(prefix, item)

    def _view(self, prefix: str, item: dict[str, Any]) -> dict[str, Any]:
        views = {"IC": self.issue_comment, "PRRC": self.review_comment, "PRR": self.review}
        return views[prefix](item)

    def _by_node(self, collection: str | None, node_id: str) -> dict[str, Any] | None:
        """The comment or review whose node id (opaque, as GitHub's are) is `node_id`."""
        if collection is None:
            return None
        items: list[dict[str, Any]] = getattr(self.fake, collection)
        if collection == "reviews":
            items = self._visible_reviews()
        return next((item for item in items if item["node_id"] == node_id), None)

    def _item(self, collection: str | None, number: str) -> dict[str, Any] | None:
        if collection is None or not number.isdigit():
            return None
        items: list[dict[str, Any]] = getattr(self.fake, collection)
        if collection == "reviews":
            items = self._visible_reviews()
        return next((item for item in items if item["id"] == int(number)), None)

    def _visible_reviews(self) -> list[dict[str, Any]]:
        return [
            review
            for review in self.fake.reviews
            if review["state"] != "PENDING" or review["user"]["login"] == self.login
        ]

    def _threads(self) -> list[dict[str, Any]]:
        hidden = {
            r["id"]
            for r in self.fake.reviews
            if r["state"] == "PENDING" and r["user"]["login"] != self.login
        }
        return [
            self.thread(item)
            for item in self.fake.review_comments
            if not item.get("in_reply_to_id") and item["pull_request_review_id"] not in hidden
        ]

    def _thread_root(self, thread_id: str) -> dict[str, Any] | None:
        prefix, _, number = thread_id.partition("_")
        if prefix != "PRRT" or not number.isdigit():
            return None
        root = self._item("review_comments", number)
        return root if root is not None and not root.get("in_reply_to_id") else None

    def _reply_to(self, item: dict[str, Any]) -> dict[str, Any] | None:
        parent = self._item("review_comments", str(item.get("in_reply_to_id") or ""))
        return None if parent is None else self.review_comment(parent)

    def _page(self, items: list[Any], name: str, page: dict[str, Any]) -> dict[str, Any]:
        first, last = page.get("first"), page.get("last")
        if first is None and last is None:
            raise Refusal(
                "MISSING_PAGINATION_BOUNDARIES",
                "You must provide a `first` or `last` value to properly paginate "
                f"the `{name}` connection.",
            )
        for bound, size in (("first", first), ("last", last)):
            if size is not None and not 0 <= size <= 100:
                raise Refusal(
                    "EXCESSIVE_PAGINATION",
                    f"Requesting {size} records on the `{name}` connection exceeds "
                    f"the `{bound}` limit of 100 records.",
                )
        start = _cursor_index(page.get("after"), -1) + 1 + (page.get("skip") or 0)
        stop = _cursor_index(page.get("before"), len(items))
        window = list(enumerate(items))[start:stop]
        size = min(first if first is not None else last or 0, self.state.page_cap or 100)
        chosen = window[:size] if first is not None else window[-size:] if size else []
        return {
            "nodes": [item for _, item in chosen],
            "edges": [{"cursor": _cursor(index), "node": item} for index, item in chosen],
            "totalCount": len(items),
            "pageInfo": {
                "hasNextPage": bool(chosen) and chosen[-1][0] < min(stop, len(items)) - 1,
                "hasPreviousPage": bool(chosen) and chosen[0][0] > 0,
                "startCursor": _cursor(chosen[0][0]) if chosen else None,
                "endCursor": _cursor(chosen[-1][0]) if chosen else None,
            },
        }


def _int32(value: int) -> int:
    """The deprecated `databaseId`: GitHub cannot give an id past 2^31 - 1 as an Int."""
    if value >= 2**31:
        raise Refusal("INTERNAL", f"databaseId cannot represent {value}: use fullDatabaseId")
    return value


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _cursor_index(cursor: str | None, default: int) -> int:
    if cursor is None:
        return default
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
    except ValueError:
        raise Refusal(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from None
    prefix, _, number = text.rpartition(":")
    if prefix != "cursor:v2" or not number.isdigit():
        raise Refusal(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        )
    return int(number)


def _iso(moment: float) -> str:
    return datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
