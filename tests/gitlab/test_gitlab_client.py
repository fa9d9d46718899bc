"""GitLabClient on its own, through httpx.MockTransport: paging, retries, tokens, dry runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from github.fake import FakeTime
from review_quorum.errors import ConfigError, GitLabError
from review_quorum.gitlab.client import GitLabClient

API = "https://gitlab.example.com/api/v4"
TOKEN = "glpat-secret-value-0123"


def client(handler: Callable[[httpx.Request], httpx.Response], **options: Any) -> GitLabClient:
    time = FakeTime()
    http = httpx.Client(transport=httpx.MockTransport(handler))
    return GitLabClient(
        http, token=TOKEN, api_url=API, sleep=time.sleep, clock=time.clock, **options
    )


def test_pages_follow_x_next_page_with_per_page_100() -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url.params))
        page = int(request.url.params["page"])
        following = "" if page == 3 else str(page + 1)
        return httpx.Response(200, json=[page], headers={"x-next-page": following})

    assert client(handler).paginate("/projects/1/merge_requests/2/notes") == [1, 2, 3]
    assert asked == ["per_page=100&page=1", "per_page=100&page=2", "per_page=100&page=3"]


@pytest.mark.parametrize("following", ["1", "zero", "-4"])
def test_pages_that_go_back_or_make_no_sense_stop_the_read(following: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=[], headers={"x-next-page": following})

    with pytest.raises(GitLabError, match="pages repeat|bad x-next-page"):
        client(handler).paginate("/projects/1/merge_requests/2/notes")


def test_a_failed_post_is_not_sent_again_and_the_token_never_shows() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(502, json={"message": f"proxy saw {TOKEN}"})

    with pytest.raises(GitLabError, match="returned 502") as caught:
        client(handler).write("POST", "/projects/1/merge_requests/2/notes", {"body": "x"})
    assert len(sent) == 1
    assert TOKEN not in str(caught.value) and "[REDACTED]" in str(caught.value)
    assert sent[0].headers["authorization"] == f"Bearer {TOKEN}"


def test_validation_errors_name_their_fields() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"message": {"line_code": ["can't be blank"]}})

    with pytest.raises(GitLabError, match="returned 400: line_code can't be blank"):
        client(handler).write("POST", "/projects/1/merge_requests/2/discussions", {"body": "x"})


def test_a_rate_limit_waits_until_the_reset_when_no_retry_after_is_given() -> None:
    answers = iter([httpx.Response(429, text="Retry later"), httpx.Response(200, json={})])
    time = FakeTime()
    reset = str(int(time.now) + 20)

    def handler(request: httpx.Request) -> httpx.Response:
        response = next(answers)
        response.headers["ratelimit-reset"] = reset
        return response

    http = httpx.Client(transport=httpx.MockTransport(handler))
    gitlab = GitLabClient(http, token=TOKEN, api_url=API, sleep=time.sleep, clock=time.clock)
    assert gitlab.get("/user") == {}
    assert time.slept == [21.0]


def test_a_dry_run_records_writes_and_offline_reads_nothing() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing may be sent")

    http = httpx.Client(transport=httpx.MockTransport(handler))
    offline = GitLabClient(http, token=None, api_url=API, dry_run=True)
    assert offline.offline and offline.get("/user") is None and offline.paginate("/x") == []
    offline.write("PUT", "/projects/1/merge_requests/2/notes/3", {"body": "y"})
    assert [(r.method, r.url.path) for r in offline.unsent] == [
        ("PUT", "/api/v4/projects/1/merge_requests/2/notes/3")
    ]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CI_JOB_TOKEN": "job"}, "a CI job token \\(CI_JOB_TOKEN\\) cannot read or write"),
        ({}, "GITLAB_TOKEN is not set: create a project access token"),
        ({"GITLAB_TOKEN": "two words"}, "GITLAB_TOKEN holds whitespace"),
        ({"GITLAB_TOKEN": "t", "GITLAB_API_URL": "http://gitlab.example.com"}, "https://"),
    ],
)
def test_tokens_and_api_roots_that_cannot_work_are_refused(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        GitLabClient.from_env(httpx.Client(), env)


def test_the_pipelines_api_root_is_used() -> None:
    gitlab = GitLabClient.from_env(
        httpx.Client(), {"GITLAB_TOKEN": "t", "CI_API_V4_URL": "https://git.example.org/api/v4/"}
    )
    assert gitlab.api_url == "https://git.example.org/api/v4"
