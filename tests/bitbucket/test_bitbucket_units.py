"""Bitbucket pieces on their own: the pull request named by flags or a pipeline's
variables, a page that would lead the token to another host, and the head commit a plan
and a status name."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bitbucket.bitbucket_support import TOKEN
from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.poster import head_commit
from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot
from review_quorum.bitbucket.target import BitbucketPullRequest, resolve_pull_request
from review_quorum.errors import BitbucketError, ConfigError

API = "https://api.bitbucket.example/2.0"


def test_flags_win_over_the_pipeline_and_bad_names_are_refused() -> None:
    env = {
        "BITBUCKET_WORKSPACE": "acme",
        "BITBUCKET_REPO_SLUG": "stockroom",
        "BITBUCKET_PR_ID": "7",
    }
    assert resolve_pull_request(None, None, env) == BitbucketPullRequest("acme", "stockroom", 7)
    assert (
        resolve_pull_request("other/web", 9, env).path == "/repositories/other/web/pullrequests/9"
    )
    for bad in ("acme", "acme/web/extra", "acme/.."):
        with pytest.raises(ConfigError, match="--repo"):
            resolve_pull_request(bad, 1, env)
    with pytest.raises(ConfigError, match="no Bitbucket pull request"):
        resolve_pull_request(None, None, {})


def pages(answers: list[dict[str, Any]]) -> tuple[BitbucketClient, list[str]]:
    asked: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, json=answers[len(asked) - 1])

    http = httpx.Client(transport=httpx.MockTransport(handle))
    return BitbucketClient(http, token=TOKEN, api_url=API), asked


def test_pages_are_followed_on_the_api_only() -> None:
    following = f"{API}/repositories/acme/stockroom/pullrequests/7/comments?page=2"
    client, asked = pages([{"values": [1], "next": following}, {"values": [2]}])
    assert client.paginate("/repositories/acme/stockroom/pullrequests/7/comments") == [1, 2]
    assert asked[1] == following
    for elsewhere in ("https://evil.example/2.0/x?page=2", "https://api.bitbucket.example/3.0/x"):
        client, asked = pages([{"values": [1], "next": elsewhere}])
        with pytest.raises(BitbucketError, match="a page leads elsewhere"):
            client.paginate("/x")
        assert len(asked) == 1


def test_the_head_commit_is_the_pipelines_full_hash_only_when_it_is_the_same_commit() -> None:
    target = BitbucketPullRequest("acme", "stockroom", 7)
    snapshot = BitbucketPullSnapshot(target=target, head_sha="c" * 12)
    assert head_commit(snapshot, {"BITBUCKET_COMMIT": "c" * 40}) == "c" * 40
    assert head_commit(snapshot, {"BITBUCKET_COMMIT": "d" * 40}) == "c" * 12
    assert head_commit(None, {"BITBUCKET_COMMIT": "d" * 40}) == "d" * 40
