"""Which bots reviewed the head commit: per expected bot, reviewed, stale, declined or absent.

The expected bots are the configured ones (``expected-bots``), else every bot this
repository's history has seen. On a reading of the pull request each one is:

- *reviewed*: a review or inline comment on the head commit, or a conversation comment
  after it, that is not a status notice saying it will not review;
- *declined*: its latest word is one of the notices the readers recognise as "not now"
  (rate limit, usage limit, subscription, review skipped, reviews paused);
- *stale*: it reviewed an older commit only;
- *absent*: it said nothing on this pull request.

The coverage is read before planning and handed to it: the plan decides who votes
(`plan.voters`) and the summary names the bots that did not review.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from review_quorum.delivery.timestamps import parse_timestamp
from review_quorum.github.waiting import (
    SKIP_NOTICES,
    SKIP_WORDS,
    UNDER_WAY_NOTICE,
    Conversation,
    bot_name,
)
from review_quorum.history.database import Database
from review_quorum.ingest.bots.status import notice
from review_quorum.plan import BotCoverage as BotCoverage
from review_quorum.plan import State as State


class Activity(msgspec.Struct, frozen=True):
    """A platform's comments for coverage where no comment names the commit it was made
    on (Azure DevOps, Bitbucket): each is on the head when made after the head's push
    (`head_committed_at`; every one when that is unknown)."""

    head_sha: str
    head_committed_at: datetime | None = None
    reviews: tuple[Mapping[str, Any], ...] = ()
    review_comments: tuple[Mapping[str, Any], ...] = ()
    issue_comments: tuple[Mapping[str, Any], ...] = ()


def expected_bots(
    configured: Sequence[str] | None, database: Database | None, owner: str, repo: str
) -> tuple[str, ...]:
    """The configured bots, else the bots this repository's history has seen."""
    if configured:
        return tuple(dict.fromkeys(configured))
    if database is None:
        return ()
    rows = database.rows(
        "SELECT DISTINCT c.bot FROM comments c JOIN pull_requests p ON p.id = c.pull_request_id"
        " JOIN repositories r ON r.id = p.repository_id WHERE r.owner = ? AND r.name = ?"
        " UNION SELECT DISTINCT m.bot FROM members m JOIN findings f ON f.id = m.finding_id"
        " JOIN runs run ON run.id = f.run_id JOIN pull_requests p ON p.id = run.pull_request_id"
        " JOIN repositories r ON r.id = p.repository_id WHERE r.owner = ? AND r.name = ?"
        " AND m.comment_rest_id IS NOT NULL",
        (owner, repo, owner, repo),
    )
    return tuple(sorted(str(bot) for (bot,) in rows))


def coverage(
    snapshot: Conversation,
    expected: Iterable[str],
    logins: Mapping[str, str] | None = None,
    given: frozenset[str] = frozenset(),
) -> list[BotCoverage]:
    """Each expected bot's coverage of the snapshot's head commit.

    `given` are the bots whose findings this run read from files: they reviewed what the
    run reviews, whatever they said on the pull request.
    """
    said: dict[str, list[tuple[str, str, bool]]] = {bot: [] for bot in expected}
    for moment, bot, body, on_head in _activity(snapshot, logins or {}):
        if bot in said:
            said[bot].append((moment, body, on_head))
    return [
        BotCoverage(bot, State.REVIEWED) if bot in given else _state(bot, sorted(items))
        for bot, items in said.items()
    ]


def _state(bot: str, items: list[tuple[str, str, bool]]) -> BotCoverage:
    if not items:
        return BotCoverage(bot, State.ABSENT)
    latest = items[-1][1]
    if _declines(latest):
        return BotCoverage(bot, State.DECLINED, notice(latest) or "reviews paused")
    if any(on_head and notice(body) != UNDER_WAY_NOTICE for _, body, on_head in items):
        return BotCoverage(bot, State.REVIEWED)
    return BotCoverage(bot, State.STALE)


def _declines(body: str) -> bool:
    text = body.casefold()
    return notice(body) in SKIP_NOTICES or any(words in text for words in SKIP_WORDS)


def _activity(
    snapshot: Conversation, logins: Mapping[str, str]
) -> Iterable[tuple[str, str, str, bool]]:
    head = snapshot.head_sha
    for item in snapshot.reviews:
        if item.get("state") != "PENDING":
            yield from _by(item, "submitted_at", item.get("commit_id") == head, logins)
    for item in snapshot.review_comments:
        on_head = head in (item.get("commit_id"), item.get("original_commit_id"))
        yield from _by(item, "created_at", on_head, logins)
    committed = snapshot.head_committed_at
    for item in snapshot.issue_comments:
        moment = parse_timestamp(item.get("created_at"))
        after = committed is None or (moment is not None and moment > committed)
        yield from _by(item, "created_at", after, logins)


def _by(
    item: Mapping[str, Any], field: str, on_head: bool, logins: Mapping[str, str]
) -> Iterable[tuple[str, str, str, bool]]:
    user = item.get("user")
    if not isinstance(user, Mapping) or not isinstance(user.get("login"), str):
        return
    body = item.get("body") if isinstance(item.get("body"), str) else ""
    kind = user.get("type")
    bot = bot_name(user["login"], kind if isinstance(kind, str) else "", str(body), logins)
    if bot:
        yield str(item.get(field) or item.get("created_at") or ""), bot, str(body), on_head
