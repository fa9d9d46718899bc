"""`history sync` against the stand-in: labels, resumption, pages, rate limits, re-syncs."""

from __future__ import annotations

from typing import Any

import pytest

from github.fake import FakeTime, Interrupted
from github.github_support import TOKEN
from history import history_scene
from review_quorum.history import open_history
from review_quorum.history.database import Database
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.show import finding_outcomes
from review_quorum.history.sync import sync

DUMP = {
    "pull_requests": "SELECT r.owner, r.name, p.number, p.title, p.author, p.state, p.created_at,"
    " p.updated_at, p.closed_at, p.merged_at FROM pull_requests p"
    " JOIN repositories r ON r.id = p.repository_id ORDER BY 1, 2, 3",
    "comments": "SELECT p.number, c.kind, c.rest_id, c.node_id, c.author, c.bot, c.created_at,"
    " c.html_url, c.path, c.line, c.thread_resolved, c.resolved_by, c.author_reply,"
    " c.reactions_up, c.reactions_down, c.minimized_reason, c.minimized_by_quorum"
    " FROM comments c JOIN pull_requests p ON p.id = c.pull_request_id ORDER BY 1, 2, 3",
    "findings": "SELECT c.rest_id, f.position, f.finding_key, f.rule_id, f.category, f.title,"
    " f.severity, f.file, f.line, f.end_line, f.lines_changed, f.changed_by, f.cluster,"
    " f.cluster_bots FROM comment_findings f JOIN comments c ON c.id = f.comment_id"
    " ORDER BY 1, 2",
    "progress": "SELECT p.number, s.updated_at FROM sync_progress s"
    " JOIN pull_requests p ON p.id = s.pull_request_id ORDER BY 1",
}


def dump(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """The whole synced content by natural keys (row ids differ between backends)."""
    return {name: database.rows(sql) for name, sql in DUMP.items()}


def test_sync_labels_every_comment_as_documented(db_target: str) -> None:
    fake = history_scene.build()
    database = open_history(db_target)
    try:
        report = sync(database, fake.client(TOKEN), "octo-org", "widgets")
        rows = finding_outcomes(database, DEFAULT_RULE)
    finally:
        database.close()
    assert report.describe("octo-org/widgets") == (
        "history sync octo-org/widgets: 5 pull request(s) listed, 5 read, 0 already up to "
        "date; 13 bot comment(s) with 13 finding(s) stored"
    )
    assert history_scene.outcome_table(rows) == history_scene.EXPECTED_OUTCOMES


def test_signals_are_read_from_every_source(db_target: str) -> None:
    fake = history_scene.build()
    database = open_history(db_target)
    try:
        sync(database, fake.client(TOKEN), "octo-org", "widgets")
        rows = finding_outcomes(database, DEFAULT_RULE)
    finally:
        database.close()
    said = {(row.number, row.bot): row.signals for row in rows}
    assert said[(1, "coderabbit")] == (
        "lines changed in 2222222",
        "also said by 1 other bot(s)",
        "pull request merged",
    )
    assert said[(1, "sourcery")] == ("thread resolved by alice", "pull request merged")
    assert said[(1, "gemini")] == ("pull request merged",)  # a bot's +1 is no signal
    assert said[(2, "coderabbit")] == ("author declined", "pull request merged")
    assert said[(2, "sourcery")] == ("author agreed", "pull request merged")
    assert said[(2, "gemini")] == ("reactions +0/-1", "pull request merged")
    assert said[(3, "copilot")] == (
        "hidden by quorum as a duplicate",
        "also said by 1 other bot(s)",
        "pull request merged",
    )
    assert said[(3, "gemini")] == ("hidden as off-topic", "pull request merged")
    assert said[(4, "coderabbit")] == ("pull request closed",)


def full_sync_dump(db_target: str) -> dict[str, list[tuple[Any, ...]]]:
    database = open_history(db_target)
    try:
        sync(database, history_scene.build().client(TOKEN), "octo-org", "widgets")
        return dump(database)
    finally:
        database.close()


@pytest.mark.parametrize(
    ("operation", "skip"),
    [
        ("pulls/list-commits", 2),  # in the third pull request
        ("repos/get-commit", 0),  # reading the first pull request's patches
        ("graphql", 5),
        ("reactions/list-for-pull-request-review-comment", 1),
        ("issues/list-comments", 4),  # the last pull request
    ],
)
def test_an_interrupted_sync_resumed_ends_as_an_uninterrupted_one(
    db_target: str, tmp_path: Any, operation: str, skip: int
) -> None:
    expected = full_sync_dump(str(tmp_path / "reference.db"))
    fake = history_scene.build()
    fake.interrupt(operation, skip=skip)
    database = open_history(db_target)
    try:
        with pytest.raises(Interrupted):
            sync(database, fake.client(TOKEN), "octo-org", "widgets")
        partial = dump(database)
        assert partial != expected
        resumed = sync(database, fake.client(TOKEN), "octo-org", "widgets")
        assert dump(database) == expected
        stored_before = {number for number, _ in partial["progress"]} - {5}  # 5 is open
        assert resumed.up_to_date == len(stored_before)
        again = sync(database, fake.client(TOKEN), "octo-org", "widgets")
        assert (again.read, again.up_to_date) == (1, 4)  # only the open pull request
        assert dump(database) == expected
    finally:
        database.close()


def test_since_and_last_choose_the_pull_requests(db_target: str) -> None:
    fake = history_scene.build()
    database = open_history(db_target)
    try:
        client = fake.client(TOKEN)
        assert sync(database, client, "octo-org", "widgets", last=2).listed == 2
        numbers = [row[0] for row in database.rows("SELECT number FROM pull_requests ORDER BY 1")]
        assert numbers == [4, 5]
        since = sync(database, client, "octo-org", "widgets", since="2026-02-11T00:00:00Z")
        assert (since.listed, since.read, since.up_to_date) == (4, 3, 1)
    finally:
        database.close()


def test_many_pages_and_rate_limits_are_followed(db_target: str) -> None:
    fake = history_scene.build()
    for number in range(6, 131):  # 130 pull requests: two pages of the listing
        pull = fake.add_pull(number, "erin", f"2025-12-01T{number % 24:02d}:00:00Z")
        pull.commit(f"{number:040d}", "2025-12-01T00:00:00Z", {"app/x.py": None})
    reset = str(int(FakeTime().now) + 30)
    fake.fail(
        "pulls/list-commits",
        403,
        body={"message": "API rate limit exceeded"},
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
    )
    time = FakeTime()
    database = open_history(db_target)
    try:
        report = sync(database, fake.client(TOKEN, time), "octo-org", "widgets")
    finally:
        database.close()
    assert (report.listed, report.read, report.comments) == (130, 130, 13)
    assert time.slept == [31.0]
    listing = [path for path in fake.operations() if path.endswith("/pulls")]
    assert len(listing) == 2


def test_pages_end_where_github_says_not_where_a_short_page_would(
    db_target: str, tmp_path: Any
) -> None:
    """GitHub may give fewer items a page than asked for: every list is read to its last
    `Link`, so a page of one item a time syncs what a full sync does."""
    expected = full_sync_dump(str(tmp_path / "reference.db"))
    fake = history_scene.build()
    fake.page_cap = 1
    database = open_history(db_target)
    try:
        report = sync(database, fake.client(TOKEN), "octo-org", "widgets")
        assert dump(database) == expected
    finally:
        database.close()
    assert (report.listed, report.read) == (5, 5)
    listing = [path for path in fake.operations() if path.endswith("/pulls")]
    assert len(listing) == 5
