"""Waiting for the review bots: has each named bot reported on the pull request's head commit?

A bot has reported when it submitted a review, or wrote an inline review comment, on the
head commit (its ``commit_id`` is the head SHA), or wrote (or last edited) a conversation
comment after the head commit was committed, unless that comment only says the review is
under way. A bot has skipped when the latest review or conversation comment it wrote says
it will not review (skipped, paused, out of quota, too large): the readers' status notices
(`ingest.bots.status`) and a few more phrasings. Bots are named as the readers name them
(`ingest.bots.authors`, with the configuration's ``bot-logins``), so ``coderabbit``,
``coderabbitai`` and ``coderabbitai[bot]`` are the same bot, and people or review-quorum
itself never stand in for one.

`wait_for_bots` polls through an injected reader, clock and sleeper until every named bot
has reported or skipped, or the timeout passes; it never raises on a timeout, because a
review of what is there, saying who is missing, is the useful outcome. A bot that is not
installed would make every run wait the whole timeout: `not_installed` names the bots no
comment or review of the pull request and the repository's recent pull requests comes
from (`snapshot.recent_authors`), and those are not waited for.
A reading is any `Conversation`: a pull request's, or a GitLab merge request's notes in the
same shape.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from review_quorum.delivery.timestamps import parse_timestamp
from review_quorum.ingest.bots import BY_NAME, PARSERS
from review_quorum.ingest.bots.authors import Attribution, resolve
from review_quorum.ingest.bots.status import notice

DEFAULT_TIMEOUT = 600.0
DEFAULT_INTERVAL = 30.0

# The readers' status notices that mean "not this pull request, not now".
SKIP_NOTICES = frozenset(
    {"usage-limit notice", "rate-limit notice", "subscription notice", "review-skipped notice"}
)
UNDER_WAY_NOTICE = "review-started notice"
# Further ways a bot says it will not review (matched case-insensitively).
SKIP_WORDS = (
    "reviews paused",
    "review paused",
    "wasn't able to review",
    "was not able to review",
    "unable to review",
    "larger than the review limit",
    "too large to review",
    "reviews are disabled",
)
# (when, bot, body, a report on the head commit, a review or conversation comment)
Activity = tuple[str, str, str, bool, bool]


class Conversation(Protocol):
    """What waiting and the history's coverage read: the head commit, when it was
    committed, and the comments (GitHub's `PullSnapshot`, GitLab's conversation, or the
    coverage `Activity` made from another platform's comments)."""

    @property
    def head_sha(self) -> str: ...

    @property
    def head_committed_at(self) -> datetime | None: ...

    @property
    def reviews(self) -> Sequence[Mapping[str, Any]]: ...

    @property
    def review_comments(self) -> Sequence[Mapping[str, Any]]: ...

    @property
    def issue_comments(self) -> Sequence[Mapping[str, Any]]: ...


Reading = TypeVar("Reading", bound=Conversation)


class Report(enum.Enum):
    """Where one bot stands on the head commit."""

    REPORTED = "reported"
    SKIPPED = "skipped"
    PENDING = "pending"


class Waited(msgspec.Struct, Generic[Reading], frozen=True):
    """The last reading, each named bot's report on it, and how long the wait took."""

    snapshot: Reading
    reports: Mapping[str, Report]
    waited: float = 0.0

    @property
    def missing(self) -> tuple[str, ...]:
        """The bots that had neither reported nor skipped when the wait ended."""
        return tuple(bot for bot, report in self.reports.items() if report is Report.PENDING)


def bot_name(
    login: str, user_type: str = "Bot", body: str = "", logins: Mapping[str, str] | None = None
) -> str:
    """The bot the readers would name the author `login` ("" for people and ourselves)."""
    attribution = Attribution(logins=logins or {})
    return resolve(login, user_type, body, attribution, PARSERS, BY_NAME).bot


def parse_bot_list(text: str, logins: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """``a, b,c`` as bot names in order, without blanks or repeats."""
    names = (bot_name(part, logins=logins) for part in text.split(",") if part.strip())
    return tuple(dict.fromkeys(name for name in names if name))


def bot_reports(
    snapshot: Conversation, bots: Iterable[str], logins: Mapping[str, str] | None = None
) -> dict[str, Report]:
    """Each of `bots` (bot names) as reported, skipped or pending on `snapshot`."""
    wanted = dict.fromkeys(bots, Report.PENDING)
    latest: dict[str, tuple[str, str]] = {}
    for moment, bot, body, counts, spoken in _activity(snapshot, set(wanted), logins or {}):
        if counts and notice(body) != UNDER_WAY_NOTICE:
            skipped = spoken and _skips(body) and wanted[bot] is not Report.REPORTED
            wanted[bot] = Report.SKIPPED if skipped else Report.REPORTED
        if spoken and moment >= latest.get(bot, ("", ""))[0]:
            latest[bot] = (moment, body)
    for bot, (_, body) in latest.items():
        # A bot that said it will not review this pull request is not waited for.
        if wanted[bot] is Report.PENDING and _skips(body):
            wanted[bot] = Report.SKIPPED
    return wanted


def _skips(body: str) -> bool:
    text = body.casefold()
    return notice(body) in SKIP_NOTICES or any(words in text for words in SKIP_WORDS)


def _activity(
    snapshot: Conversation, named: set[str], logins: Mapping[str, str]
) -> Iterable[Activity]:
    """What each named bot said; inline comments hold findings, so they are never notices."""
    head = snapshot.head_sha
    for item in snapshot.reviews:
        if item.get("state") != "PENDING":
            on_head = item.get("commit_id") == head
            yield from _by(named, logins, item, "submitted_at", (on_head, True))
    for item in snapshot.review_comments:
        on_head = head in (item.get("commit_id"), item.get("original_commit_id"))
        yield from _by(named, logins, item, "updated_at", (on_head, False))
    for item in snapshot.issue_comments:
        after = _after(item, snapshot.head_committed_at)
        yield from _by(named, logins, item, "updated_at", (after, True))


def _by(
    named: set[str],
    logins: Mapping[str, str],
    item: Mapping[str, Any],
    time_field: str,
    flags: tuple[bool, bool],
) -> Iterable[Activity]:
    user = item.get("user")
    if not isinstance(user, dict) or not isinstance(user.get("login"), str):
        return
    kind = user.get("type")
    text = item.get("body")
    body = text if isinstance(text, str) else ""
    bot = bot_name(user["login"], kind if isinstance(kind, str) else "", body, logins)
    if bot in named:
        moment = item.get(time_field) or item.get("created_at") or ""
        yield str(moment), bot, body, *flags


def _after(item: Mapping[str, Any], committed: datetime | None) -> bool:
    """Whether a conversation comment was written or last edited after the head commit."""
    if committed is None:
        return False
    for field in ("created_at", "updated_at"):
        moment = parse_timestamp(item.get(field))
        if moment is not None and moment > committed:
            return True
    return False


def not_installed(
    bots: Iterable[str],
    authors: Iterable[tuple[str, str]],
    logins: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """The `bots` that none of `authors` ((login, user type) pairs) is: never heard from."""
    heard = {bot_name(login, kind, "", logins) for login, kind in authors}
    return tuple(bot for bot in bots if bot not in heard)


def wait_for_bots(
    read: Callable[[], Reading],
    bots: Sequence[str],
    *,
    absent: Collection[str] = (),
    logins: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = DEFAULT_INTERVAL,
    clock: Callable[[], float],
    sleep: Callable[[float], None],
    progress: Callable[[Sequence[str], float], None] = lambda pending, waited: None,
) -> Waited[Reading]:
    """Read until every bot in `bots` reported or skipped, or `timeout` seconds passed.

    The `absent` bots (not installed, by `not_installed`) are reported on but not waited for.
    """
    started = clock()
    while True:
        snapshot = read()
        reports = bot_reports(snapshot, bots, logins)
        waited = clock() - started
        result = Waited(snapshot, reports, waited)
        pending = [bot for bot in result.missing if bot not in absent]
        left = timeout - waited
        if not pending or left <= 0:
            return result
        progress(pending, waited)
        sleep(min(interval, left))
