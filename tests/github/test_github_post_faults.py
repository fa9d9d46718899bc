"""post_review when GitHub misbehaves: rate limits, 5xx, lost answers, interruptions, 422s."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from github.fake import FakeGitHub, FakeTime, Interrupted
from github.github_support import BOT, TARGET, TOKEN, comment, draft, new_fake
from review_quorum.delivery.draft import DraftComment
from review_quorum.delivery.fitting import MAX_BODY
from review_quorum.errors import GitHubError
from review_quorum.github import PostResult, RetryPolicy, post_review
from review_quorum.markup.markers import find_markers, marker

SECONDARY = {
    "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you "
    "try again.",
    "documentation_url": "https://docs.github.com/rest/overview/rate-limits",
}
MANY = [comment(f"fp{index:02d}", "src/big.py", index + 1) for index in range(70)]


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff({"src/big.py": range(1, 200), "src/small.py": range(1, 10)})
    return fake


def run(
    fake: FakeGitHub, comments: list[DraftComment], time: FakeTime | None = None, **options: Any
) -> PostResult:
    retry = options.pop("retry", None)
    client = fake.client(TOKEN, time, **({"retry": retry} if retry else {}))
    return post_review(client, TARGET, draft(comments), env={}, **options)


def posted(fake: FakeGitHub) -> list[str]:
    return sorted(
        payload
        for item in fake.comments_by(BOT)
        for kind, payload in find_markers(item["body"])
        if kind == "finding"
    )


@pytest.mark.parametrize(
    ("status", "body", "headers", "expected_wait"),
    [
        (403, SECONDARY, {"Retry-After": "30"}, 30.0),
        (403, SECONDARY, {}, 60.0),
        (429, {"message": "Too Many Requests"}, {"Retry-After": "12"}, 12.0),
        (
            403,
            {"message": "API rate limit exceeded for user ID 1."},
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(1_767_225_600 + 90)},
            91.0,
        ),
    ],
    ids=["secondary-retry-after", "secondary-no-header", "429", "primary-reset"],
)
def test_a_rate_limit_mid_run_is_waited_out(
    fake: FakeGitHub,
    status: int,
    body: dict[str, str],
    headers: dict[str, str],
    expected_wait: float,
) -> None:
    fake.fail("pulls/create-review", status, body=body, headers=headers, skip=1)
    time = FakeTime()
    result = run(fake, MANY, time, retry=RetryPolicy(write_interval=0))
    assert (result.created, result.reviews) == (70, 3)
    assert time.slept == [expected_wait]
    assert posted(fake) == sorted(f"fp{index:02d}" for index in range(70))
    assert [
        code for method, path, code in fake.log if path.endswith("/reviews") and method == "POST"
    ] == [200, status, 200, 200]


def test_a_rate_limit_beyond_the_wait_budget_fails_without_the_token(fake: FakeGitHub) -> None:
    fake.fail(
        "issues/create-comment",
        429,
        body={"message": f"slow down {TOKEN}"},
        headers={"Retry-After": "3600"},
    )
    with pytest.raises(
        GitHubError, match=r"429: slow down \[REDACTED\] \(gave up: waiting 3600s"
    ) as caught:
        run(fake, MANY, retry=RetryPolicy(budget=600))
    assert TOKEN not in str(caught.value)


def test_server_errors_on_reads_are_retried(fake: FakeGitHub) -> None:
    for index in range(150):
        fake.add_issue_comment("alice", f"comment {index}")
    fake.fail("issues/list-comments", 502, body={"message": "Server Error"}, skip=1, times=2)
    time = FakeTime()
    result = run(fake, MANY[:3], time)
    assert result.sticky == "created"
    assert time.slept[:2] == [1.0, 2.0]
    pages = [(path, code) for method, path, code in fake.log if path.endswith("/issues/7/comments")]
    assert [code for _, code in pages] == [200, 502, 502, 200, 201]


def test_a_server_error_before_the_review_was_created_is_retried_once(fake: FakeGitHub) -> None:
    fake.fail("pulls/create-review", 500, body={"message": "Server Error"})
    result = run(fake, MANY[:5])
    assert (result.created, result.reviews) == (5, 1)
    assert len(fake.submitted_reviews_by(BOT)) == 1
    assert posted(fake) == [f"fp{index:02d}" for index in range(5)]


def test_a_lost_answer_after_the_review_was_created_does_not_duplicate_it(fake: FakeGitHub) -> None:
    fake.fail("pulls/create-review", 502, body={"message": "Bad Gateway"}, apply=True)
    result = run(fake, MANY[:5])
    assert result.created == 5
    assert len(fake.submitted_reviews_by(BOT)) == 1
    assert len(fake.comments_by(BOT)) == 5


def test_a_lost_answer_after_the_sticky_was_created_does_not_duplicate_it(fake: FakeGitHub) -> None:
    fake.fail("issues/create-comment", 504, body={"message": "Gateway Timeout"}, apply=True)
    result = run(fake, MANY[:2])
    assert result.sticky == "created"
    assert len(fake.issue_comments_by(BOT)) == 1
    assert result.sticky_url == fake.issue_comments_by(BOT)[0]["html_url"]


def test_a_run_interrupted_half_way_completes_on_the_next_run(fake: FakeGitHub) -> None:
    fake.interrupt("pulls/create-review", skip=1)
    with pytest.raises(Interrupted):
        run(fake, MANY)
    assert len(fake.comments_by(BOT)) == 30
    result = run(fake, MANY)
    assert (result.created, result.skipped_existing, result.reviews) == (40, 30, 2)
    assert posted(fake) == sorted(f"fp{index:02d}" for index in range(70))
    assert len(fake.issue_comments_by(BOT)) == 1


def test_a_run_interrupted_while_probing_anchors_leaves_nothing_behind(fake: FakeGitHub) -> None:
    findings = [*MANY[:4], comment("fp-bad", "src/small.py", 50)]
    fake.interrupt("pulls/delete-pending-review")
    with pytest.raises(Interrupted):
        run(fake, findings)
    [probe] = [review for review in fake.reviews if review["state"] == "PENDING"]
    assert probe["body"].startswith(marker("probe"))
    result = run(fake, findings)
    assert (result.created, result.moved_to_body) == (4, 1)
    assert [review for review in fake.reviews if review["state"] == "PENDING"] == []
    assert posted(fake) == [f"fp{index:02d}" for index in range(4)]


def test_a_422_in_a_later_batch_moves_only_that_finding(fake: FakeGitHub) -> None:
    findings = [*MANY[:45], comment("fp-bad", "src/small.py", 50), *MANY[45:50]]
    result = run(fake, findings)
    assert (result.created, result.moved_to_body, result.reviews) == (50, 1, 2)
    second = fake.submitted_reviews_by(BOT)[1]
    assert marker("moved", "fp-bad") in second["body"]
    probes = [m for m, path, _ in fake.log if m == "DELETE"]
    assert 1 <= len(probes) <= 5


def test_a_422_that_no_anchor_explains_is_reported(fake: FakeGitHub) -> None:
    fake.author = BOT
    with pytest.raises(GitHubError, match="Can not request changes on your own pull request"):
        post_review(fake.client(TOKEN), TARGET, draft(MANY[:3], event="REQUEST_CHANGES"), env={})
    assert [review for review in fake.reviews if review["state"] == "PENDING"] == []


def test_our_own_pending_review_blocks_the_anchor_search_with_advice(fake: FakeGitHub) -> None:
    fake.reviews.append(fake._review(BOT, "half-written by hand", "PENDING", None))
    with pytest.raises(GitHubError, match=f"a pending review by {BOT} on octo-org/widgets#7"):
        run(fake, [comment("fp-bad", "src/small.py", 50)])


def test_bodies_longer_than_github_allows_are_cut_keeping_their_markers(fake: FakeGitHub) -> None:
    long = comment("fp-long", "src/big.py", 3)
    long = replace(long, body=long.body + "\n" + "x" * 80 + ("\n" + "y" * 99) * 800)
    summary = "## Findings\n" + ("\n- a finding" * 9000)
    client = fake.client(TOKEN)
    result = post_review(client, TARGET, draft([long], summary=summary), env={})
    assert result.created == 1
    [sticky] = fake.issue_comments_by(BOT)
    [inline] = fake.comments_by(BOT)
    assert len(sticky["body"]) <= MAX_BODY and sticky["body"].startswith(marker("summary"))
    assert len(inline["body"]) <= MAX_BODY and inline["body"].startswith(
        marker("finding", "fp-long")
    )
    assert inline["body"].endswith("characters omitted: GitHub limits a body to 65,536._")
