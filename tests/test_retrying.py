"""What both platform clients share (`retrying`), one row per case: how long a
``Retry-After`` header asks to wait (never less than nothing), a retry budget spent to the
second, and a rate-limit reset that decides only a rate limit's wait."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from github.fake import FakeTime
from review_quorum.errors import GitLabError
from review_quorum.gitlab.client import GitLabClient
from review_quorum.retrying import JsonRetryingClient, RetryPolicy, retry_after, whole_number

NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("7", 7.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("-5", 0.0),
        ("Thu, 01 Jan 2026 00:00:30 GMT", 30.0),
        ("Wed, 31 Dec 2025 23:59:00 GMT", 0.0),
        ("soon", None),
        ("9" * 400, None),  # no float holds it: unreadable, not a crash
    ],
)
def test_retry_after_asks_for_seconds_never_fewer_than_none(
    header: str | None, seconds: float | None
) -> None:
    assert retry_after(header, NOW) == seconds


@pytest.mark.parametrize(
    ("value", "number"),
    [("12", 12), (" 3", 3), ("", None), ("1.5", None), ("9" * 400, None)],
)
def test_a_header_whole_number(value: str, number: int | None) -> None:
    assert whole_number(value) == number


def gitlab(answers: Iterator[httpx.Response], retry: RetryPolicy, time: FakeTime) -> GitLabClient:
    http = httpx.Client(transport=httpx.MockTransport(lambda request: next(answers)))
    return GitLabClient(
        http,
        token="glpat-secret-value-0123",
        api_url="https://gitlab.example.com/api/v4",
        retry=retry,
        sleep=time.sleep,
        clock=time.clock,
    )


@pytest.mark.parametrize(("budget", "served"), [(3.0, True), (2.999, False)])
def test_the_retry_budget_may_be_spent_to_the_second(budget: float, served: bool) -> None:
    answers = iter([httpx.Response(500), httpx.Response(500), httpx.Response(200, json={})])
    time = FakeTime(NOW)
    client = gitlab(answers, RetryPolicy(attempts=6, base_delay=1.0, budget=budget), time)
    if served:
        assert client.get("/user") == {}
        assert time.slept == [1.0, 2.0]
    else:
        with pytest.raises(GitLabError, match="retry budget"):
            client.get("/user")


@pytest.mark.parametrize(("status", "slept"), [(429, [21.0]), (500, [1.0]), (502, [1.0])])
def test_a_rate_limit_reset_decides_the_wait_of_a_rate_limit_only(
    status: int, slept: list[float]
) -> None:
    time = FakeTime(NOW)
    reset = {"ratelimit-reset": str(int(NOW) + 20)}
    answers = iter([httpx.Response(status, headers=reset), httpx.Response(200, json={})])
    client = gitlab(answers, RetryPolicy(), time)
    assert client.get("/user") == {}
    assert time.slept == slept


@pytest.mark.parametrize(
    "headers",
    [{"retry-after": "9" * 400}, {"ratelimit-reset": "9" * 400}],
    ids=["retry-after", "ratelimit-reset"],
)
def test_a_wait_too_long_for_any_clock_is_read_as_no_wait_given(headers: dict[str, str]) -> None:
    """A hostile or broken server's 400-digit wait is ignored (backing off instead), never
    an OverflowError (exit 3)."""
    time = FakeTime(NOW)
    answers = iter([httpx.Response(429, headers=headers), httpx.Response(200, json={})])
    client = gitlab(answers, RetryPolicy(), time)
    assert client.get("/user") == {}
    assert time.slept == [1.0]


def test_a_write_answered_already_done_is_what_was_wanted() -> None:
    from review_quorum.errors import ServiceError
    from review_quorum.retrying import unless_done

    def answered(status: int) -> Callable[[], object]:
        def write() -> object:
            raise ServiceError("gone", status=status, method="DELETE", path="/x")

        return write

    unless_done(answered(404), 404)  # already deleted
    with pytest.raises(ServiceError):
        unless_done(answered(409), 404)
    sent: list[int] = []
    unless_done(lambda: sent.append(1), 404)
    assert sent == [1]


@pytest.mark.parametrize("client", ["gitlab", "azure", "bitbucket"])
def test_an_answer_that_is_not_json_is_the_services_error(client: str) -> None:
    """Every JSON client: a 200 whose body is not JSON is an error naming the request."""
    from review_quorum.azure_devops.client import AzureDevOpsClient
    from review_quorum.bitbucket.client import BitbucketClient
    from review_quorum.errors import AzureDevOpsError, BitbucketError

    http = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, text="<h")))

    def made() -> JsonRetryingClient:
        if client == "gitlab":
            return GitLabClient(http, token="glpat-secret-value-0123")
        if client == "azure":
            return AzureDevOpsClient(http, token="a" * 52)
        return BitbucketClient(http, token="bitbucket-token-0123")

    error = {"gitlab": GitLabError, "azure": AzureDevOpsError, "bitbucket": BitbucketError}[client]
    with pytest.raises(error, match=r"GET https://\S+/x\S* returned invalid JSON") as caught:
        made().get("/x")
    assert caught.value.status == 200 and caught.value.path.endswith("/x")
    assert made().write("DELETE", "/x", dry_run=True) is None  # a dry run sends nothing
