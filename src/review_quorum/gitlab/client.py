"""The GitLab REST v4 client: authentication, pagination, retries and dry runs.

`GitLabClient` wraps an injected `httpx.Client`. It sends the token (a project, group or
personal access token, as ``Authorization: Bearer``) only to the configured API root
(https, or http on a loopback address), walks lists page by page through ``x-next-page``
with ``per_page=100``, and waits out rate limits (429, honouring ``Retry-After`` and
``RateLimit-Reset``) and server errors of idempotent requests (`retrying.RetryingClient`,
shared with the GitHub client), backing off exponentially within a bounded total wait and
telling `on_wait` about every retry. A POST that fails
with a server or transport error is not resent here: GitLab may have applied it, so the
poster re-reads before trying again. A CI job token (``CI_JOB_TOKEN``) is refused with a
message naming the token that is needed: GitLab accepts job tokens on a short list of
endpoints that includes no note, discussion or status. The token never appears in an
error or in dry-run output; in a dry run writes are recorded in `unsent`, and without a
token a dry run reads nothing either ("offline").
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx
import msgspec
import orjson

from review_quorum.errors import ConfigError, GitLabError
from review_quorum.retrying import (
    JsonRetryingClient,
    RetryPolicy,
    check_token,
    validate_api_url,
    whole_number,
)

DEFAULT_API_URL = "https://gitlab.com/api/v4"
PER_PAGE = 100
# The most pages one list is read to: 100,000 notes is far beyond any merge request.
MAX_PAGES = 1000
TOKEN_HELP = (
    "create a project access token (Settings > Access tokens, role Reporter or above, "
    "scope api; read_api is enough for --gitlab alone) and store it as a masked CI/CD "
    "variable named GITLAB_TOKEN"
)
JOB_TOKEN_REFUSED = (
    "GITLAB_TOKEN is not set, and a CI job token (CI_JOB_TOKEN) cannot read or write "
    "merge request notes, discussions or commit statuses: " + TOKEN_HELP
)


class User(msgspec.Struct, frozen=True):
    """The account a token acts as (GET /user)."""

    id: int
    username: str
    bot: bool = False


class GitLabClient(JsonRetryingClient):
    """Requests to one GitLab API root, authenticated with one token."""

    error = GitLabError
    name = "GitLab API"

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
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        if token is None and not dry_run:
            raise ConfigError("GITLAB_TOKEN is not set: " + TOKEN_HELP + " (or use --dry-run)")
        check_token(token, "GITLAB_TOKEN", "GitLab")
        api_url = validate_api_url(api_url, "GITLAB_API_URL")
        retry = retry or RetryPolicy(write_interval=0.0)
        self._connect(
            http, token, api_url, retry, sleep=sleep, clock=clock, dry_run=dry_run, on_wait=on_wait
        )

    @classmethod
    def from_env(
        cls, http: httpx.Client, env: Mapping[str, str] | None = None, **options: Any
    ) -> GitLabClient:
        """A client for `GITLAB_TOKEN` and `GITLAB_API_URL` (else `CI_API_V4_URL`, else
        gitlab.com); only a job token present is refused with what to set instead."""
        env = os.environ if env is None else env
        token = env.get("GITLAB_TOKEN", "").strip() or None
        if token is None and env.get("CI_JOB_TOKEN") and not options.get("dry_run"):
            raise ConfigError(JOB_TOKEN_REFUSED)
        api_url = (
            env.get("GITLAB_API_URL", "").strip()
            or env.get("CI_API_V4_URL", "").strip()
            or DEFAULT_API_URL
        )
        return cls(http, token=token, api_url=api_url, **options)

    def paginate(self, path: str, params: Mapping[str, str] | None = None) -> list[Any]:
        """Every item of the list at `path`, page after page until ``x-next-page`` is empty."""
        if self.offline:
            return []
        items: list[Any] = []
        page = 1
        for _ in range(MAX_PAGES):
            query = {**(params or {}), "per_page": str(PER_PAGE), "page": str(page)}
            response = self._send(self._build("GET", self._url(path, query)))
            data = self._decode(response)
            if not isinstance(data, list):
                what = f"{_describe(response.request)} returned {type(data).__name__}, not a list"
                raise _error(response.request, what, response.status_code)
            items.extend(data)
            following = _next_page(response)
            if following is None:
                return items
            if following <= page:
                raise _error(response.request, f"{_describe(response.request)}: pages repeat")
            page = following
        raise GitLabError(f"GitLab API GET {path}: more than {MAX_PAGES} pages")

    def current_user(self) -> User | None:
        """Who the token acts as (None offline)."""
        data = self.get("/user")
        if data is None:
            return None
        user_id = data.get("id") if isinstance(data, dict) else None
        username = data.get("username") if isinstance(data, dict) else None
        if not isinstance(user_id, int) or not isinstance(username, str) or not username:
            raise GitLabError("GitLab API GET /user returned no id and username")
        return User(user_id, username, data.get("bot") is True)

    def _url(self, path: str, params: Mapping[str, str] | None = None) -> str:
        return self.api_url + path + (f"?{urlencode(params)}" if params else "")

    def _build(self, method: str, url: str, body: Mapping[str, Any] | None = None) -> httpx.Request:
        headers = {"Accept": "application/json"}
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = orjson.dumps(body)
        return self._http.build_request(method, url, headers=headers, content=content)

    def _reset(self, response: httpx.Response) -> float | None:
        """GitLab's ``RateLimit-Reset`` (a Unix time), plus a second."""
        reset = whole_number(response.headers.get("ratelimit-reset"))
        return None if reset is None else max(float(reset) - self._clock(), 0.0) + 1.0

    def _message(self, response: httpx.Response) -> str:
        return _message(response)


def _next_page(response: httpx.Response) -> int | None:
    """The next page's number from ``x-next-page`` (empty on the last page)."""
    value = response.headers.get("x-next-page", "").strip()
    if not value:
        return None
    number = whole_number(value)
    if number is None or number < 1:
        raise _error(response.request, f"{_describe(response.request)}: bad x-next-page")
    return number


def _message(response: httpx.Response) -> str:
    """GitLab's error text: ``message`` (a string, or fields to lists) or ``error``."""
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        text = response.text.strip()[:200]
        return text or response.reason_phrase or "no message"
    if not isinstance(data, dict):
        return response.reason_phrase or "no message"
    message = data.get("message", data.get("error"))
    if isinstance(message, dict):
        return "; ".join(f"{field} {_joined(value)}" for field, value in message.items())
    return str(message or response.reason_phrase or "no message")[:500]


def _joined(value: object) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _error(request: httpx.Request, message: str, status: int | None = None) -> GitLabError:
    return GitLabError(message, status=status, method=request.method, path=request.url.path)


def _describe(request: httpx.Request) -> str:
    return f"GitLab API {request.method} {request.url}"
