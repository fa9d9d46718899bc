"""GitHub's GraphQL API as the client speaks it: answers, errors, budget, pages.

An answer with ``errors`` beside ``data`` is a partial failure: the valid part is used and
each error comes back as a `GraphQLProblem` naming its path, for the caller to report.
Errors without data fail the whole request with `GitHubError`. An error of type
``RATE_LIMIT`` (``RATE_LIMITED`` in older answers) is GitHub's primary limit, whatever the
HTTP status; the client waits for the reset and asks again. A query that selects
``rateLimit { cost remaining resetAt }`` tells the client what the next query may cost, so
it waits *before* one the budget cannot pay for. Connections are walked with cursors
(``pageInfo { hasNextPage endCursor }``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx
import msgspec
import orjson

from review_quorum.errors import GitHubError

RATE_LIMIT_TYPES = frozenset({"RATE_LIMIT", "RATE_LIMITED"})
# What GitHub says about a token that may read but not write (or not moderate).
FORBIDDEN = "FORBIDDEN"
RATE_LIMIT_FIELDS = "rateLimit { cost remaining resetAt }"


def database_id(node: object) -> int | None:
    """A node's REST id from its ``fullDatabaseId``, a BigInt that GitHub sends as a string
    of digits (REST ids are past 2^31; the deprecated ``databaseId`` is a 32-bit Int)."""
    value = node.get("fullDatabaseId") if isinstance(node, Mapping) else None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


class GraphQLProblem(msgspec.Struct, frozen=True):
    """One entry of a response's ``errors``: what failed, of which kind, and where."""

    message: str
    type: str = ""
    path: tuple[str | int, ...] = ()

    def describe(self) -> str:
        where = ".".join(str(part) for part in self.path)
        kind = f" ({self.type})" if self.type else ""
        return f"{where}: {self.message}{kind}" if where else f"{self.message}{kind}"


class GraphQLResult(msgspec.Struct, frozen=True):
    """The usable ``data`` of an answer, and the problems reported beside it."""

    data: Mapping[str, Any]
    problems: tuple[GraphQLProblem, ...] = ()

    def problems_at(self, key: str) -> list[GraphQLProblem]:
        """The problems whose path starts at the top-level field (or alias) `key`."""
        return [problem for problem in self.problems if problem.path[:1] == (key,)]

    @property
    def rate_limited(self) -> bool:
        return any(problem.type in RATE_LIMIT_TYPES for problem in self.problems)


class Budget(msgspec.Struct, frozen=True):
    """What the last query cost and what is left of the hourly budget until `reset_at`."""

    cost: int
    remaining: int
    reset_at: float

    def wait(self, now: float) -> float:
        """Seconds to wait before a query like the last one can be paid for (0: none)."""
        if self.remaining >= max(self.cost, 1) or self.reset_at <= now:
            return 0.0
        return self.reset_at - now + 1.0


def decode(response: httpx.Response, what: str) -> GraphQLResult:
    """The answer to one GraphQL request; errors without data raise `GitHubError`."""
    try:
        document = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        raise GitHubError(f"{what} returned invalid JSON", status=response.status_code) from None
    if not isinstance(document, dict):
        raise GitHubError(f"{what} returned {type(document).__name__}, not an object")
    problems = _problems(document.get("errors"), what)
    data = document.get("data")
    result = GraphQLResult(data if isinstance(data, dict) else {}, problems)
    if result.rate_limited:
        return result
    if data is None or not isinstance(data, dict):
        if not problems:
            raise GitHubError(f"{what} returned neither data nor errors")
        listed = "; ".join(problem.describe() for problem in problems)
        raise GitHubError(f"{what} failed: {listed}", status=_status(problems))
    return result


def budget(data: Mapping[str, Any], remaining: int | None, reset: int | None) -> Budget | None:
    """The budget a query reported (``rateLimit``), else the one its headers state."""
    limit = data.get("rateLimit")
    if isinstance(limit, dict):
        cost, left = _count(limit.get("cost")), _count(limit.get("remaining"))
        reset_at = _timestamp(limit.get("resetAt"))
        if cost is not None and left is not None and reset_at is not None:
            return Budget(cost, left, reset_at)
    if remaining is None or reset is None:
        return None
    return Budget(1, remaining, float(reset))


def reset_delay(
    asked: float | None, reset: int | None, now: float, known: Budget | None
) -> float | None:
    """How long a primary rate limit lasts: as asked, until the reset, or the last budget's."""
    if asked is not None:
        return asked
    if reset is not None:
        return max(float(reset) - now, 0.0) + 1.0
    if known is not None and known.reset_at > now:
        return known.reset_at - now + 1.0
    return None


def connection(
    data: Mapping[str, Any], path: Sequence[str], what: str
) -> tuple[list[Any], str | None]:
    """The nodes of the connection at `path` in `data`, and the cursor of the next page."""
    value: Any = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise GitHubError(f"{what}: the answer has no {'.'.join(path)}")
        value = value[key]
        if value is None:
            raise GitHubError(f"{what}: {'.'.join(path)} is null (not found or not visible)")
    nodes, info = value.get("nodes"), value.get("pageInfo")
    if not isinstance(nodes, list) or not isinstance(info, dict):
        raise GitHubError(f"{what}: {'.'.join(path)} lacks nodes or pageInfo")
    cursor = info.get("endCursor")
    if info.get("hasNextPage") is not True:
        return nodes, None
    if not isinstance(cursor, str) or not cursor:
        raise GitHubError(f"{what}: {'.'.join(path)} has a next page but no cursor")
    return nodes, cursor


def walk(
    run: Callable[[str, Mapping[str, Any]], GraphQLResult],
    document: str,
    variables: Mapping[str, Any],
    path: Sequence[str],
) -> list[Any]:
    """Every node of the connection at `path`, asking `run` for page after page."""
    what = f"GitHub GraphQL {'.'.join(path)}"
    nodes: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        result = run(document, {**variables, "cursor": cursor})
        if result.problems:
            listed = "; ".join(problem.describe() for problem in result.problems)
            raise GitHubError(f"{what} failed: {listed}", status=_status(result.problems))
        page, cursor = connection(result.data, path, what)
        nodes.extend(page)
        if cursor is None:
            return nodes
        if cursor in seen:
            raise GitHubError(f"{what}: pagination repeats the cursor {cursor!r}")
        seen.add(cursor)


def _problems(value: object, what: str) -> tuple[GraphQLProblem, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise GitHubError(f"{what} returned errors that are not a list")
    return tuple(_problem(item) for item in value)


def _problem(item: object) -> GraphQLProblem:
    if not isinstance(item, dict):
        return GraphQLProblem(str(item))
    path = item.get("path")
    kind = item.get("type")
    if not isinstance(kind, str):
        extensions = item.get("extensions")
        kind = extensions.get("code") if isinstance(extensions, dict) else None
    return GraphQLProblem(
        message=str(item.get("message") or "no message"),
        type=kind if isinstance(kind, str) else "",
        path=tuple(part for part in path if isinstance(part, str | int))
        if isinstance(path, list)
        else (),
    )


def _status(problems: Sequence[GraphQLProblem]) -> int | None:
    """403 when every problem is a refusal, so callers can tell a read-only token."""
    if problems and all(problem.type == FORBIDDEN for problem in problems):
        return 403
    return None


def _timestamp(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _count(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
