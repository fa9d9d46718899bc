"""The client's GraphQL queries: the endpoint beside the REST root, retries, errors, the fake."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from github.fake import FakeTime
from github.github_openapi import SpecViolation
from github.github_support import TARGET, TOKEN, new_fake
from review_quorum.errors import GitHubError
from review_quorum.github import PullRequest
from review_quorum.github.client import graphql_url_for
from review_quorum.github.snapshot import COMMIT_DATE_QUERY, head_commit_date


@pytest.mark.parametrize(
    ("api_url", "graphql_url"),
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"),
        ("http://127.0.0.1:9000", "http://127.0.0.1:9000/graphql"),
    ],
)
def test_the_graphql_endpoint_sits_beside_the_rest_root(api_url: str, graphql_url: str) -> None:
    assert graphql_url_for(api_url) == graphql_url


def test_the_head_commit_date_comes_from_graphql() -> None:
    fake = new_fake()
    fake.head_committed_at = "2026-03-04T05:06:07Z"
    client = fake.client(TOKEN)
    head = PullRequest(TARGET.owner, TARGET.repo, TARGET.number, fake.head_sha)
    assert head_commit_date(client, head) == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert fake.log == [("QUERY", "CommitDate", 200)]


def test_an_unknown_commit_is_an_error_naming_it() -> None:
    fake = new_fake()
    head = PullRequest(TARGET.owner, TARGET.repo, TARGET.number, "9" * 40)
    with pytest.raises(GitHubError, match=f"no commit date for {'9' * 40}"):
        head_commit_date(fake.client(TOKEN), head)


def test_a_query_is_retried_after_a_server_error_and_not_paced_like_a_write() -> None:
    fake = new_fake()
    fake.fail("graphql", 502)
    time = FakeTime()
    client = fake.client(TOKEN, time)
    head = PullRequest(TARGET.owner, TARGET.repo, TARGET.number, fake.head_sha)
    assert head_commit_date(client, head) is not None
    assert head_commit_date(client, head) is not None
    assert time.slept == [1.0]  # the retry's back-off only
    assert fake.log == [("QUERY", "CommitDate", 502)] + [("QUERY", "CommitDate", 200)] * 2


def test_graphql_errors_raise_without_the_token() -> None:
    fake = new_fake()
    client = fake.client(TOKEN)
    query = 'query { repository(owner: "x", name: "y") { nameWithOwner } }'
    fake.fail("graphql", 200, body={"errors": [{"message": f"token {TOKEN} was refused"}]})
    with pytest.raises(GitHubError) as caught:
        client.graphql(query)
    assert "token [REDACTED] was refused" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_the_fake_refuses_a_document_githubs_schema_does_not_allow() -> None:
    client = new_fake().client(TOKEN)
    broken = COMMIT_DATE_QUERY.replace("committedDate", "commitDate")
    with pytest.raises(SpecViolation, match="Cannot query field 'commitDate' on type 'Commit'"):
        client.graphql(broken, {"owner": "o", "name": "n", "oid": "a" * 40})
