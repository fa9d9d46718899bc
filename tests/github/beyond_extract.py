"""The GitHub REST operations the stand-ins serve beyond ../shared's extract.

Each is described here from GitHub's REST documentation, in our own words, in the
extract's shape (method, path template, path and query parameters), so that `GitHubSpec`
checks their requests as it checks the extract's: path parameter types, the query
parameters each operation accepts (enums included) and `per_page` at most 100. They have
no response schemas, so their answers are not checked. `match` finds the one a request is.
"""

from __future__ import annotations

import re
from typing import Any

from github.fake_payloads import REACTIONS
from github.github_openapi import Route, make_route

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
PAGING = {"per_page": INTEGER, "page": INTEGER}
# Path parameters that are numbers; every other one is a string.
NUMBERS = frozenset({"pull_number", "comment_id"})


def _enum(*values: str) -> dict[str, Any]:
    return {"enum": list(values)}


def _described(
    operation_id: str, template: str, query: dict[str, dict[str, Any]] | None = None
) -> Route:
    """A GET operation: its path parameters from the template, the query it accepts."""
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": INTEGER if name in NUMBERS else STRING,
        }
        for name in re.findall(r"\{(\w+)\}", template)
    ]
    parameters += [
        {"name": name, "in": "query", "required": False, "schema": schema}
        for name, schema in (query or {}).items()
    ]
    operation = {"method": "GET", "path": template, "parameters": parameters, "requestBody": None}
    return make_route(operation_id, operation)


REPO = "/repos/{owner}/{repo}"
ROUTES: tuple[Route, ...] = (
    _described("users/get-authenticated", "/user"),
    _described(
        "pulls/list",
        f"{REPO}/pulls",
        {
            "state": _enum("open", "closed", "all"),
            "head": STRING,
            "base": STRING,
            "sort": _enum("created", "updated", "popularity", "long-running"),
            "direction": _enum("asc", "desc"),
            **PAGING,
        },
    ),
    _described("pulls/list-commits", f"{REPO}/pulls/{{pull_number}}/commits", PAGING),
    # A commit with its files (paged: `per_page` files a page, `Link` to the next).
    _described("repos/get-commit", f"{REPO}/commits/{{ref}}", PAGING),
    _described(
        "reactions/list-for-pull-request-review-comment",
        f"{REPO}/pulls/comments/{{comment_id}}/reactions",
        {"content": _enum(*REACTIONS), **PAGING},
    ),
    _described(
        "reactions/list-for-issue-comment",
        f"{REPO}/issues/comments/{{comment_id}}/reactions",
        {"content": _enum(*REACTIONS), **PAGING},
    ),
    # {"permission": "admin|maintain|write|triage|read|none", "role_name", "user"}; 404 for
    # someone who is not a collaborator.
    _described(
        "repos/get-collaborator-permission-level",
        f"{REPO}/collaborators/{{username}}/permission",
    ),
    # A commit's check runs: {"total_count", "check_runs"}, the newest first.
    _described(
        "checks/list-for-ref",
        f"{REPO}/commits/{{ref}}/check-runs",
        {
            "check_name": STRING,
            "status": _enum("queued", "in_progress", "completed"),
            "filter": _enum("latest", "all"),
            **PAGING,
            "app_id": INTEGER,
        },
    ),
)


def match(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The operation beyond the extract that `method` `path` is, and its path parameters."""
    for route in ROUTES:
        found = route.pattern.fullmatch(path)
        if route.method == method and found:
            return route, found.groupdict()
    return None
