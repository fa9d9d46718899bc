"""Waiting for the review bots: has each named bot reported on the pull request's head commit?

A bot has reported when it submitted a review, or wrote an inline review comment, on the
head commit (its ``commit_id`` is the head SHA), or wrote (or last edited) a conversation
comment after the head commit was committed, unless that comment only says the review is
under way. A bot has skipped when the latest thing it said is a notice that it will not
review (skipped, paused, out of quota, too large). Bots are named as the readers name them
(`ingest.bots`): a parser's bot name or the login without ``[bot]``, so ``coderabbit``,
``coderabbitai`` and ``coderabbitai[bot]`` are the same bot.

`wait_for_bots` polls through an injected reader, clock and sleeper until every named bot
has reported or skipped, or the timeout passes; it never raises on a timeout, because a
review of what is there, saying who is missing, is the useful outcome.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from review_quorum.github.snapshot import PullSnapshot, parse_timestamp
from review_quorum.ingest.bots import normalise_login, parser_for

DEFAULT_TIMEOUT = 600.0
DEFAULT_INTERVAL = 30.0

# Words a bot uses when it will not review this pull request (matched case-insensitively).
SKIP_NOTICES = (
    "review skipped",
    "reviews paused",
    "review paused",
    "rate limit exceeded",
    "usage limit",
    "wasn't able to review",
    "was not able to review",
    "unable to review",
    "larger than the review limit",
    "too large to review",
    "reviews are disabled",
)
# Words of a placeholder a bot posts when it starts, before its findings exist.
UNDER_WAY = (
    "review in progress",
    "currently reviewing",
    "review started",
    "started reviewing",
    "is reviewing",
)


class Report(enum.Enum):
    """Where one bot stands on the head commit."""

    REPORTED = "reported"
    SKIPPED = "skipped"
    PENDING = "pending"


@dataclass(frozen=True, slots=True)
class Waited:
    """The last reading, each named bot's report on it, and how long the wait took."""

    snapshot: PullSnapshot
    reports: Mapping[str, Report]
    waited: float = 0.0

    @property
    def missing(self) -> tuple[str, ...]:
        """The bots that had neither reported nor skipped when the wait ended."""
        return tuple(bot for bot, report in self.reports.items() if report is Report.PENDING)


def bot_name(login: str) -> str:
    """The name the readers give the author `login` (or a name the user typed)."""
    parser = parser_for(login)
    return parser.name if parser is not None else normalise_login(login)


def parse_bot_list(text: str) -> tuple[str, ...]:
    """``a, b,c`` as bot names in order, without blanks or repeats."""
    names = (bot_name(part) for part in text.split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def bot_reports(snapshot: PullSnapshot, bots: Iterable[str]) -> dict[str, Report]:
    """Each of `bots` (bot names) as reported, skipped or pending on `snapshot`."""
    wanted = dict.fromkeys(bots, Report.PENDING)
    latest: dict[str, tuple[str, str]] = {}
    for moment, bot, body, counts in _activity(snapshot, wanted.keys()):
        if counts and not _says(body, UNDER_WAY):
            skipped = _says(body, SKIP_NOTICES) and wanted[bot] is not Report.REPORTED
            wanted[bot] = Report.SKIPPED if skipped else Report.REPORTED
        if moment >= latest.get(bot, ("", ""))[0]:
            latest[bot] = (moment, body)
    for bot, (_, body) in latest.items():
        # A bot that said it will not review this pull request is not waited for.
        if wanted[bot] is Report.PENDING and _says(body, SKIP_NOTICES):
            wanted[bot] = Report.SKIPPED
    return wanted


def _activity(snapshot: PullSnapshot, bots: Iterable[str]) -> Iterable[tuple[str, str, str, bool]]:
    """(when, bot, body, counts as a report on the head) for each comment by a named bot."""
    named = set(bots)
    head = snapshot.head_sha
    for item in snapshot.reviews:
        if item.get("state") != "PENDING":
            yield from _by(named, item, "submitted_at", item.get("commit_id") == head)
    for item in snapshot.review_comments:
        on_head = head in (item.get("commit_id"), item.get("original_commit_id"))
        yield from _by(named, item, "updated_at", on_head)
    for item in snapshot.issue_comments:
        after = _after(item, snapshot.head_committed_at)
        yield from _by(named, item, "updated_at", after)


def _by(
    named: set[str], item: Mapping[str, Any], time_field: str, counts: bool
) -> Iterable[tuple[str, str, str, bool]]:
    user = item.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    if not isinstance(login, str):
        return
    bot = bot_name(login)
    if bot in named:
        moment = item.get(time_field) or item.get("created_at") or ""
        body = item.get("body")
        yield str(moment), bot, body if isinstance(body, str) else "", counts


def _after(item: Mapping[str, Any], committed: datetime | None) -> bool:
    """Whether a conversation comment was written or last edited after the head commit."""
    if committed is None:
        return False
    for field in ("created_at", "updated_at"):
        moment = parse_timestamp(item.get(field))
        if moment is not None and moment > committed:
            return True
    return False


def _says(body: str, phrases: Sequence[str]) -> bool:
    text = body.casefold()
    return any(phrase in text for phrase in phrases)


def wait_for_bots(
    read: Callable[[], PullSnapshot],
    bots: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = DEFAULT_INTERVAL,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    progress: Callable[[Sequence[str], float], None] = lambda pending, waited: None,
) -> Waited:
    """Read until every bot in `bots` reported or skipped, or `timeout` seconds passed."""
    started = clock()
    while True:
        snapshot = read()
        reports = bot_reports(snapshot, bots)
        waited = clock() - started
        result = Waited(snapshot, reports, waited)
        left = timeout - waited
        if not result.missing or left <= 0:
            return result
        progress(result.missing, waited)
        sleep(min(interval, left))
