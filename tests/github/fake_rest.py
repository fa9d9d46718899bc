"""What every GitHub stand-in shares: tokens, routes, request checks, faults, pages, the log.

`GitHubStandIn` answers an `httpx.MockTransport` (and `fake_server`) for one repository.
A REST request is matched to an operation of GitHub's OpenAPI extract or of
`beyond_extract`, and validated against it (`SpecViolation` on a malformed one); then come
GitHub's answers to a bad token (401), a read-only token's write (403), another
repository or pull request (404), any injected fault, and the subclass's handler for the
operation, whose answer is checked against the extract's response schema. GraphQL
documents are validated against GitHub's schema before the subclass runs them. Lists are
paged with `Link` headers. Every request is logged as (method, path, status), a GraphQL
one as ("QUERY" or "MUTATION", operation name, status).

`Faults` is fault injection, per operation, for the GitHub and GitLab stand-ins alike: a
status with a body and headers (a rate limit with Retry-After, a 422, a 5xx), optionally
after applying the request (as when an answer is lost), `times` times after `skip`
requests; a connection reset with no answer at all (`lose`), before or after applying the
request (in process only: over HTTP, `fake_server` answers a raised error with 599); or an
interruption that stops the run half-way. A request whose answer was lost is logged with
status 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import orjson

from github import beyond_extract
from github.fake_graphql import NOT_ALLOWED
from github.fake_payloads import error, json_response
from github.github_openapi import GitHubSpec, Route, SpecViolation
from github.graphql_contract import Checked, check_request, github_schema
from review_quorum.github import GitHubClient, RetryPolicy
from review_quorum.github.client import graphql_url_for

API = "https://api.github.com"
# GitHub answers null line/position for outdated comments; its schema says integer.
OUTDATED_NULLS = frozenset({"line", "position"})

Handler = Callable[..., httpx.Response]


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
    lost: bool = False  # no answer: the connection is reset

    def response(self, request: httpx.Request | None = None) -> httpx.Response:
        if self.lost:
            raise httpx.ReadError("connection reset by peer", request=request)
        return json_response(self.status, self.body, self.headers)


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


class Faults:
    """Faults injected per operation, taken in the order they were injected."""

    faults: list[Fault]

    def fail(self, operation: str, status: int, **options: Any) -> Fault:
        fault = Fault(operation, status, **options)
        self.faults.append(fault)
        return fault

    def lose(self, operation: str, *, apply: bool = True, **options: Any) -> Fault:
        """Reset the connection instead of answering, by default after applying the request."""
        return self.fail(operation, 0, apply=apply, lost=True, **options)

    def interrupt(self, operation: str, *, skip: int = 0) -> None:
        self.faults.append(Fault(operation, 0, skip=skip, interrupt=True))

    def _fault(self, operation: str) -> Fault | None:
        """The fault this request of `operation` meets, if any (raising `Interrupted`)."""
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


class RestStandIn(Faults):
    """The transport of a platform's REST stand-in (GitHub's, beside its GraphQL, GitLab's,
    Azure DevOps' and Bitbucket's): a request under `api_url` is taken apart (its path
    below the API root, its query, its JSON body), answered by `_answer`, and logged
    (status 0 when its answer is lost)."""

    api_url: str
    log: list[tuple[str, str, int]]

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        assert url.startswith(self.api_url + "/"), f"request outside the API: {url}"
        root = httpx.URL(self.api_url).raw_path.decode().rstrip("/")
        path = request.url.raw_path.decode().split("?", 1)[0][len(root) :]
        query = dict(parse_qsl(request.url.query.decode()))
        body = orjson.loads(request.content) if request.content else None
        try:
            response = self._answer(request, path, query, body)
        except httpx.TransportError:
            self.log.append((request.method, path, 0))
            raise
        self.log.append((request.method, path, response.status_code))
        return response

    def writes(self) -> list[tuple[str, str, int]]:
        """Every request that changed (or tried to change) something."""
        return [entry for entry in self.log if entry[0] != "GET"]

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        raise NotImplementedError


class GitHubStandIn(RestStandIn):
    """One repository's REST and GraphQL transport; subclasses keep the state and answer."""

    def __init__(
        self,
        spec: GitHubSpec,
        *,
        owner: str = "octo-org",
        repo: str = "widgets",
        api_url: str = API,
        graphql_url: str | None = None,
    ) -> None:
        self.spec = spec
        self.owner, self.repo, self.api_url = owner, repo, api_url.rstrip("/")
        self.graphql_url = graphql_url or graphql_url_for(self.api_url)
        self.tokens: dict[str, str] = {}  # token -> login
        self.access: dict[str, str] = {}  # token -> "write" (default), "comment" or "read"
        self.installation_tokens: set[str] = set()
        self.time = FakeTime()
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        # A smaller page size than asked for, so that a few items take several pages.
        self.page_cap: int | None = None

    def add_token(
        self, token: str, login: str, *, installation: bool = False, access: str = "write"
    ) -> None:
        self.tokens[token] = login
        self.access[token] = access
        if installation:
            self.installation_tokens.add(token)

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

    def writes(self) -> list[tuple[str, str, int]]:
        """Every request that changed (or tried to change) something, GraphQL mutations too."""
        return [entry for entry in self.log if entry[0] not in ("GET", "QUERY")]

    # --- what subclasses provide --------------------------------------------------------

    def _handlers(self) -> dict[str, Handler]:
        """The operations this stand-in answers: handler(login=, token=, params=, query=,
        body=, path=)."""
        return {}

    def _has_pull(self, number: int) -> bool:
        return False

    def _run_graphql(self, checked: Checked, login: str, access: str) -> httpx.Response:
        raise SpecViolation("this stand-in answers no GraphQL")

    # --- the transport ------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        if str(request.url) == self.graphql_url:
            return self._graphql(request)
        return super().handle(request)

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        login = self.tokens.get(token)
        if login is None:
            return error(401, "Bad credentials")
        route, params = self._route(request.method, path)
        self.spec.check_request(route, params, query, body)
        if request.method != "GET" and self.access.get(token) == "read":
            return error(403, NOT_ALLOWED)
        if "owner" in params and (params["owner"], params["repo"]) != (self.owner, self.repo):
            return error(404, "Not Found")
        for name in ("pull_number", "issue_number"):
            if name in params and not self._has_pull(int(params[name])):
                return error(404, "Not Found")
        fault = self._fault(route.operation_id)
        if fault is not None and not fault.apply:
            return fault.response(request)
        handler = self._handlers().get(route.operation_id)
        if handler is None:
            raise SpecViolation(f"the fake does not implement {route.operation_id}")
        response = handler(
            login=login, token=token, params=params, query=query, body=body, path=path
        )
        if response.status_code < 300:
            data = orjson.loads(response.content or b"null")
            self.spec.check_response(route, response.status_code, data, nullable=OUTDATED_NULLS)
        return fault.response(request) if fault is not None else response

    def _route(self, method: str, path: str) -> tuple[Route, dict[str, str]]:
        matched = self.spec.match(method, path) or beyond_extract.match(method, path)
        if matched is None:
            raise SpecViolation(f"no GitHub operation for {method} {path}")
        return matched

    def _graphql(self, request: httpx.Request) -> httpx.Response:
        if request.method != "POST":
            raise SpecViolation(f"GraphQL takes POST, not {request.method}")
        checked = check_request(github_schema(), orjson.loads(request.content or b"null"))
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        login = self.tokens.get(token)
        if login is None:
            response = error(401, "This endpoint requires you to be authenticated.")
        elif (fault := self._fault("graphql")) is not None:
            response = fault.response()
        else:
            response = self._run_graphql(checked, login, self.access.get(token, "write"))
        kind = "MUTATION" if checked.is_mutation else "QUERY"
        self.log.append((kind, checked.name, response.status_code))
        return response

    # --- pages --------------------------------------------------------------------------

    def _page(self, items: list[Any], query: dict[str, str], path: str) -> httpx.Response:
        chunk, headers = self._paged(items, query, path)
        return json_response(200, chunk, headers)

    def _paged(
        self, items: list[Any], query: dict[str, str], path: str
    ) -> tuple[list[Any], dict[str, str]]:
        """The page of `items` that `query` asks for, and its `Link` header."""
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
        return chunk, {"Link": ", ".join(links)} if links else {}
