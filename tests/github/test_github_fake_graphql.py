"""The fake's GraphQL endpoint: GitHub's schema checks every request; REST and GraphQL agree."""

from __future__ import annotations

from typing import Any

import pytest

from github.fake import FakeGitHub, FakeTime
from github.github_openapi import SpecViolation
from github.github_support import BOT, TOKEN, new_fake
from review_quorum.errors import GitHubError
from review_quorum.github import GitHubClient, RetryPolicy
from review_quorum.github.moderation import (
    STATES,
    THREADS,
    comment_states,
    minimize,
    mutation_document,
    resolve_threads,
    review_threads,
)
from review_quorum.github.target import PullRequest

TARGET = PullRequest("octo-org", "widgets", 7)
RABBIT = "coderabbitai[bot]"


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff({"a.py": range(1, 40)})
    return fake


def thread_of(fake: FakeGitHub, login: str, line: int) -> dict[str, Any]:
    fake.add_review(login, "", [{"path": "a.py", "line": line, "body": f"note {line}"}])
    return fake.review_comments[-1]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": "query { viewer { nope } }"}, "Cannot query field 'nope' on type 'User'"),
        (
            {
                "query": mutation_document("minimize", 1).replace("DUPLICATE", "DUPLICATED"),
                "variables": {"s0": "IC_1"},
            },
            "Value 'DUPLICATED' does not exist in 'ReportedContentClassifiers' enum",
        ),
        ({"query": STATES, "variables": {}}, r"Variable '\$ids' has invalid value"),
        ({"query": STATES, "variables": {"ids": "IC_1"}} | {"x": 1}, "unknown GraphQL request"),
        ({"query": STATES, "variables": {"ids": ["IC_1"], "cursor": None}}, "not defined"),
        ({"query": THREADS, "variables": {"owner": "o", "name": "r", "number": "7"}}, "Int"),
        ({"query": "query {"}, "GraphQL syntax"),
    ],
)
def test_requests_the_schema_refuses_are_spec_violations(
    fake: FakeGitHub, body: dict[str, Any], message: str
) -> None:
    client = fake.client(TOKEN)
    with pytest.raises(SpecViolation, match=message):
        client._send(client._build("POST", client.graphql_url, body))


def test_threads_agree_with_the_rest_side(fake: FakeGitHub) -> None:
    first = thread_of(fake, RABBIT, 3)
    second = thread_of(fake, "alice", 9)
    fake.add_reply("bob", first, "agreed")
    fake.graphql.state.page_cap = 1  # one thread per page: the walk takes two pages
    threads = review_threads(fake.client(TOKEN), TARGET)
    assert set(threads) == {first["id"], second["id"]}
    assert threads[first["id"]].id == f"PRRT_{first['id']}"
    assert [entry[:2] for entry in fake.log] == [("QUERY", "ReviewThreads")] * 2


def test_minimizing_shows_in_graphql_and_not_in_rest(fake: FakeGitHub) -> None:
    comment = thread_of(fake, RABBIT, 3)
    client = fake.client(TOKEN)
    outcome = minimize(client, [comment["node_id"]], dry_run=False)
    assert outcome.done == (comment["node_id"],) and not outcome.refused
    [state] = comment_states(client, [comment["node_id"]]).values()
    assert (state.minimized, state.can_minimize) == ("duplicate", True)
    assert fake.graphql.state.minimized == {comment["node_id"]: "DUPLICATE"}
    assert "isMinimized" not in fake.review_comments[-1]


def test_a_comment_token_may_resolve_but_not_minimize(fake: FakeGitHub) -> None:
    fake.add_token("ghs_comment", BOT, access="comment")
    comment = thread_of(fake, BOT, 5)
    client = fake.client("ghs_comment")
    [state] = comment_states(client, [comment["node_id"]]).values()
    assert state.can_minimize is False
    other = fake.add_issue_comment(RABBIT, "walkthrough")
    refused = minimize(client, [comment["node_id"], other["node_id"]], dry_run=False)
    assert refused.refused and refused.done == ()
    assert [why for _, why in refused.failed] == [
        "Resource not accessible by integration",
        "Resource not accessible by integration",
    ]
    resolved = resolve_threads(client, [f"PRRT_{comment['id']}"], dry_run=False)
    assert resolved.done == (f"PRRT_{comment['id']}",)
    assert fake.graphql.state.resolved == {comment["id"]: BOT}


def test_partial_errors_leave_the_other_subjects_done(fake: FakeGitHub) -> None:
    good, bad = thread_of(fake, RABBIT, 3), thread_of(fake, RABBIT, 4)
    fake.graphql.refuse(bad["node_id"])
    subjects = [good["node_id"], bad["node_id"], "IC_999"]
    outcome = minimize(fake.client(TOKEN), subjects, dry_run=False)
    assert outcome.done == (good["node_id"],)
    assert outcome.failed == (
        (bad["node_id"], f"Could not change {bad['node_id']}"),
        ("IC_999", "Could not resolve to a node with the global id of 'IC_999'"),
    )
    assert not outcome.refused


def test_an_exhausted_budget_is_waited_out_within_the_retry_budget(fake: FakeGitHub) -> None:
    comment = thread_of(fake, RABBIT, 3)
    time = FakeTime()
    client = fake.client(TOKEN, time, retry=RetryPolicy(budget=4000))
    fake.graphql.exhaust(remaining=0)
    assert comment_states(client, [comment["node_id"]])
    assert time.slept == [3601.0]
    fake.graphql.exhaust(remaining=0)
    with pytest.raises(GitHubError, match="would exceed the 900s retry budget"):
        comment_states(fake.client(TOKEN), [comment["node_id"]])


def test_a_read_only_token_changes_nothing_on_either_side(fake: FakeGitHub) -> None:
    fake.add_token("ghs_read", "reader", access="read")
    comment = thread_of(fake, RABBIT, 3)
    client: GitHubClient = fake.client("ghs_read")
    with pytest.raises(GitHubError, match="403: Resource not accessible by integration"):
        client.write(
            "PATCH", f"/repos/octo-org/widgets/issues/comments/{comment['id']}", {"body": "x"}
        )
    assert minimize(client, [comment["node_id"]], dry_run=False).refused
    assert fake.graphql.state.minimized == {}
