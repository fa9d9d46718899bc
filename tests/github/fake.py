"""A stateful in-process fake of the GitHub REST endpoints review-quorum posts through.

`FakeGitHub` keeps one pull request's reviews, review comments, issue comments, users and
the diff's addressable lines per path, and answers an `httpx.MockTransport` with JSON shaped
like GitHub's (checked against the OpenAPI extract's response schemas). Every request is
validated against GitHub's OpenAPI extract first (`SpecViolation` on a malformed one), then
against the rules GitHub enforces beyond the schema: line anchors inside the diff, bodies of
at most 65,536 characters, one pending review per user, edits by the author only. Lists are
paginated with `Link` headers. Faults can be injected per operation: a rate limit with
Retry-After, a 422, a 5xx (optionally after applying the request, as when an answer is
lost), or an interruption that stops the run half-way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import orjson

from github.fake_checks import CheckRuns
from github.fake_graphql import NOT_ALLOWED, GraphQLEndpoint, check_request, github_schema
from github.fake_payloads import Payloads, error, json_response, unprocessable, validation
from github.github_openapi import GitHubSpec, Route, SpecViolation
from review_quorum.github import GitHubClient, RetryPolicy
from review_quorum.github.client import graphql_url_for

API = "https://api.github.com"
HEAD = "a" * 40
OUTDATED_NULLS = frozenset({"line", "position"})


class Interrupted(Exception):
    """The run stopped half-way (the process was killed) at an injected point."""


@dataclass
class Fault:
    operation: str
    status: int
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    skip: int = 0
    apply: bool = False
    interrupt: bool = False


class FakeTime:
    """An injectable clock and sleep: sleeping advances the clock, nobody waits."""

    def __init__(self, now: float = 1_767_225_600.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class FakeGitHub(Payloads):
    def __init__(
        self,
        spec: GitHubSpec,
        *,
        owner: str = "octo-org",
        repo: str = "widgets",
        number: int = 7,
        author: str = "pr-author",
        head_sha: str = HEAD,
        api_url: str = API,
        graphql_url: str | None = None,
    ) -> None:
        self.spec = spec
        self.owner, self.repo, self.number = owner, repo, number
        self.author, self.head_sha, self.api_url = author, head_sha, api_url.rstrip("/")
        self.graphql_url = graphql_url or graphql_url_for(self.api_url)
        self.graphql = GraphQLEndpoint(self)
        self.checks = CheckRuns(self)
        self.access: dict[str, str] = {}  # token -> "write" (default), "comment" or "read"
        self.time = FakeTime()
        self.tokens: dict[str, str] = {}
        self.installation_tokens: set[str] = set()
        self.user_ids: dict[str, int] = {}
        self.right: dict[str, set[int]] = {}
        self.left: dict[str, set[int]] = {}
        self.reviews: list[dict[str, Any]] = []
        self.review_comments: list[dict[str, Any]] = []
        self.issue_comments: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        # Reading a pull request: accounts GitHub marks as bots without a [bot] suffix
        # (Copilot), a smaller page size than asked for (so that a few comments take several
        # pages), and when the head commit was committed.
        self.bot_users: set[str] = set()
        self.page_cap: int | None = None
        self.head_committed_at = "2025-12-31T23:00:00Z"
        self._ids = 1000
        self._tick = 0

    # --- setting the scene --------------------------------------------------------------

    def add_token(
        self, token: str, login: str, *, installation: bool = False, access: str = "write"
    ) -> None:
        self.tokens[token] = login
        self.access[token] = access
        if installation:
            self.installation_tokens.add(token)

    def set_diff(
        self, right: Mapping[str, Iterable[int]], left: Mapping[str, Iterable[int]] = {}
    ) -> None:
        self.right = {path: set(lines) for path, lines in right.items()}
        self.left = {path: set(left.get(path, ())) for path in right}

    def fail(self, operation: str, status: int, **options: Any) -> Fault:
        fault = Fault(operation, status, **options)
        self.faults.append(fault)
        return fault

    def interrupt(self, operation: str, *, skip: int = 0) -> None:
        self.faults.append(Fault(operation, 0, skip=skip, interrupt=True))

    def add_issue_comment(self, login: str, body: str) -> dict[str, Any]:
        comment = self._issue_comment(login, body)
        self.issue_comments.append(comment)
        return comment

    def add_review(
        self,
        login: str,
        body: str,
        comments: list[dict[str, Any]],
        *,
        commit: str | None = None,
    ) -> dict[str, Any]:
        review = self._review(login, body, "COMMENTED", commit)
        self.reviews.append(review)
        for comment in comments:
            posted = self._review_comment(login, review["id"], comment)
            posted["commit_id"] = posted["original_commit_id"] = review["commit_id"]
            self.review_comments.append(posted)
        return review

    def add_reply(self, login: str, to: dict[str, Any], body: str) -> dict[str, Any]:
        reply = self._review_comment(
            login, None, {"path": to["path"], "line": to["line"], "body": body}
        )
        reply["in_reply_to_id"] = to["id"]
        self.review_comments.append(reply)
        return reply

    def push(
        self, sha: str, right: Mapping[str, Iterable[int]], move: Callable[[str, int], int | None]
    ) -> None:
        """A new head commit: the diff changes and comments follow their code (or go outdated)."""
        self.checks.commits.add(self.head_sha)
        self.head_sha = sha
        self.head_committed_at = self._now()
        self.set_diff(right)
        for comment in self.review_comments:
            if comment["line"] is None:
                continue
            line = move(comment["path"], comment["line"])
            comment["line"] = comment["position"] = line
            if line is not None:
                comment["commit_id"] = sha

    def client(self, token: str, time: FakeTime | None = None, **options: Any) -> GitHubClient:
        time = self.time = time or FakeTime()
        http = httpx.Client(transport=httpx.MockTransport(self.handle))
        return GitHubClient(
            http,
            token=token,
            api_url=self.api_url,
            graphql_url=self.graphql_url,
            sleep=time.sleep,
            clock=time.clock,
            retry=options.pop("retry", RetryPolicy()),
            **options,
        )

    # --- what tests look at -------------------------------------------------------------

    def comments_by(self, login: str) -> list[dict[str, Any]]:
        return [
            c
            for c in self.review_comments
            if c["user"]["login"] == login and not c.get("in_reply_to_id")
        ]

    def submitted_reviews_by(self, login: str) -> list[dict[str, Any]]:
        return [r for r in self.reviews if r["user"]["login"] == login and r["state"] != "PENDING"]

    def issue_comments_by(self, login: str) -> list[dict[str, Any]]:
        return [c for c in self.issue_comments if c["user"]["login"] == login]

    def writes(self) -> list[tuple[str, str, int]]:
        """Every request that changed (or tried to change) something, GraphQL mutations too."""
        return [entry for entry in self.log if entry[0] not in ("GET", "QUERY")]

    # --- the transport ------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if url == self.graphql_url:
            return self._graphql(request)
        assert url.startswith(self.api_url + "/"), f"request outside the API: {url}"
        path = url[len(self.api_url) :].split("?", 1)[0]
        query = dict(parse_qsl(request.url.query.decode()))
        body = orjson.loads(request.content) if request.content else None
        response = self._answer(request, path, query, body)
        self.log.append((request.method, path, response.status_code))
        return response

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        login = self.tokens.get(token)
        if login is None:
            return error(401, "Bad credentials")
        if request.method == "GET" and path == "/user":
            if token in self.installation_tokens:
                return error(403, "Resource not accessible by integration")
            return json_response(200, self._user(login) | {"name": login})
        matched = self.spec.match(request.method, path) or self.checks.match(request.method, path)
        if matched is None:
            raise SpecViolation(f"no GitHub operation for {request.method} {path}")
        route, params = matched
        self.spec.check_request(route, params, query, body)
        if request.method != "GET" and self.access.get(token) == "read":
            return error(403, NOT_ALLOWED)
        if (params["owner"], params["repo"]) != (self.owner, self.repo):
            return error(404, "Not Found")
        if "pull_number" in params and int(params["pull_number"]) != self.number:
            return error(404, "Not Found")
        if "issue_number" in params and int(params["issue_number"]) != self.number:
            return error(404, "Not Found")
        fault = self._fault(route.operation_id)
        if fault is not None and not fault.apply:
            return json_response(fault.status, fault.body, fault.headers)
        response = self._dispatch(route, login, params, query, body, path)
        if response.status_code < 300:
            data = orjson.loads(response.content or b"null")
            # GitHub answers null line/position for outdated comments; its schema says integer.
            self.spec.check_response(route, response.status_code, data, nullable=OUTDATED_NULLS)
        if fault is not None:
            return json_response(fault.status, fault.body, fault.headers)
        return response

    def _graphql(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            raise SpecViolation(f"GraphQL takes POST, not {request.method}")
        checked = check_request(github_schema(), orjson.loads(request.content or b"null"))
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        login = self.tokens.get(token)
        if login is None:
            response = error(401, "This endpoint requires you to be authenticated.")
        elif (fault := self._fault("graphql")) is not None:
            response = json_response(fault.status, fault.body, fault.headers)
        else:
            response = self.graphql.handle(checked, login, self.access.get(token, "write"))
        kind = "MUTATION" if checked.is_mutation else "QUERY"
        self.log.append((kind, checked.name, response.status_code))
        return response

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
        self,
        route: Route,
        login: str,
        params: dict[str, str],
        query: dict[str, str],
        body: Any,
        path: str,
    ) -> httpx.Response:
        handlers: dict[str, Callable[..., httpx.Response]] = {
            "pulls/get": self._get_pull,
            "pulls/list-reviews": self._list_reviews,
            "pulls/create-review": self._create_review,
            "pulls/delete-pending-review": self._delete_review,
            "pulls/dismiss-review": self._dismiss_review,
            "pulls/list-review-comments": self._list_review_comments,
            "pulls/update-review-comment": self._update_review_comment,
            "issues/list-comments": self._list_issue_comments,
            "issues/create-comment": self._create_issue_comment,
            "issues/update-comment": self._update_issue_comment,
            **self.checks.handlers(),
        }
        handler = handlers.get(route.operation_id)
        if handler is None:
            raise SpecViolation(f"the fake does not implement {route.operation_id}")
        return handler(login=login, params=params, query=query, body=body, path=path)

    # --- endpoints ----------------------------------------------------------------------

    def _get_pull(self, **_: Any) -> httpx.Response:
        pull = {
            "id": 1,
            "number": self.number,
            "state": "open",
            "user": self._user(self.author),
            "head": {"sha": self.head_sha, "ref": "feature"},
            "base": {"sha": "b" * 40, "ref": "main"},
        }
        return json_response(200, pull)

    def _list_reviews(
        self, login: str, query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        visible = [
            r for r in self.reviews if r["state"] != "PENDING" or r["user"]["login"] == login
        ]
        return self._page(visible, query, path)

    def _create_review(self, login: str, body: dict[str, Any], **_: Any) -> httpx.Response:
        event = body.get("event")
        text = body.get("body", "")
        if event in ("COMMENT", "REQUEST_CHANGES") and not text:
            return unprocessable(f"Body is required when event is {event}")
        if event == "REQUEST_CHANGES" and login == self.author:
            return unprocessable("Can not request changes on your own pull request")
        if len(text) > 65_536 or any(len(c["body"]) > 65_536 for c in body.get("comments", [])):
            return validation(
                "PullRequestReview", "body", "body is too long (maximum is 65536 characters)"
            )
        if event is None and any(
            r["state"] == "PENDING" and r["user"]["login"] == login for r in self.reviews
        ):
            return unprocessable("User can only have one pending review per pull request")
        for comment in body.get("comments", []):
            problem = self._anchor_problem(comment)
            if problem:
                return unprocessable(problem)
        states = {
            "COMMENT": "COMMENTED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            "APPROVE": "APPROVED",
        }
        review = self._review(login, text, states.get(event, "PENDING"), body.get("commit_id"))
        self.reviews.append(review)
        for comment in body.get("comments", []):
            self.review_comments.append(self._review_comment(login, review["id"], comment))
        return json_response(200, review)

    def _anchor_problem(self, comment: dict[str, Any]) -> str | None:
        if comment["path"] not in self.right:
            return "Path could not be resolved"
        lines = self.left if comment.get("side") == "LEFT" else self.right
        wanted = [comment.get("line"), comment.get("start_line")]
        if any(line is not None and line not in lines[comment["path"]] for line in wanted):
            return "Line could not be resolved"
        return None

    def _delete_review(self, login: str, params: dict[str, str], **_: Any) -> httpx.Response:
        review = self._find(self.reviews, params["review_id"])
        if review is None or review["user"]["login"] != login:
            return error(404, "Not Found")
        if review["state"] != "PENDING":
            return unprocessable("Can not delete a non-pending pull request review")
        self.reviews.remove(review)
        self.review_comments = [
            c for c in self.review_comments if c["pull_request_review_id"] != review["id"]
        ]
        return json_response(200, review)

    def _dismiss_review(self, params: dict[str, str], **_: Any) -> httpx.Response:
        review = self._find(self.reviews, params["review_id"])
        if review is None:
            return error(404, "Not Found")
        if review["state"] not in ("CHANGES_REQUESTED", "APPROVED"):
            return unprocessable("Can not dismiss a commented pull request review")
        review["state"] = "DISMISSED"
        return json_response(200, review)

    def _list_review_comments(
        self, login: str, query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        pending = {
            r["id"] for r in self.reviews if r["state"] == "PENDING" and r["user"]["login"] != login
        }
        visible = [c for c in self.review_comments if c["pull_request_review_id"] not in pending]
        return self._page(visible, query, path)

    def _update_review_comment(
        self, login: str, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        return self._edit(self.review_comments, login, params["comment_id"], body["body"])

    def _list_issue_comments(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        return self._page(self.issue_comments, query, path)

    def _create_issue_comment(self, login: str, body: dict[str, Any], **_: Any) -> httpx.Response:
        if len(body["body"]) > 65_536:
            return validation(
                "IssueComment", "body", "body is too long (maximum is 65536 characters)"
            )
        comment = self._issue_comment(login, body["body"])
        self.issue_comments.append(comment)
        return json_response(201, comment, {"Location": comment["url"]})

    def _update_issue_comment(
        self, login: str, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        return self._edit(self.issue_comments, login, params["comment_id"], body["body"])

    def _edit(
        self, items: list[dict[str, Any]], login: str, item_id: str, text: str
    ) -> httpx.Response:
        item = self._find(items, item_id)
        if item is None:
            return error(404, "Not Found")
        if item["user"]["login"] != login:
            return error(403, "You must have push access to edit this comment")
        if len(text) > 65_536:
            return validation("Comment", "body", "body is too long (maximum is 65536 characters)")
        item["body"], item["updated_at"] = text, self._now()
        return json_response(200, item)

    # --- helpers -------------------------------------------------------------------------

    def _page(
        self, items: list[dict[str, Any]], query: dict[str, str], path: str
    ) -> httpx.Response:
        per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
        per_page = min(per_page, self.page_cap or per_page)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        wanted = [("prev", page - 1, page > 1), ("next", page + 1, page < last)]
        wanted += [("last", last, page < last), ("first", 1, page > 1)]
        links = [
            f'<{self.api_url}{path}?{urlencode(query | {"page": str(number)})}>; rel="{rel}"'
            for rel, number, present in wanted
            if present
        ]
        return json_response(200, chunk, {"Link": ", ".join(links)} if links else {})

    def _find(self, items: list[dict[str, Any]], item_id: str) -> dict[str, Any] | None:
        return next((item for item in items if item["id"] == int(item_id)), None)
