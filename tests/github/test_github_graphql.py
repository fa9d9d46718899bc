"""GitHubClient.graphql over httpx.MockTransport: endpoint, errors, rate limits, cursor pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

from github.test_github_client import NOW, TOKEN, Clock, answers, make
from review_quorum.errors import ConfigError, GitHubError
from review_quorum.github import GitHubClient, format_request
from review_quorum.github.client import graphql_url_for
from review_quorum.github.graphql import GraphQLProblem

QUERY = "query Threads($cursor: String) { viewer { login } }"
MUTATION = (
    "mutation Hide($m0: ID!) "
    "{ m0: minimizeComment(input: {subjectId: $m0, classifier: DUPLICATE}) { clientMutationId } }"
)


def sent(request: httpx.Request) -> dict[str, Any]:
    body: dict[str, Any] = orjson.loads(request.content)
    return body


def data(value: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.Response(200, json={"data": value}, headers=headers)


@pytest.mark.parametrize(
    ("api_url", "expected"),
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/graphql"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/graphql"),
    ],
)
def test_the_graphql_endpoint_is_derived_from_the_api_url(api_url: str, expected: str) -> None:
    assert graphql_url_for(api_url) == expected
    http = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    client = GitHubClient.from_env(http, {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api_url})
    assert client.graphql_url == expected


def test_github_graphql_url_wins_and_is_checked_like_the_api_url() -> None:
    http = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": "https://ghe.example.com/api/v3",
        "GITHUB_GRAPHQL_URL": "https://ghe.example.com/api/graphql/ ",
    }
    assert GitHubClient.from_env(http, env).graphql_url == "https://ghe.example.com/api/graphql"
    env["GITHUB_GRAPHQL_URL"] = "http://ghe.example.com/api/graphql"
    with pytest.raises(ConfigError, match=r"GITHUB_GRAPHQL_URL must use https://"):
        GitHubClient.from_env(http, env)


def test_a_query_is_posted_with_its_variables_and_the_token() -> None:
    handler, seen = answers(data({"viewer": {"login": "quorum-bot"}}))
    result = make(handler).graphql_result(QUERY, {"cursor": None})
    assert result.data == {"viewer": {"login": "quorum-bot"}}
    assert result.problems == ()
    [request] = seen
    assert (request.method, str(request.url)) == ("POST", "https://api.github.com/graphql")
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert sent(request) == {"query": QUERY, "variables": {"cursor": None}}


def test_partial_errors_keep_the_valid_data_and_name_the_failed_paths() -> None:
    answer = {
        "data": {"m0": None, "m1": {"clientMutationId": None}},
        "errors": [
            {
                "type": "NOT_FOUND",
                "path": ["m0"],
                "locations": [{"line": 1, "column": 20}],
                "message": "Could not resolve to a node with the global id of 'IC_9'",
            }
        ],
    }
    handler, _ = answers(httpx.Response(200, json=answer))
    result = make(handler).graphql_result(MUTATION, {"m0": "IC_9"}, mutation=True)
    assert result.data["m1"] == {"clientMutationId": None}
    problem = GraphQLProblem(
        "Could not resolve to a node with the global id of 'IC_9'", "NOT_FOUND", ("m0",)
    )
    assert result.problems == (problem,)
    assert result.problems_at("m0") == [problem] and result.problems_at("m1") == []
    assert problem.describe() == (
        "m0: Could not resolve to a node with the global id of 'IC_9' (NOT_FOUND)"
    )


@pytest.mark.parametrize(
    ("answer", "message", "status"),
    [
        (
            {"errors": [{"message": "Field 'x' doesn't exist on type 'Query'"}]},
            r"POST https://api.github.com/graphql failed: Field 'x' doesn't exist",
            None,
        ),
        (
            {"data": None, "errors": [{"type": "FORBIDDEN", "message": f"no for {TOKEN}"}]},
            r"failed: no for \[REDACTED\] \(FORBIDDEN\)",
            403,
        ),
        ({"data": None}, "returned neither data nor errors", None),
        ({"data": {}, "errors": "boom"}, "returned errors that are not a list", None),
    ],
)
def test_whole_request_errors_are_clean_exceptions(
    answer: dict[str, Any], message: str, status: int | None
) -> None:
    handler, _ = answers(httpx.Response(200, json=answer))
    with pytest.raises(GitHubError, match=message) as caught:
        make(handler).graphql_result(QUERY)
    assert caught.value.status == status
    assert TOKEN not in str(caught.value)


def test_an_answer_that_is_not_json_is_an_error() -> None:
    handler, _ = answers(httpx.Response(200, text="<html>"))
    with pytest.raises(GitHubError, match="graphql returned invalid JSON"):
        make(handler).graphql_result(QUERY)


def test_the_primary_limit_is_waited_out_until_the_reset() -> None:
    limited = {
        "errors": [
            {
                "type": "RATE_LIMIT",
                "code": "graphql_rate_limit",
                "message": "API rate limit already exceeded for user ID 1.",
            }
        ]
    }
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 90)}
    handler, seen = answers(
        httpx.Response(200, json=limited, headers=reset), data({"viewer": {"login": "me"}})
    )
    clock = Clock()
    assert make(handler, clock).graphql_result(QUERY).data == {"viewer": {"login": "me"}}
    assert clock.slept == [91.0]
    assert len(seen) == 2


def test_a_query_the_remaining_budget_cannot_pay_for_waits_for_the_reset() -> None:
    spent: dict[str, Any] = {"viewer": {"login": "me"}, "rateLimit": {"cost": 3, "remaining": 2}}
    spent["rateLimit"]["resetAt"] = "2026-01-01T00:10:00Z"  # NOW + 600 s
    handler, seen = answers(data(spent), data({"viewer": {"login": "me"}}))
    clock = Clock()
    client = make(handler, clock)
    client.graphql_result(QUERY)
    assert clock.slept == []
    client.graphql_result(QUERY)
    assert clock.slept == [601.0]
    assert len(seen) == 2


def test_the_headers_budget_counts_when_the_query_selects_none() -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 30)}
    handler, _ = answers(data({"a": 1}, **headers), data({"a": 2}))
    clock = Clock()
    client = make(handler, clock)
    client.graphql_result(QUERY)
    assert client.graphql_result(QUERY).data == {"a": 2}
    assert clock.slept == [31.0]


def test_secondary_limits_and_server_errors_are_retried_for_mutations_too() -> None:
    handler, seen = answers(
        httpx.Response(
            403,
            json={"message": "You have exceeded a secondary rate limit."},
            headers={"Retry-After": "30"},
        ),
        httpx.Response(502, json={"message": "Bad Gateway"}),
        data({"m0": {"clientMutationId": None}}),
    )
    clock = Clock()
    result = make(handler, clock).graphql_result(MUTATION, {"m0": "IC_1"}, mutation=True)
    assert result.data == {"m0": {"clientMutationId": None}}
    assert clock.slept == [30.0, 2.0]  # as asked, then the second step of the back-off
    assert len(seen) == 3


def test_mutations_are_spaced_like_writes_and_queries_are_not() -> None:
    handler, _ = answers(*[data({"x": 1}) for _ in range(4)])
    clock = Clock()
    client = make(handler, clock)
    client.graphql_result(QUERY)
    client.graphql_result(QUERY)
    client.graphql_result(MUTATION, {"m0": "IC_1"}, mutation=True)
    client.graphql_result(MUTATION, {"m0": "IC_2"}, mutation=True)
    assert clock.slept == [1.0]


def pages(*answers_: dict[str, Any]) -> Callable[[httpx.Request], httpx.Response]:
    queue = list(answers_)

    def handler(request: httpx.Request) -> httpx.Response:
        return data(queue.pop(0))

    return handler


def connection(nodes: list[int], cursor: str | None) -> dict[str, Any]:
    info = {"hasNextPage": cursor is not None, "endCursor": cursor}
    return {"repository": {"pullRequest": {"reviewThreads": {"nodes": nodes, "pageInfo": info}}}}


PATH = ("repository", "pullRequest", "reviewThreads")


def test_connections_are_walked_with_cursors() -> None:
    handler, seen = answers(
        data(connection([1, 2], "Y1")), data(connection([3], "Y2")), data(connection([], None))
    )
    nodes = make(handler).graphql_nodes(QUERY, {"number": 7}, PATH)
    assert nodes == [1, 2, 3]
    assert [sent(request)["variables"] for request in seen] == [
        {"number": 7, "cursor": None},
        {"number": 7, "cursor": "Y1"},
        {"number": 7, "cursor": "Y2"},
    ]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (connection([1], "Y1"), "pagination repeats the cursor 'Y1'"),
        ({"repository": {"pullRequest": None}}, "repository.pullRequest.reviewThreads is null"),
        ({"repository": {}}, "the answer has no repository.pullRequest.reviewThreads"),
        (
            {"repository": {"pullRequest": {"reviewThreads": {"nodes": []}}}},
            "lacks nodes or pageInfo",
        ),
        (
            {
                "repository": {
                    "pullRequest": {
                        "reviewThreads": {"nodes": [], "pageInfo": {"hasNextPage": True}}
                    }
                }
            },
            "has a next page but no cursor",
        ),
    ],
)
def test_broken_pages_are_errors(answer: dict[str, Any], message: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return data(answer)

    with pytest.raises(GitHubError, match=message):
        make(handler).graphql_nodes(QUERY, {}, PATH)


def test_a_page_with_errors_fails_the_walk() -> None:
    answer = {
        "data": {"repository": None},
        "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": "Could not resolve"}],
    }
    handler, _ = answers(httpx.Response(200, json=answer))
    with pytest.raises(
        GitHubError, match=r"reviewThreads failed: repository: Could not resolve \(NOT_FOUND\)"
    ):
        make(handler).graphql_nodes(QUERY, {}, PATH)


def test_a_dry_run_sends_queries_and_records_mutations() -> None:
    handler, seen = answers(data({"viewer": {"login": "me"}}))
    client = make(handler, dry_run=True)
    assert client.graphql_result(QUERY).data == {"viewer": {"login": "me"}}
    assert client.graphql_result(MUTATION, {"m0": "IC_1"}, mutation=True).data == {}
    assert len(seen) == 1
    [request] = client.unsent
    text = format_request(request)
    assert text.splitlines()[0] == "POST https://api.github.com/graphql"
    assert '"subjectId": "$m0"' not in text and '"m0": "IC_1"' in text
    assert TOKEN not in text


def test_an_offline_dry_run_sends_no_graphql() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    client = make(handler, dry_run=True, token=None)
    assert client.graphql_result(QUERY).data == {}
    assert client.graphql_nodes(QUERY, {}, PATH) == []
    client.graphql_result(MUTATION, {"m0": "IC_1"}, mutation=True)
    assert len(client.unsent) == 1
