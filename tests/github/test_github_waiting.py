"""Waiting for bots: who has reported on the head commit, who skipped, and the polling loop."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from github.fake import FakeTime
from review_quorum.github import PullRequest
from review_quorum.github.snapshot import PullSnapshot
from review_quorum.github.waiting import (
    Report,
    bot_reports,
    not_installed,
    parse_bot_list,
    wait_for_bots,
)

HEAD = "c" * 40
OLD = "d" * 40
COMMITTED = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def user(login: str) -> dict[str, Any]:
    return {"login": login, "id": 1, "type": "Bot"}


def review(login: str, commit: str, body: str = "", state: str = "COMMENTED") -> dict[str, Any]:
    return {
        "id": 1,
        "user": user(login),
        "body": body,
        "state": state,
        "commit_id": commit,
        "submitted_at": "2026-01-01T12:05:00Z",
    }


def inline(login: str, commit: str, original: str | None = None) -> dict[str, Any]:
    return {
        "id": 2,
        "user": user(login),
        "body": "The index can run past the end of the list.",
        "path": "a.py",
        "line": 3,
        "commit_id": commit,
        "original_commit_id": original or commit,
        "created_at": "2026-01-01T12:05:00Z",
        "updated_at": "2026-01-01T12:05:00Z",
    }


def talk(login: str, body: str, created: str, updated: str | None = None) -> dict[str, Any]:
    return {
        "id": 3,
        "user": user(login),
        "body": body,
        "created_at": created,
        "updated_at": updated or created,
    }


def snapshot(
    *,
    reviews: tuple[dict[str, Any], ...] = (),
    comments: tuple[dict[str, Any], ...] = (),
    issue: tuple[dict[str, Any], ...] = (),
    committed: datetime | None = COMMITTED,
) -> PullSnapshot:
    return PullSnapshot(
        target=PullRequest("octo-org", "widgets", 7, HEAD),
        head_sha=HEAD,
        review_comments=comments,
        reviews=reviews,
        issue_comments=issue,
        head_committed_at=committed,
    )


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("coderabbit", ("coderabbit",)),
        ("coderabbitai[bot], cursor[bot] ,cursor", ("coderabbit", "cursor")),
        ("Copilot,copilot-pull-request-reviewer", ("copilot",)),
        (" , ,", ()),
    ],
)
def test_bot_names_are_the_readers_names_for_any_spelling(
    text: str, names: tuple[str, ...]
) -> None:
    assert parse_bot_list(text) == names


def test_a_review_or_inline_comment_on_the_head_commit_is_a_report() -> None:
    seen = snapshot(
        reviews=(review("coderabbitai[bot]", HEAD), review("sourcery-ai[bot]", OLD)),
        comments=(inline("Copilot", HEAD), inline("cursor[bot]", HEAD, original=OLD)),
    )
    assert bot_reports(seen, ["coderabbit", "sourcery", "copilot", "cursor"]) == {
        "coderabbit": Report.REPORTED,
        "sourcery": Report.PENDING,  # reviewed an older commit only
        "copilot": Report.REPORTED,
        "cursor": Report.REPORTED,  # moved onto the head commit by GitHub
    }


def test_a_pending_review_is_not_a_report() -> None:
    seen = snapshot(reviews=(review("greptile-apps[bot]", HEAD, state="PENDING"),))
    assert bot_reports(seen, ["greptile-apps"]) == {"greptile-apps": Report.PENDING}


@pytest.mark.parametrize(
    ("created", "updated", "report"),
    [
        ("2026-01-01T12:00:01Z", None, Report.REPORTED),
        ("2026-01-01T11:59:59Z", None, Report.PENDING),
        ("2026-01-01T12:00:00Z", None, Report.PENDING),  # not after the commit
        ("2026-01-01T09:00:00Z", "2026-01-01T12:30:00Z", Report.REPORTED),  # edited in place
    ],
)
def test_a_conversation_comment_counts_when_written_after_the_head_commit(
    created: str, updated: str | None, report: Report
) -> None:
    seen = snapshot(issue=(talk("claude[bot]", "Two problems in the parser.", created, updated),))
    assert bot_reports(seen, ["claude"]) == {"claude": report}


def test_without_the_commit_date_conversation_comments_cannot_count() -> None:
    seen = snapshot(
        issue=(talk("claude[bot]", "Two problems.", "2030-01-01T00:00:00Z"),), committed=None
    )
    assert bot_reports(seen, ["claude"]) == {"claude": Report.PENDING}


def test_a_placeholder_posted_when_the_review_starts_is_not_a_report() -> None:
    started = talk("cubic-dev-ai[bot]", "Review in progress, results soon.", "2026-01-01T12:01:00Z")
    assert bot_reports(snapshot(issue=(started,)), ["cubic-dev-ai"]) == {
        "cubic-dev-ai": Report.PENDING
    }


@pytest.mark.parametrize(
    "body",
    [
        "> [!IMPORTANT]\n> ## Review skipped\n> Draft pull requests are not reviewed.",
        "You have hit your usage limit for this month.",
        "This pull request is larger than the review limit, so nothing was checked.",
        "The bot wasn't able to review any files in this pull request.",
    ],
)
def test_a_bot_whose_latest_word_is_a_skip_notice_is_not_waited_for(body: str) -> None:
    old = talk("coderabbitai[bot]", body, "2026-01-01T08:00:00Z")
    assert bot_reports(snapshot(issue=(old,)), ["coderabbit"]) == {"coderabbit": Report.SKIPPED}


def test_a_skip_notice_followed_by_more_words_is_stale() -> None:
    notice = talk("coderabbitai[bot]", "Reviews paused.", "2026-01-01T08:00:00Z")
    later = talk("coderabbitai[bot]", "Walkthrough of the change.", "2026-01-01T09:00:00Z")
    assert bot_reports(snapshot(issue=(notice, later)), ["coderabbit"]) == {
        "coderabbit": Report.PENDING
    }


def test_a_review_of_the_head_that_only_says_it_skipped_is_a_skip() -> None:
    empty = review("copilot-pull-request-reviewer[bot]", HEAD, "It was unable to review the files.")
    assert bot_reports(snapshot(reviews=(empty,)), ["copilot"]) == {"copilot": Report.SKIPPED}


def test_other_authors_do_not_stand_in_for_a_bot() -> None:
    seen = snapshot(reviews=(review("alice", HEAD),), issue=(talk("bob", "cursor", "2027-01-01"),))
    assert bot_reports(seen, ["cursor"]) == {"cursor": Report.PENDING}


class Scripted:
    """Readings that change over (fake) time: bot reports arrive at given seconds."""

    def __init__(self, time: FakeTime, arrivals: dict[float, dict[str, Any]]) -> None:
        self.time = time
        self.start = time.now
        self.arrivals = arrivals
        self.reads: list[float] = []

    def __call__(self) -> PullSnapshot:
        elapsed = self.time.now - self.start
        self.reads.append(elapsed)
        arrived = tuple(r for at, r in self.arrivals.items() if at <= elapsed)
        return snapshot(reviews=arrived)


def test_the_wait_ends_on_the_poll_after_the_last_bot_reports() -> None:
    time = FakeTime()
    read = Scripted(
        time, {45.0: review("cursor[bot]", HEAD), 100.0: review("coderabbitai[bot]", HEAD)}
    )
    progress: list[tuple[tuple[str, ...], float]] = []
    waited = wait_for_bots(
        read,
        ["coderabbit", "cursor"],
        timeout=600,
        interval=30,
        clock=time.clock,
        sleep=time.sleep,
        progress=lambda pending, seconds: progress.append((tuple(pending), seconds)),
    )
    assert read.reads == [0, 30, 60, 90, 120]
    assert time.slept == [30, 30, 30, 30]
    assert waited.missing == () and waited.waited == 120
    assert dict(waited.reports) == {"coderabbit": Report.REPORTED, "cursor": Report.REPORTED}
    assert progress == [
        (("coderabbit", "cursor"), 0),
        (("coderabbit", "cursor"), 30),
        (("coderabbit",), 60),
        (("coderabbit",), 90),
    ]


def test_the_wait_gives_up_at_the_timeout_with_a_last_reading_at_the_deadline() -> None:
    time = FakeTime()
    read = Scripted(time, {10.0: review("cursor[bot]", HEAD)})
    waited = wait_for_bots(
        read, ["cursor", "greptile"], timeout=100, interval=30, clock=time.clock, sleep=time.sleep
    )
    assert read.reads == [0, 30, 60, 90, 100]
    assert time.slept == [30, 30, 30, 10]
    assert waited.missing == ("greptile",) and waited.waited == 100
    assert waited.snapshot.reviews[0]["user"]["login"] == "cursor[bot]"


def test_bots_that_already_reported_cost_one_reading() -> None:
    time = FakeTime()
    read = Scripted(time, {0.0: review("cursor[bot]", HEAD)})
    waited = wait_for_bots(read, ["cursor"], clock=time.clock, sleep=time.sleep)
    assert (read.reads, time.slept, waited.missing) == ([0], [], ())


@pytest.mark.parametrize(
    ("authors", "absent"),
    [
        ([], ("coderabbit", "copilot", "cursor")),
        # GraphQL names an app by its slug; Copilot reviews under another login.
        ([("coderabbitai", "Bot"), ("copilot-pull-request-reviewer", "Bot")], ("cursor",)),
        ([("cursor", "Bot")], ("coderabbit", "copilot")),
        # A person called cursor is not the Cursor app; a configured login is its bot.
        ([("cursor", "User"), ("acme-review", "User")], ("copilot", "cursor")),
    ],
)
def test_a_bot_none_of_the_authors_is_is_not_installed(
    authors: list[tuple[str, str]], absent: tuple[str, ...]
) -> None:
    bots = ("coderabbit", "copilot", "cursor")
    assert not_installed(bots, authors, {"acme-review": "coderabbit"}) == absent


def test_absent_bots_are_reported_on_but_not_waited_for() -> None:
    time = FakeTime()
    snapshot = PullSnapshot(
        PullRequest("o", "r", 1, HEAD), HEAD, reviews=(review("coderabbitai[bot]", HEAD),)
    )
    waited = wait_for_bots(
        lambda: snapshot,
        ["coderabbit", "cursor"],
        absent={"cursor"},
        clock=time.clock,
        sleep=time.sleep,
    )
    assert (waited.missing, time.slept) == (("cursor",), [])
    assert waited.reports == {"coderabbit": Report.REPORTED, "cursor": Report.PENDING}
