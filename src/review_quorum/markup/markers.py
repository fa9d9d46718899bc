"""The hidden HTML-comment markers review-quorum puts in what it posts.

A marker lets a re-run find its own earlier sticky summary and inline comments. Markers are
only ever written by these functions; untrusted text is escaped (`markup.escape`) so that
bot output can never contain a well-formed marker. Finding a marker is not proof of
authorship: anyone can quote one. Every body quorum posts opens with a marker
(`opens_with_marker`), and a comment is quorum's own only when its author is quorum's
login as well; a marker anywhere else is inert text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

PREFIX = "review-quorum"
SUMMARY = "summary"
REVIEW = "review"
FINDING = "finding"
BY = "by"  # the bots that reported an inline comment's finding (`bots_payload`)
CODE = "code"  # the text of the line an inline comment's finding flags, hashed


@cache
def _marker() -> re.Pattern[str]:
    """A marker on a line of its own (compiled on first use, as is each pattern here: a
    review that reads no comment of ours and posts nothing needs none)."""
    return re.compile(r"^<!-- review-quorum:([a-z]+)(?: ([A-Za-z0-9_.:-]+))? -->$", re.MULTILINE)


@cache
def _payload() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9_.:-]+")


def marker(kind: str, payload: str = "") -> str:
    """The marker line for `kind` (and an optional id such as a fingerprint)."""
    if payload and not _payload().fullmatch(payload):
        raise ValueError(f"marker payload must be [A-Za-z0-9_.:-]+, not {payload!r}")
    return f"<!-- {PREFIX}:{kind} {payload} -->" if payload else f"<!-- {PREFIX}:{kind} -->"


@cache
def _name_out() -> re.Pattern[str]:
    return re.compile(r"[^A-Za-z0-9_-]")


def bot_key(name: str) -> str:
    """A bot's name as a `BY` marker holds it: characters outside [A-Za-z0-9_-] become _."""
    return _name_out().sub("_", name)


def bots_payload(names: Iterable[str]) -> str:
    """The `BY` marker's payload: the bots' keys (`bot_key`), sorted, joined by ':'."""
    return ":".join(sorted({bot_key(name) for name in names if name}))


def marked_bots(body: str) -> frozenset[str] | None:
    """The bots a body's `BY` marker names, or None when it has none (an older comment)."""
    payload = next((payload for kind, payload in find_markers(body) if kind == BY), None)
    return None if payload is None else frozenset(filter(None, payload.split(":")))


def marked_code(body: str) -> str | None:
    """The flagged line's hash a body's `CODE` marker holds, or None when it has none (a
    comment written without the code at hand, or by an earlier version)."""
    return next((payload for kind, payload in find_markers(body) if kind == CODE), None) or None


def find_markers(body: str) -> list[tuple[str, str]]:
    """Every (kind, payload) marker standing on a line of its own in `body`."""
    return [(match.group(1), match.group(2) or "") for match in _marker().finditer(body)]


def opens_with_marker(body: str, kind: str | None = None) -> bool:
    """Whether the first line of `body` is one of our markers (of `kind`, when given)."""
    match = _marker().fullmatch(body.split("\n", 1)[0].removesuffix("\r"))
    return match is not None and (kind is None or match.group(1) == kind)
