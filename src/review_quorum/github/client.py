"""The GitHub REST client: authentication, pagination, retries, pacing and dry runs.

`GitHubClient` wraps an injected `httpx.Client`. It sends the token only to the configured
API origin (https, or http on a loopback address), follows every `Link: rel="next"` with
`per_page=100` (lazily in `items` and `pages`, so that a caller may stop early), waits out
rate limits (403 secondary limits, 429, an exhausted primary limit) and server errors
honouring `Retry-After` and `x-ratelimit-reset`, backing off exponentially within a
bounded total wait, and spaces writes a second apart as GitHub asks.
A POST that fails with a server or transport error is not retried here: GitHub may have
applied it, so the caller re-reads what exists before trying again; so is any write whose
caller says it is not idempotent (`write(..., idempotent=False)`). The token never
appears in an error, a repr or dry-run output. In a dry run, writes are recorded in
`unsent` instead of being sent; without a token a dry run also skips reads ("offline").
GraphQL documents go through the same connection, retries and redaction to `graphql_url`
(``GITHUB_GRAPHQL_URL``, else derived from the REST root: ``/graphql`` beside
api.github.com, ``/api/graphql`` for ``/api/v3``): a query is retried like a GET and not
paced, a mutation is paced and recorded in a dry run like a write, and the GraphQL budget
is honoured (see `github.graphql`). `graphql()` returns the data of a query and raises on
any error; `graphql_result()` keeps partial data beside its errors; `graphql_nodes()` walks
a connection's pages by cursor.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx
import orjson

from review_quorum.errors import ConfigError, GitHubError
from review_quorum.github import graphql
from review_quorum.github.graphql import GraphQLResult
from review_quorum.github.urls import graphql_url_for as graphql_url_for
from review_quorum.github.urls import same_origin
from review_quorum.retrying import IDEMPOTENT as IDEMPOTENT
from review_quorum.retrying import (
    RetryingClient,
    check_token,
    retry_after,
    validate_api_url,
    whole_number,
)
from review_quorum.retrying import RetryPolicy as RetryPolicy

DEFAULT_API_URL = "https://api.github.com"
# GitHub documents at most 100 items per page.
PER_PAGE = 100
API_VERSION = "2022-11-28"
REDACTED = "Bearer [REDACTED]"


class GitHubClient(RetryingClient):
    """Requests to one GitHub API origin, authenticated with one token."""

    error = GitHubError
    name = "GitHub API"

    def __init__(
        self,
        http: httpx.Client,
        *,
        token: str | None,
        api_url: str = DEFAULT_API_URL,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        dry_run: bool = False,
        graphql_url: str | None = None,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        if token is None and not dry_run:
            raise ConfigError("GITHUB_TOKEN is not set: posting needs a token (or use --dry-run)")
        check_token(token, "GITHUB_TOKEN", "GitHub")
        api_url = validate_api_url(api_url)
        retry = retry or RetryPolicy()
        self._connect(
            http, token, api_url, retry, sleep=sleep, clock=clock, dry_run=dry_run, on_wait=on_wait
        )
        self.graphql_url = validate_api_url(
            graphql_url or graphql_url_for(api_url), "GITHUB_GRAPHQL_URL"
        )
        self._last_write: float | None = None
        self._budget: graphql.Budget | None = None

    @classmethod
    def from_env(
        cls, http: httpx.Client, env: Mapping[str, str] | None = None, **options: Any
    ) -> GitHubClient:
        """A client for `GITHUB_TOKEN`, `GITHUB_API_URL` (default api.github.com) and
        `GITHUB_GRAPHQL_URL` (default: derived from the API URL)."""
        env = os.environ if env is None else env
        token = env.get("GITHUB_TOKEN", "").strip() or None
        api_url = env.get("GITHUB_API_URL", "").strip() or DEFAULT_API_URL
        graphql_url = env.get("GITHUB_GRAPHQL_URL", "").strip() or None
        return cls(http, token=token, api_url=api_url, graphql_url=graphql_url, **options)

    def get(self, path: str) -> Any:
        """The decoded JSON at `path` (None when offline)."""
        if self.offline:
            return None
        return _json(self._send(self._build("GET", self.api_url + path)))

    def paginate(self, path: str) -> list[Any]:
        """Every item of the list at `path`, following `Link: rel="next"` to the end."""
        return list(self.items(path))

    def items(self, path: str) -> Iterator[Any]:
        """The items of the list at `path`, page after page: a caller that stops early asks
        for no further page."""
        for response in self._responses(path):
            page = _json(response)
            if not isinstance(page, list):
                url, kind = response.request.url, type(page).__name__
                what = f"GitHub API GET {url} returned {kind}, not a list"
                raise _error(response.request, what, response.status_code)
            yield from page

    def pages(self, path: str) -> Iterator[Any]:
        """Each page at `path`, decoded: for an object that holds a list (a commit's files)."""
        for response in self._responses(path):
            yield _json(response)

    def _responses(self, path: str) -> Iterator[httpx.Response]:
        """The pages at `path` (which may carry a query), `per_page=100`, following
        `Link: rel="next"` within the API origin and never to a page already read."""
        if self.offline:
            return
        separator = "&" if "?" in path else "?"
        url: str | None = f"{self.api_url}{path}{separator}per_page={PER_PAGE}"
        seen: set[str] = set()
        while url is not None:
            if url in seen:
                raise GitHubError(f"GitHub API pagination repeats {url}")
            seen.add(url)
            response = self._send(self._build("GET", url))
            yield response
            url = self._next_page(response)

    def write(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        dry_run: bool = False,
        idempotent: bool | None = None,
    ) -> Any:
        """Send a write and return its decoded JSON; in a dry run record it, return None.
        `idempotent=False` says a PUT, PATCH or DELETE must not be resent after a 5xx or a
        lost connection (it may have been applied): the caller finds out first."""
        request = self._build(method, self.api_url + path, body)
        if dry_run or self.dry_run:
            self.unsent.append(request)
            return None
        return _json(self._send(request, idempotent=idempotent))

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> Any:
        """The ``data`` of a GraphQL query (None when offline); any GraphQL error raises."""
        if self.offline:
            return None
        result = self.graphql_result(query, variables)
        if result.problems:
            listed = "; ".join(problem.describe() for problem in result.problems)
            text = f"{_describe(self._build('POST', self.graphql_url))} failed: {listed}"
            raise GitHubError(self._redact(text))
        return result.data

    def graphql_result(
        self,
        document: str,
        variables: Mapping[str, Any] | None = None,
        *,
        mutation: bool = False,
        dry_run: bool = False,
    ) -> GraphQLResult:
        """Run one GraphQL document; partial errors come back in `problems`.

        A mutation is a write: paced, and only recorded in a dry run. A query is a read:
        sent in a dry run that has a token, answered with no data when offline.
        """
        body = {"query": document, "variables": dict(variables or {})}
        request = self._build("POST", self.graphql_url, body)
        if mutation and (dry_run or self.dry_run):
            self.unsent.append(request)
            return GraphQLResult({})
        if self.offline:
            return GraphQLResult({})
        attempt = 0
        while True:
            self._await_budget()
            response = self._send(request, write=mutation, idempotent=True)
            try:
                result = graphql.decode(response, _describe(request))
            except GitHubError as err:
                raise _error(request, self._redact(str(err)), err.status) from None
            if not result.rate_limited:
                remaining = whole_number(response.headers.get("x-ratelimit-remaining"))
                reset = whole_number(response.headers.get("x-ratelimit-reset"))
                self._budget = graphql.budget(result.data, remaining, reset) or self._budget
                return result
            failure = _error(request, f"{_describe(request)}: GraphQL rate limit exceeded", 403)
            now = self._clock()
            delay = graphql.reset_delay(
                retry_after(response.headers.get("retry-after"), now),
                whole_number(response.headers.get("x-ratelimit-reset")),
                now,
                self._budget,
            )
            self.wait_before_retry(attempt, failure, delay)
            attempt += 1

    def graphql_nodes(
        self, document: str, variables: Mapping[str, Any], path: Sequence[str]
    ) -> list[Any]:
        """Every node of the connection at `path`, page by page through `$cursor`."""
        if self.offline:
            return []
        try:
            return graphql.walk(self.graphql_result, document, variables, path)
        except GitHubError as err:
            raise _again(err, self._redact(str(err))) from None

    def user_login(self) -> str | None:
        """The login the token acts as; None when GitHub will not say (403) or offline."""
        try:
            data = self.get("/user")
        except GitHubError as err:
            if err.status == 403:
                return None
            raise
        if data is None:
            return None
        login = data.get("login") if isinstance(data, dict) else None
        if not isinstance(login, str) or not login:
            raise GitHubError("GitHub API GET /user returned no login")
        return login

    def _build(self, method: str, url: str, body: Mapping[str, Any] | None = None) -> httpx.Request:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": API_VERSION}
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = orjson.dumps(body)
        return self._http.build_request(method, url, headers=headers, content=content)

    def _await_budget(self) -> None:
        """Before a query the GraphQL budget cannot pay for, wait until it is refilled."""
        if self._budget is None:
            return
        delay = self._budget.wait(self._clock())
        if delay > 0:
            failure = GitHubError("GitHub GraphQL rate limit exhausted", status=403)
            self.wait_before_retry(0, failure, delay)
            self._budget = None

    def _retry_delay(
        self, response: httpx.Response, attempt: int, idempotent: bool
    ) -> float | None:
        """How long to wait before resending, or None when resending cannot help."""
        headers = response.headers
        exhausted = headers.get("x-ratelimit-remaining") == "0"
        status = response.status_code
        secondary = status == 403 and _mentions_secondary_limit(response)
        rate_limited = status == 429 or secondary or (status == 403 and exhausted)
        server_error = status >= 500 and idempotent
        if not rate_limited and not server_error:
            return None
        asked = retry_after(headers.get("retry-after"), self._clock())
        if asked is not None:
            return asked
        reset = whole_number(headers.get("x-ratelimit-reset"))
        if exhausted and reset is not None:
            return max(float(reset) - self._clock(), 0.0) + 1.0
        floor = self._retry.secondary_delay if status in (403, 429) else self._retry.base_delay
        return min(floor * 2.0**attempt, max(self._retry.max_delay, floor))

    def _pace(self, write: bool) -> None:
        if not write:
            return
        if self._last_write is not None:
            gap = self._retry.write_interval - (self._clock() - self._last_write)
            if gap > 0:
                self._sleep(gap)
        self._last_write = self._clock()

    def _next_page(self, response: httpx.Response) -> str | None:
        url = response.links.get("next", {}).get("url")
        if url is None:
            return None
        try:
            inside = same_origin(httpx.URL(url), httpx.URL(self.api_url))
        except httpx.InvalidURL:  # no URL at all: followed no more than another host's
            inside = False
        if not inside:
            # Never send the token to another host, whatever a Link header says.
            raise GitHubError(f"GitHub API pagination points outside {self.api_url}")
        return str(url)

    def _message(self, response: httpx.Response) -> str:
        return _error_message(response)


def format_request(request: httpx.Request) -> str:
    """`request` as text: method, URL, headers (Authorization redacted) and JSON body."""
    lines = [f"{request.method} {request.url}"]
    for raw_name, raw_value in request.headers.raw:
        name = raw_name.decode("ascii")
        value = REDACTED if name.lower() == "authorization" else raw_value.decode("latin-1")
        lines.append(f"{name}: {value}")
    text = "\n".join(lines) + "\n"
    if request.content:
        pretty = orjson.dumps(orjson.loads(request.content), option=orjson.OPT_INDENT_2)
        text += "\n" + pretty.decode() + "\n"
    return text


def _json(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        what = f"{_describe(response.request)} returned invalid JSON"
        raise _error(response.request, what, response.status_code) from None


def _error(request: httpx.Request, message: str, status: int | None = None) -> GitHubError:
    """A `GitHubError` that carries the method and path of `request`, as httpx's do."""
    return GitHubError(message, status=status, method=request.method, path=request.url.path)


def _again(failure: GitHubError, message: str) -> GitHubError:
    """`failure` with a new message, keeping its status, method and path."""
    return GitHubError(message, status=failure.status, method=failure.method, path=failure.path)


def _describe(request: httpx.Request) -> str:
    return f"GitHub API {request.method} {request.url}"


def _error_message(response: httpx.Response) -> str:
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        return response.reason_phrase or "no message"
    if not isinstance(data, dict):
        return response.reason_phrase or "no message"
    message = str(data.get("message") or response.reason_phrase or "no message")
    errors = data.get("errors")
    if isinstance(errors, list) and errors:
        message += " (" + "; ".join(_error_detail(item) for item in errors) + ")"
    return message


def _error_detail(item: object) -> str:
    if isinstance(item, dict):
        return str(item.get("message") or item.get("code") or item)
    return str(item)


def _mentions_secondary_limit(response: httpx.Response) -> bool:
    text = response.text.lower()
    return "secondary rate limit" in text or "abuse detection" in text
