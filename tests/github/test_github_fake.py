"""The fake itself: it refuses what GitHub's OpenAPI extract refuses, and answers like GitHub."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from github.fake import FakeGitHub
from github.github_openapi import SpecViolation, nullable_to_jsonschema
from github.github_support import BOT, TOKEN, new_fake

PULL = "/repos/octo-org/widgets/pulls/7"


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff({"a.py": range(1, 10)})
    return fake


def send(fake: FakeGitHub, method: str, path: str, body: Any = None) -> httpx.Response:
    http = httpx.Client(transport=httpx.MockTransport(fake.handle))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    return http.request(method, f"https://api.github.com{path}", json=body, headers=headers)


@pytest.mark.parametrize(
    ("method", "path", "body", "message"),
    [
        (
            "POST",
            f"{PULL}/reviews",
            {"event": "MERGE", "body": "x"},
            r"body /event: 'MERGE' is not one of",
        ),
        (
            "POST",
            f"{PULL}/reviews",
            {"comments": [{"path": "a.py", "line": 1}]},
            r"body /comments/0: 'body' is a required property",
        ),
        (
            "POST",
            f"{PULL}/reviews",
            {"comments": [{"path": "a.py", "line": "1", "body": "b"}]},
            r"body /comments/0/line: '1' is not of type 'integer'",
        ),
        (
            "PATCH",
            "/repos/octo-org/widgets/issues/comments/5",
            {},
            r"issues/update-comment: body /: 'body' is a required property",
        ),
        ("GET", f"{PULL}/comments?per_page=500", None, "per_page is at most 100"),
        ("GET", f"{PULL}/comments?perpage=5", None, "unknown query parameter 'perpage'"),
        (
            "GET",
            "/repos/octo-org/widgets/pulls/seven/reviews",
            None,
            "pulls/list-reviews: parameter pull_number must be an integer, not 'seven'",
        ),
        (
            "DELETE",
            "/repos/octo-org/widgets/issues/7/comments",
            None,
            "no GitHub operation for DELETE",
        ),
    ],
)
def test_malformed_requests_are_spec_violations(
    fake: FakeGitHub, method: str, path: str, body: Any, message: str
) -> None:
    with pytest.raises(SpecViolation, match=message):
        send(fake, method, path, body)


@pytest.mark.parametrize(
    ("comment", "error"),
    [
        ({"path": "b.py", "line": 1, "body": "x"}, "Path could not be resolved"),
        ({"path": "a.py", "line": 12, "body": "x"}, "Line could not be resolved"),
        ({"path": "a.py", "line": 3, "start_line": 0, "body": "x"}, "Line could not be resolved"),
    ],
)
def test_anchors_outside_the_diff_are_refused_like_github_does(
    fake: FakeGitHub, comment: dict[str, Any], error: str
) -> None:
    response = send(
        fake, "POST", f"{PULL}/reviews", {"body": "b", "event": "COMMENT", "comments": [comment]}
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [error]
    assert fake.reviews == []


def test_lists_are_paginated_with_link_headers(fake: FakeGitHub) -> None:
    for index in range(5):
        fake.add_issue_comment("alice", f"c{index}")
    response = send(fake, "GET", "/repos/octo-org/widgets/issues/7/comments?per_page=2&page=2")
    assert [item["body"] for item in response.json()] == ["c2", "c3"]
    base = "https://api.github.com/repos/octo-org/widgets/issues/7/comments"
    assert response.headers["Link"] == (
        f'<{base}?per_page=2&page=1>; rel="prev", <{base}?per_page=2&page=3>; rel="next", '
        f'<{base}?per_page=2&page=3>; rel="last", <{base}?per_page=2&page=1>; rel="first"'
    )


def test_unknown_tokens_and_foreign_edits_are_refused(fake: FakeGitHub) -> None:
    theirs = fake.add_issue_comment("alice", "mine")
    response = send(
        fake, "PATCH", f"/repos/octo-org/widgets/issues/comments/{theirs['id']}", {"body": "x"}
    )
    assert (response.status_code, theirs["body"]) == (403, "mine")
    http = httpx.Client(transport=httpx.MockTransport(fake.handle))
    assert http.get("https://api.github.com/user").status_code == 401
    assert send(fake, "GET", "/user").json()["login"] == BOT


def test_openapi_nullable_becomes_a_json_schema_null_option() -> None:
    schema = {
        "type": "object",
        "properties": {"u": {"type": "string", "nullable": True, "enum": ["a"]}},
    }
    assert nullable_to_jsonschema(schema) == {
        "type": "object",
        "properties": {"u": {"type": ["string", "null"], "enum": ["a", None]}},
    }
