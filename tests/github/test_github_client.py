"""GitHubClient over httpx.MockTransport: headers, pagination, retries, budget, redaction."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from review_quorum.errors import ConfigError, GitHubError
from review_quorum.github import GitHubClient, RetryPolicy, format_request
from review_quorum.retrying import validate_api_url

TOKEN = "ghp_secretsecretsecretsecretsecret0123"
NOW = 1_767_225_600.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def make(
    handler: Callable[[httpx.Request], httpx.Response],
    clock: Clock | None = None,
    **options: object,
) -> GitHubClient:
    clock = clock or Clock()
    http = httpx.Client(transport=httpx.MockTransport(handler))
    return GitHubClient(
        http,
        token=options.pop("token", TOKEN),  # type: ignore[arg-type]
        sleep=clock.sleep,
        clock=lambda: clock.now,
        **options,  # type: ignore[arg-type]
    )


def answers(
    *responses: httpx.Response,
) -> tuple[Callable[[httpx.Request], httpx.Response], list[httpx.Request]]:
    queue = list(responses)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return handler, seen


def test_requests_carry_the_token_the_media_type_and_the_api_version() -> None:
    handler, seen = answers(httpx.Response(200, json={"login": "quorum-bot"}))
    assert make(handler).user_login() == "quorum-bot"
    headers = seen[0].headers
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert str(seen[0].url) == "https://api.github.com/user"


def test_pagination_follows_link_next_with_100_per_page() -> None:
    base = "https://api.github.com/repos/o/r/issues/1/comments"
    handler, seen = answers(
        httpx.Response(
            200, json=[1, 2], headers={"Link": f'<{base}?per_page=100&page=2>; rel="next"'}
        ),
        httpx.Response(
            200,
            json=[3],
            headers={
                "Link": f'<{base}?per_page=100&page=3>; rel="next", '
                f'<{base}?per_page=100&page=1>; rel="first"'
            },
        ),
        httpx.Response(
            200, json=[4], headers={"Link": f'<{base}?per_page=100&page=1>; rel="first"'}
        ),
    )
    assert make(handler).paginate("/repos/o/r/issues/1/comments") == [1, 2, 3, 4]
    assert [str(request.url) for request in seen] == [
        f"{base}?per_page=100",
        f"{base}?per_page=100&page=2",
        f"{base}?per_page=100&page=3",
    ]


def test_items_keep_the_query_and_a_caller_that_stops_asks_for_no_further_page() -> None:
    base = "https://api.github.com/repos/o/r/pulls?state=all&per_page=100"
    handler, seen = answers(
        httpx.Response(200, json=[1, 2], headers={"Link": f'<{base}&page=2>; rel="next"'}),
        httpx.Response(200, json=[3], headers={"Link": f'<{base}&page=3>; rel="next"'}),
    )
    items = make(handler).items("/repos/o/r/pulls?state=all")
    assert [next(items), next(items), next(items)] == [1, 2, 3]
    assert [str(request.url) for request in seen] == [base, f"{base}&page=2"]


def test_pages_of_objects_follow_link_next_too() -> None:
    base = "https://api.github.com/repos/o/r/commits/abc"
    handler, seen = answers(
        httpx.Response(
            200, json={"files": [1]}, headers={"Link": f'<{base}?per_page=100&page=2>; rel="next"'}
        ),
        httpx.Response(200, json={"files": [2]}),
    )
    assert list(make(handler).pages("/repos/o/r/commits/abc")) == [{"files": [1]}, {"files": [2]}]
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("link", "message"),
    [
        ('<https://evil.example/steal?page=2>; rel="next"', "pagination points outside"),
        ('<http://api.github.com/x?page=2>; rel="next"', "pagination points outside"),
        ('<https://api.github.com/x?per_page=100>; rel="next"', "pagination repeats"),
        ('<:::>; rel="next"', "pagination points outside"),  # not a URL: no exit 3
    ],
)
def test_pagination_never_leaves_the_api_origin_or_loops(link: str, message: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[], headers={"Link": link})

    with pytest.raises(GitHubError, match=message):
        make(handler).paginate("/x")


def test_a_page_that_is_not_a_list_is_an_error() -> None:
    handler, _ = answers(httpx.Response(200, json={"message": "odd"}))
    with pytest.raises(
        GitHubError, match=r"GET https://api.github.com/x\?per_page=100 returned dict"
    ):
        make(handler).paginate("/x")


@pytest.mark.parametrize(
    ("first", "waits"),
    [
        (httpx.Response(429, headers={"Retry-After": "7"}, json={"message": "slow"}), [7.0]),
        (httpx.Response(403, json={"message": "You have exceeded a secondary rate limit"}), [60.0]),
        (
            httpx.Response(
                403, json={"message": "abuse detection mechanism"}, headers={"Retry-After": "5"}
            ),
            [5.0],
        ),
        (
            httpx.Response(
                403,
                headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 30)},
                json={"message": "API rate limit exceeded"},
            ),
            [31.0],
        ),
        (httpx.Response(503, json={"message": "unavailable"}), [1.0]),
        (httpx.Response(502, headers={"Retry-After": "Thu, 01 Jan 2026 00:00:20 GMT"}), [20.0]),
    ],
    ids=["429", "secondary", "abuse-retry-after", "primary-reset", "503", "retry-after-date"],
)
def test_rate_limits_and_server_errors_are_waited_out_on_reads(
    first: httpx.Response, waits: list[float]
) -> None:
    handler, seen = answers(first, httpx.Response(200, json={"login": "me"}))
    clock = Clock()
    assert make(handler, clock).user_login() == "me"
    assert clock.slept == waits
    assert len(seen) == 2


def test_a_rate_limited_post_is_resent_but_a_failed_one_is_not() -> None:
    handler, seen = answers(
        httpx.Response(
            403,
            json={"message": "You have exceeded a secondary rate limit"},
            headers={"Retry-After": "2"},
        ),
        httpx.Response(201, json={"id": 1}),
        httpx.Response(500, json={"message": "Server Error"}),
    )
    clock = Clock()
    client = make(handler, clock)
    assert client.write("POST", "/a", {"body": "x"}) == {"id": 1}
    with pytest.raises(
        GitHubError, match=r"POST https://api.github.com/a returned 500: Server Error"
    ) as caught:
        client.write("POST", "/a", {"body": "y"})
    assert caught.value.status == 500
    assert len(seen) == 3
    assert clock.slept == [2.0, 1.0]  # the wait GitHub asked for, then one second between writes


def test_exponential_backoff_gives_up_after_the_attempts() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(502, json={"message": "Bad Gateway"})

    clock = Clock()
    with pytest.raises(GitHubError, match=r"502: Bad Gateway \(gave up after 4 attempts\)"):
        make(handler, clock, retry=RetryPolicy(attempts=4)).get("/x")
    assert clock.slept == [1.0, 2.0, 4.0]


def test_the_total_wait_is_bounded() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "40"}, json={"message": "slow"})

    clock = Clock()
    with pytest.raises(GitHubError, match=r"waiting 40s more would exceed the 100s retry budget"):
        make(handler, clock, retry=RetryPolicy(budget=100)).get("/x")
    assert clock.slept == [40.0, 40.0]


def test_transport_errors_are_retried_on_reads_and_reported_on_posts() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if len(calls) in (1, 3):
            raise httpx.ConnectError("connection reset", request=request)
        return httpx.Response(200, json=[])

    client = make(handler)
    assert client.get("/x") == []
    with pytest.raises(
        GitHubError, match=r"POST https://api.github.com/y failed: ConnectError"
    ) as caught:
        client.write("POST", "/y", {})
    assert caught.value.status is None
    assert calls == ["GET", "GET", "POST"]


def test_a_patch_is_resent_after_a_5xx_unless_its_caller_says_not_to() -> None:
    bad = httpx.Response(502, json={"message": "Bad Gateway"})
    handler, seen = answers(bad, httpx.Response(200), bad)
    make(handler).write("PATCH", "/z", {})
    with pytest.raises(GitHubError, match=r"PATCH https://api.github.com/z returned 502"):
        make(handler).write("PATCH", "/z", {}, idempotent=False)
    assert len(seen) == 3


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(401, json={"message": "Bad credentials"}), "returned 401: Bad credentials"),
        (
            httpx.Response(
                422,
                json={"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]},
            ),
            r"422: Unprocessable Entity \(Line could not be resolved\)",
        ),
        (
            httpx.Response(
                422,
                json={
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "resource": "IssueComment",
                            "code": "custom",
                            "message": "body is too long",
                        }
                    ],
                },
            ),
            r"Validation Failed \(body is too long\)",
        ),
        (httpx.Response(404, text="<html>not json</html>"), "returned 404: Not Found"),
        (
            httpx.Response(403, json={"message": f"token {TOKEN} lacks scope"}),
            r"403: token \[REDACTED\] lacks scope",
        ),
    ],
)
def test_errors_name_the_request_and_never_the_token(
    response: httpx.Response, message: str
) -> None:
    handler, _ = answers(response)
    with pytest.raises(GitHubError, match=message) as caught:
        make(handler).get("/x")
    assert TOKEN not in str(caught.value)
    assert caught.value.status == response.status_code


def test_user_login_is_none_when_github_refuses_to_say() -> None:
    handler, _ = answers(
        httpx.Response(403, json={"message": "Resource not accessible by integration"})
    )
    assert make(handler).user_login() is None


def test_dry_run_records_writes_and_redacts_the_token() -> None:
    handler, seen = answers(httpx.Response(200, json=[]))
    client = make(handler, dry_run=True)
    assert client.paginate("/r") == []
    assert client.write("PATCH", "/repos/o/r/issues/comments/5", {"body": "héllo"}) is None
    assert len(seen) == 1
    [request] = client.unsent
    text = format_request(request)
    assert TOKEN not in text and TOKEN not in repr(client)
    assert text.splitlines()[0] == "PATCH https://api.github.com/repos/o/r/issues/comments/5"
    assert "Authorization: Bearer [REDACTED]" in text.splitlines()
    assert text.endswith('\n{\n  "body": "héllo"\n}\n')


def test_an_offline_dry_run_sends_nothing() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    client = make(handler, dry_run=True, token=None)
    assert client.offline
    assert (client.paginate("/x"), client.get("/y"), client.user_login()) == ([], None, None)
    client.write("POST", "/z", {"body": "b"})
    assert "authorization" not in client.unsent[0].headers


def test_posting_needs_a_token() -> None:
    with pytest.raises(ConfigError, match="GITHUB_TOKEN is not set"):
        make(lambda request: httpx.Response(200), token=None)


def test_from_env_reads_token_and_api_url() -> None:
    http = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200)))
    env = {"GITHUB_TOKEN": f" {TOKEN}\n", "GITHUB_API_URL": "https://ghe.example.com/api/v3/"}
    client = GitHubClient.from_env(http, env)
    assert client.api_url == "https://ghe.example.com/api/v3"
    assert repr(client) == "GitHubClient('https://ghe.example.com/api/v3', dry_run=False)"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://api.github.com", "https://api.github.com"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://localhost:3000/api", "http://localhost:3000/api"),
        ("http://[::1]:9000", "http://[::1]:9000"),
    ],
)
def test_api_urls_accepted(url: str, expected: str) -> None:
    assert validate_api_url(url) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "http://ghe.example.com/api/v3",
            r"must use https:// \(http:// only on a loopback address\), not http://ghe.example.com",
        ),
        ("http://10.0.0.1", "not http://10.0.0.1"),
        ("ftp://api.github.com", "not ftp://api.github.com"),
        ("https://user:ghp_x@ghe.example.com", "must not contain credentials"),
        ("https://ghe.example.com/api?x=1", "plain https:// base URL"),
        ("https://", "plain https:// base URL"),
    ],
)
def test_api_urls_refused(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        validate_api_url(url)
    assert "ghp_x" not in str(caught.value)


def test_writes_are_spaced_one_second_apart() -> None:
    handler, _ = answers(*[httpx.Response(200, json={}) for _ in range(3)])
    clock = Clock()
    client = make(handler, clock)
    client.write("PATCH", "/a", {"body": "1"})
    clock.now += 0.25
    client.write("PATCH", "/a", {"body": "2"})
    client.get("/b")
    assert clock.slept == [0.75]


@pytest.mark.parametrize(
    ("responses", "method", "call", "path"),
    [
        ([httpx.Response(500, json={"message": "x"})], "POST", ("write", "POST"), "/repos/o/r/a"),
        ([httpx.Response(404, json={"message": "Not Found"})], "GET", ("get",), "/repos/o/r/a"),
        ([httpx.Response(200, content=b"{oops")], "GET", ("get",), "/repos/o/r/a"),
        ([httpx.Response(200, json={"a": 1})], "GET", ("paginate",), "/repos/o/r/a"),
        ([httpx.Response(502, json={"message": "x"})] * 2, "GET", ("get",), "/repos/o/r/a"),
    ],
)
def test_errors_carry_the_method_and_path_of_their_request(
    responses: list[httpx.Response], method: str, call: tuple[str, ...], path: str
) -> None:
    handler, _ = answers(*responses)
    client = make(handler, retry=RetryPolicy(attempts=2))
    with pytest.raises(GitHubError) as caught:
        getattr(client, call[0])(*call[1:], path)
    assert (caught.value.method, caught.value.path) == (method, path)


def test_each_wait_before_a_retry_is_announced() -> None:
    handler, _ = answers(
        httpx.Response(502, json={"message": "Bad Gateway"}),
        httpx.Response(429, json={"message": "slow"}, headers={"Retry-After": "7"}),
        httpx.Response(200, json={"login": "me"}),
    )
    said: list[str] = []
    assert make(handler, on_wait=said.append).user_login() == "me"
    assert said == [
        "GitHub API GET https://api.github.com/user returned 502: Bad Gateway; "
        "retrying in 1s (2 of 6)",
        "GitHub API GET https://api.github.com/user returned 429: slow; retrying in 7s (3 of 6)",
    ]


@pytest.mark.parametrize("token", ["ghp_a\nb", "ghp_a b", "ghp_a\tb", "ghp_\x7f", "ghp_é", " "])
def test_a_token_no_github_token_can_be_is_refused_without_showing_it(token: str) -> None:
    handler, seen = answers()
    with pytest.raises(ConfigError) as caught:
        make(handler, token=token)
    assert str(caught.value) == (
        "GITHUB_TOKEN holds whitespace, a control character or a non-ASCII character, "
        "which no GitHub token has; check how it was set"
    )
    assert seen == []
