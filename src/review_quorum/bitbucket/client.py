"""The Bitbucket Cloud REST 2.0 client: authentication, pagination, retries and dry runs.

`BitbucketClient` wraps an injected `httpx.Client`. It sends its token only to the
configured API root (https, or http on a loopback address): a repository, project or
workspace access token (``BITBUCKET_TOKEN``) as ``Bearer``, or a user name with an app
password or API token (``BITBUCKET_USERNAME`` and ``BITBUCKET_APP_PASSWORD``) as HTTP
Basic. Lists are read page by page by following ``next``, only while it stays on the API's
own origin (a page cannot lead the token elsewhere). Rate limits (429) and server errors
of idempotent requests are waited out (`retrying.RetryingClient`), honouring
``Retry-After``, within a bounded total wait and telling `on_wait` about every retry; a
POST that fails with a server or transport error is not resent here (the poster re-reads
first). The credentials never appear in an error or in dry-run output; in a dry run
writes are recorded in `unsent`, and without credentials a dry run reads nothing either.
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx
import msgspec
import orjson

from review_quorum.errors import BitbucketError, ConfigError
from review_quorum.retrying import (
    JsonRetryingClient,
    RetryPolicy,
    check_token,
    validate_api_url,
)

DEFAULT_API_URL = "https://api.bitbucket.org/2.0"
PAGE_LENGTH = 100
MAX_PAGES = 1000
TOKEN_HELP = (
    "create a repository access token (Repository settings > Access tokens, scopes "
    "Pull requests: Write and Repositories: Read) and store it as a secured repository "
    "variable named BITBUCKET_TOKEN; or set BITBUCKET_USERNAME and BITBUCKET_APP_PASSWORD "
    "(an app password with the same permissions)"
)


class Account(msgspec.Struct, frozen=True):
    """Who the credentials act as (GET /user): the account's uuid and display name."""

    uuid: str
    name: str = ""


class BitbucketClient(JsonRetryingClient):
    """Requests to one Bitbucket API root, authenticated with one token or app password."""

    error = BitbucketError
    name = "Bitbucket API"

    def __init__(
        self,
        http: httpx.Client,
        *,
        token: str | None,
        username: str | None = None,
        api_url: str = DEFAULT_API_URL,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        dry_run: bool = False,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        if token is None and not dry_run:
            raise ConfigError("BITBUCKET_TOKEN is not set: " + TOKEN_HELP + " (or use --dry-run)")
        variable = "BITBUCKET_APP_PASSWORD" if username else "BITBUCKET_TOKEN"
        check_token(token, variable, "Bitbucket")
        check_token(username, "BITBUCKET_USERNAME", "Bitbucket")
        api_url = validate_api_url(api_url, "BITBUCKET_API_URL")
        retry = retry or RetryPolicy(write_interval=0.0)
        self._username = username
        self._connect(
            http, token, api_url, retry, sleep=sleep, clock=clock, dry_run=dry_run, on_wait=on_wait
        )

    @classmethod
    def from_env(
        cls, http: httpx.Client, env: Mapping[str, str] | None = None, **options: Any
    ) -> BitbucketClient:
        """A client for `BITBUCKET_TOKEN`, else `BITBUCKET_USERNAME` with
        `BITBUCKET_APP_PASSWORD`, on `BITBUCKET_API_URL` (default api.bitbucket.org/2.0)."""
        env = os.environ if env is None else env
        api_url = env.get("BITBUCKET_API_URL", "").strip() or DEFAULT_API_URL
        token = env.get("BITBUCKET_TOKEN", "").strip() or None
        if token is not None:
            return cls(http, token=token, api_url=api_url, **options)
        username = env.get("BITBUCKET_USERNAME", "").strip() or None
        password = env.get("BITBUCKET_APP_PASSWORD", "").strip() or None
        if (username is None) != (password is None) and not options.get("dry_run"):
            given, missing = (
                ("BITBUCKET_USERNAME", "BITBUCKET_APP_PASSWORD")
                if password is None
                else ("BITBUCKET_APP_PASSWORD", "BITBUCKET_USERNAME")
            )
            raise ConfigError(f"{given} is set but {missing} is not: " + TOKEN_HELP)
        if username is None or password is None:
            return cls(http, token=None, api_url=api_url, **options)
        return cls(http, token=password, username=username, api_url=api_url, **options)

    def paginate(self, path: str, params: Mapping[str, str] | None = None) -> list[Any]:
        """Every item of the paged list at `path`, following ``next`` on this origin."""
        if self.offline:
            return []
        items: list[Any] = []
        url = self._url(path, {**(params or {}), "pagelen": str(PAGE_LENGTH)})
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            response = self._send(self._build("GET", url))
            data = self._decode(response)
            values = data.get("values") if isinstance(data, dict) else None
            if not isinstance(values, list):
                raise self._error(response.request, f"Bitbucket API GET {path}: no values")
            items.extend(values)
            following = data.get("next")
            if not isinstance(following, str) or not following:
                return items
            if following in seen or not _within(following, self.api_url):
                raise self._error(
                    response.request, f"Bitbucket API GET {path}: a page leads elsewhere"
                )
            seen.add(following)
            url = following
        raise BitbucketError(f"Bitbucket API GET {path}: more than {MAX_PAGES} pages")

    def current_account(self) -> Account | None:
        """Who the credentials act as (None offline)."""
        data = self.get("/user")
        if data is None:
            return None
        uuid = data.get("uuid") if isinstance(data, dict) else None
        if not isinstance(uuid, str) or not uuid:
            raise BitbucketError("Bitbucket API GET /user returned no uuid")
        name = data.get("display_name")
        return Account(uuid, name if isinstance(name, str) else "")

    def _url(self, path: str, params: Mapping[str, str] | None = None) -> str:
        return self.api_url + path + (f"?{urlencode(params)}" if params else "")

    def _credentials(self) -> str:
        if self._username is None:
            return f"Bearer {self._token}"
        pair = f"{self._username}:{self._token}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")

    def _build(self, method: str, url: str, body: Any = None) -> httpx.Request:
        headers = {"Accept": "application/json"}
        if self._token is not None:
            headers["Authorization"] = self._credentials()
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = orjson.dumps(body)
        return self._http.build_request(method, url, headers=headers, content=content)

    def _redact(self, text: str) -> str:
        text = super()._redact(text)
        if self._token is not None and self._username is not None:
            text = text.replace(self._credentials().removeprefix("Basic "), "[REDACTED]")
        return text

    def _message(self, response: httpx.Response) -> str:
        """Bitbucket's ``error.message`` (and ``detail``), else the start of the text."""
        try:
            data = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            text = response.text.strip()[:200]
            return text or response.reason_phrase or "no message"
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict):
            return response.reason_phrase or "no message"
        parts = [str(error.get(key)) for key in ("message", "detail") if error.get(key)]
        return ": ".join(parts)[:500] or response.reason_phrase or "no message"


def _within(url: str, root: str) -> bool:
    try:
        target, base = httpx.URL(url), httpx.URL(root)
    except httpx.InvalidURL:
        return False
    same = (target.scheme, target.host, target.port) == (base.scheme, base.host, base.port)
    return same and target.path.startswith(base.path.rstrip("/") + "/")
