"""What the platform clients share: waiting between attempts, the send loop, JSON calls.

`RetryingClient` sends a request and, when the service's own rules say resending can help
(`_retry_delay`, which each client defines: rate limits, server errors of idempotent
requests), waits and sends it again, within the attempts and the total wait its
`RetryPolicy` allows, telling `on_wait` about every retry. A transport error is retried
only for an idempotent request: a POST may have been applied, so its caller re-reads
first (`create_once`); so may a write that adds to what is there (a check run's PATCH
appends its annotations), whose caller says it is not idempotent and re-reads likewise
(`write_once`). Errors are the client's `ServiceError` subclass, carrying the
method and path, with the token redacted from every message; `check_token` refuses a
token no service would issue before it is ever put in a header, and `validate_api_url` an
API root it must not be sent to. `retry_after` and `whole_number` read the headers in
which services say how long to wait (``Retry-After``, rate-limit resets).
`JsonRetryingClient` is the rest of a plain JSON REST client (GitLab, Azure DevOps,
Bitbucket): `get` and `write` (a dry run records a write instead of sending it), the JSON
answer decoded, and the usual rule for resending (429, or a server error of an idempotent
request; after ``Retry-After``, else a reset the service names, else backing off).
"""

from __future__ import annotations

import abc
import email.utils
import ipaddress
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import msgspec
import orjson

from review_quorum.errors import ConfigError, ServiceError

IDEMPOTENT = frozenset({"GET", "PUT", "PATCH", "DELETE"})


class RetryPolicy(msgspec.Struct, frozen=True):
    """How long and how often to retry; `budget` bounds the total wait of one run."""

    attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 120.0
    # GitHub: after a secondary rate limit without Retry-After, wait at least a minute.
    secondary_delay: float = 60.0
    budget: float = 900.0
    # GitHub: leave at least a second between content-creating requests.
    write_interval: float = 1.0


_TOKEN = re.compile(r"[\x21-\x7e]+")


def check_token(token: str | None, variable: str, service: str) -> None:
    """Refuse a token no service issues, at once and without showing it: httpx would
    print the header it refuses."""
    if token is not None and not _TOKEN.fullmatch(token):
        raise ConfigError(
            f"{variable} holds whitespace, a control character or a non-ASCII character, "
            f"which no {service} token has; check how it was set"
        )


def validate_api_url(url: str, name: str = "GITHUB_API_URL") -> str:
    """`url` without a trailing slash, if it is safe to send a token to; else ConfigError."""
    text = url.strip().rstrip("/")
    try:
        parsed = httpx.URL(text)
    except httpx.InvalidURL:
        raise ConfigError(f"{name} is not a valid URL") from None
    if parsed.userinfo:
        raise ConfigError(f"{name} must not contain credentials")
    if parsed.query or parsed.fragment or not parsed.host:
        raise ConfigError(f"{name} must be a plain https:// base URL")
    if parsed.scheme == "https" or (parsed.scheme == "http" and _loopback(parsed.host)):
        return text
    raise ConfigError(
        f"{name} must use https:// (http:// only on a loopback address), "
        f"not {parsed.scheme}://{parsed.host}"
    )


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def retry_after(value: str | None, now: float) -> float | None:
    """The seconds a ``Retry-After`` header asks for (a number, or an HTTP date measured
    from `now`), never negative; None when it is absent or unreadable."""
    if value is None:
        return None
    seconds = whole_number(value)
    if seconds is not None:
        return float(max(seconds, 0))
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(moment.timestamp() - now, 0.0)


def whole_number(value: str | None) -> int | None:
    """A header's whole number (a rate-limit reset, a page), None when it is not one or is
    too large for a float (no time or count a service means; waits are computed in floats)."""
    if value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        return None
    return number if abs(number) <= sys.float_info.max else None


class RetryingClient(abc.ABC):
    """The retrying half of an API client; subclasses set `error` and `name`, and
    start with `_connect`."""

    error: type[ServiceError] = ServiceError
    name = "API"
    _http: httpx.Client
    _token: str | None
    _retry: RetryPolicy
    _sleep: Callable[[float], None]
    _clock: Callable[[], float]
    _on_wait: Callable[[str], None] | None
    api_url: str
    dry_run: bool
    unsent: list[httpx.Request]
    waited: float

    def _connect(
        self,
        http: httpx.Client,
        token: str | None,
        api_url: str,
        retry: RetryPolicy,
        *,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        dry_run: bool,
        on_wait: Callable[[str], None] | None,
    ) -> None:
        """What every client holds: its connection, token and API URL (both checked by
        the caller), retry policy, clock, dry-run state and what a dry run did not send."""
        self._http = http
        self._token = token
        self.api_url = api_url
        self._retry = retry
        self._sleep = sleep
        self._clock = clock
        self.dry_run = dry_run
        self._on_wait = on_wait
        self.unsent = []
        self.waited = 0.0

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.api_url!r}, dry_run={self.dry_run})"

    @property
    def offline(self) -> bool:
        """A dry run without a token: nothing is read, nothing is sent."""
        return self.dry_run and self._token is None

    def wait_before_retry(
        self, attempt: int, failure: ServiceError, delay: float | None = None
    ) -> None:
        """Sleep before retry number `attempt + 1`, or raise `failure` when out of budget."""
        if attempt + 1 >= self._retry.attempts:
            raise again(failure, f"{failure} (gave up after {attempt + 1} attempts)")
        if delay is None:
            delay = min(self._retry.base_delay * 2.0**attempt, self._retry.max_delay)
        if self.waited + delay > self._retry.budget:
            budget = self._retry.budget
            note = f"waiting {delay:.0f}s more would exceed the {budget:.0f}s retry budget"
            raise again(failure, f"{failure} (gave up: {note})")
        if self._on_wait is not None:
            attempts = self._retry.attempts
            self._on_wait(f"{failure}; retrying in {delay:.0f}s ({attempt + 2} of {attempts})")
        self._sleep(delay)
        self.waited += delay

    def _send(
        self,
        request: httpx.Request,
        *,
        write: bool | None = None,
        idempotent: bool | None = None,
    ) -> httpx.Response:
        """Send `request`, retrying what may be retried; a caller may say its own `write`,
        and whether resending is safe (`idempotent`; by default, by the method)."""
        if idempotent is None:
            idempotent = request.method in IDEMPOTENT
        attempt = 0
        while True:
            self._pace(request.method != "GET" if write is None else write)
            try:
                response = self._http.send(request)
            except httpx.TransportError as err:
                what = f"{type(err).__name__}: {err}"
                text = self._redact(f"{self._describe(request)} failed: {what}")
                failure = self._error(request, text)
                if not idempotent:
                    raise failure from err
                self.wait_before_retry(attempt, failure)
            else:
                if response.is_success:
                    return response
                failure = self._failure(request, response)
                delay = self._retry_delay(response, attempt, idempotent)
                if delay is None:
                    raise failure
                self.wait_before_retry(attempt, failure, delay)
            attempt += 1

    @abc.abstractmethod
    def _retry_delay(
        self, response: httpx.Response, attempt: int, idempotent: bool
    ) -> float | None:
        """How long to wait before resending, or None when resending cannot help."""

    def _pace(self, write: bool) -> None:  # noqa: B027  (optional: most services need none)
        """Space writes out, where the service asks for it."""

    @abc.abstractmethod
    def _message(self, response: httpx.Response) -> str:
        """The service's error text in `response`."""

    def _failure(self, request: httpx.Request, response: httpx.Response) -> ServiceError:
        text = f"{self._describe(request)} returned {response.status_code}: "
        text += self._message(response)
        return self._error(request, self._redact(text), response.status_code)

    def _describe(self, request: httpx.Request) -> str:
        return f"{self.name} {request.method} {request.url}"

    def _error(
        self, request: httpx.Request, message: str, status: int | None = None
    ) -> ServiceError:
        return self.error(message, status=status, method=request.method, path=request.url.path)

    def _redact(self, text: str) -> str:
        return text.replace(self._token, "[REDACTED]") if self._token else text


class JsonRetryingClient(RetryingClient):
    """A client of a JSON REST API: subclasses say how a request is built (`_build`, its
    headers and credentials) and addressed (`_url`), and read their service's error text
    (`_message`); a service that names when its rate limit resets says so in `_reset`."""

    @abc.abstractmethod
    def _url(self, path: str, params: Mapping[str, str] | None = None) -> str:
        """The address of `path` on the API root, with `params` as its query."""

    @abc.abstractmethod
    def _build(self, method: str, url: str, body: Any = None) -> httpx.Request:
        """The request, with its headers and (JSON) body."""

    def get(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        """The decoded JSON at `path` (None when offline)."""
        if self.offline:
            return None
        return self._decode(self._send(self._build("GET", self._url(path, params))))

    def write(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        dry_run: bool = False,
    ) -> Any:
        """Send a write and return its decoded JSON; in a dry run record it, return None."""
        request = self._build(method, self._url(path), body)
        if dry_run or self.dry_run:
            self.unsent.append(request)
            return None
        return self._decode(self._send(request))

    def _decode(self, response: httpx.Response) -> Any:
        """The answer's JSON (None when it has no body); not JSON is the service's error."""
        if not response.content:
            return None
        try:
            return orjson.loads(response.content)
        except orjson.JSONDecodeError:
            request = response.request
            what = f"{self._describe(request)} returned invalid JSON"
            raise self._error(request, what, response.status_code) from None

    def _retry_delay(
        self, response: httpx.Response, attempt: int, idempotent: bool
    ) -> float | None:
        """How long to wait before resending, or None when resending cannot help."""
        status = response.status_code
        if status != 429 and not (status >= 500 and idempotent):
            return None
        asked = retry_after(response.headers.get("retry-after"), self._clock())
        if asked is not None:
            return asked
        reset = self._reset(response) if status == 429 else None
        if reset is not None:
            return reset
        return min(self._retry.base_delay * 2.0**attempt, self._retry.max_delay)

    def _reset(self, response: httpx.Response) -> float | None:
        """Seconds until a rate limit resets, where the service says (None: it does not)."""
        return None


def again(failure: ServiceError, message: str) -> ServiceError:
    """`failure` with a new message, keeping its class, status, method and path."""
    return type(failure)(message, status=failure.status, method=failure.method, path=failure.path)


def create_once(
    write: Callable[[str, str, Mapping[str, Any]], Any],
    wait: Callable[[int, Any], None],
    path: str,
    payload: Mapping[str, Any],
    applied: Callable[[], object | None],
) -> Any:
    """POST `payload` once: `write_once` for a create."""
    return write_once(write, wait, "POST", path, payload, applied)


def write_once(
    write: Callable[[str, str, Mapping[str, Any]], Any],
    wait: Callable[[int, Any], None],
    method: str,
    path: str,
    payload: Mapping[str, Any],
    applied: Callable[[], object | None],
) -> Any:
    """Send `payload`, which `write` must not resend itself; after a failure that may have
    been applied (5xx, no answer), wait, then ask `applied` whether it was (what it returns
    stands for the answer), and send again only when it was not."""
    attempt = 0
    while True:
        try:
            return write(method, path, payload)
        except ServiceError as err:
            if err.status is not None and err.status < 500:
                raise
            wait(attempt, err)
            found = applied()
            if found is not None:
                return found
            attempt += 1


def unless_done(write: Callable[[], object], done: int) -> None:
    """Send `write`, whose answer `done` (404 to a delete, 409 to a resolve) says it was
    already applied: what the caller wanted, not a failure."""
    try:
        write()
    except ServiceError as err:
        if err.status != done:
            raise
