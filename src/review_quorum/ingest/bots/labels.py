"""Severity labels review bots write, mapped onto the shared scale.

Bots say severity in a handful of ways: words (``High``, ``major``, ``nit``), priority
levels (``P0``-``P3``: P0 critical, P1 high, P2 medium, P3 low, as Codex, Greptile and
cubic use them), coloured circles (red high, orange high, yellow medium, blue and green
low), and labelled lines (``**High Severity**``, ``**Severity: high**``,
``severity_level-high`` badges, ``Priority: low``), sometimes inside an HTML comment. The
dedicated readers look in their bot's own spot; `stated_severity` looks for a labelled
line or a priority anywhere near the top of a comment, for bots without a reader.
Every pattern is bounded, so a body of any size is scanned in linear time.
"""

from __future__ import annotations

import re

from review_quorum.model import Severity

SEVERITY_WORDS = {
    "critical": Severity.CRITICAL,
    "crit": Severity.CRITICAL,
    "blocker": Severity.CRITICAL,
    "high": Severity.HIGH,
    "major": Severity.HIGH,
    "medium": Severity.MEDIUM,
    "med": Severity.MEDIUM,
    "moderate": Severity.MEDIUM,
    "low": Severity.LOW,
    "minor": Severity.LOW,
    "nit": Severity.LOW,
    "nitpick": Severity.LOW,
    "trivial": Severity.LOW,
    "info": Severity.INFO,
    "informational": Severity.INFO,
}
PRIORITIES = {
    "p0": Severity.CRITICAL,
    "p1": Severity.HIGH,
    "p2": Severity.MEDIUM,
    "p3": Severity.LOW,
}
CIRCLES = {
    "\U0001f534": Severity.HIGH,  # red
    "\U0001f7e0": Severity.HIGH,  # orange
    "\U0001f7e1": Severity.MEDIUM,  # yellow
    "\U0001f535": Severity.LOW,  # blue
    "\U0001f7e2": Severity.LOW,  # green
}
SCAN_LIMIT = 3000

_WORD = re.compile(r"[A-Za-z]{2,15}")
_LABELLED = re.compile(
    r"\*\*\s?([A-Za-z]{3,13})\s+severity\s?\*\*"
    r"|severity(?:[ _]level)?\s?(?:\*\*)?\s?[:=_-]\s?(?:\*\*)?\s?([A-Za-z]{3,13})"
    r"|priority\s?(?:\*\*)?\s?[:=]\s?(?:\*\*)?\s?([A-Za-z0-9]{2,13})",
    re.IGNORECASE,
)
_PRIORITY = re.compile(
    r"(?:^|\n)[ \t]{0,3}(?:[-*][ \t])?(?:\*\*|\[|\()?([Pp][0-3])(?:\*\*|\]|\))?[ \t]?:"
    r"|alt=[\"']?([Pp][0-3])\b"
    r"|!\[([Pp][0-3])\b"
)


def level(text: str) -> Severity | None:
    """The severity a label names: a priority, else its first word (``Low-Medium`` is low)."""
    stripped = text.strip()
    priority = PRIORITIES.get(stripped[:2].lower())
    if priority is not None and not stripped[2:3].isalnum():
        return priority
    word = _WORD.search(stripped[:40])
    return SEVERITY_WORDS.get(word.group().lower()) if word is not None else None


def circle(text: str) -> Severity | None:
    """The severity of a coloured circle `text` starts with, if any."""
    stripped = text.lstrip()
    return CIRCLES.get(stripped[:1])


def stated_severity(body: str) -> Severity | None:
    """A severity the top of `body` states in a label or a priority, HTML comments included."""
    head = body[:SCAN_LIMIT]
    for match in _LABELLED.finditer(head):
        found = level(next(group for group in match.groups() if group))
        if found is not None:
            return found
    priority = _PRIORITY.search(head)
    if priority is not None:
        return PRIORITIES[next(group for group in priority.groups() if group).lower()]
    return None


_LEAD = re.compile(
    r"[ \t]{0,3}(?:\*\*|__)?(?:\[([A-Za-z]{2,13}|[Pp][0-3])\]|\(([A-Za-z]{2,13}|[Pp][0-3])\)"
    r"|([A-Za-z]{2,13}|[Pp][0-3])(?=\*\*|__|:))(?:\*\*|__)?:?(?:\*\*|__)?(?=\s|$)\s*"
)


_SHORTCODE = re.compile(r":[a-z0-9_+-]{1,30}:[ \t]*")


def leading_label(text: str) -> tuple[Severity | None, str]:
    """A severity tag `text` opens with (``[high]``, ``(P1)``, ``**Medium**:``, ``nit:``,
    after an optional emoji or ``:shortcode:``), and the text after it; else (None, `text`)."""
    start = 0
    while start < len(text) and not text[start].isascii() and not text[start].isalnum():
        start += 1  # a circle or another emoji before the tag
    shortcode = _SHORTCODE.match(text, start)
    if shortcode is not None:
        start = shortcode.end()  # ":warning: **High**: ..."
    match = _LEAD.match(text, start)
    if match is None:
        return None, text
    found = level(next(group for group in match.groups() if group))
    return (found, text[match.end() :]) if found is not None else (None, text)


def first_of(*candidates: Severity | None) -> Severity | None:
    """The first severity that is not None (``or`` would pass over info, which is 0)."""
    return next((candidate for candidate in candidates if candidate is not None), None)


def severity_or(default: Severity, *candidates: Severity | None) -> Severity:
    """The first of `candidates` that is not None, else `default`."""
    found = first_of(*candidates)
    return default if found is None else found
