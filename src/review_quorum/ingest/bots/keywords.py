"""A keyword guess of the shared category for prose that carries no category markup.

Free-text reviewer lines, Copilot comments, Qodo focus areas and human comments say what
is wrong only in words. Consensus merges findings only within one category, so a guess
beats always answering "other": whole words (and a few stems and two-word phrases) vote
for a category, the most votes win, ties go to the earlier category in `_ORDER`, and text
with no vote is "other". Matching is on word boundaries, so "highlight" is not "high"
and "deadlocked" is a concurrency stem while "unlocked" is nothing.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z][a-z0-9+]*")
_SCAN_LIMIT = 4000

_ORDER = (
    "security",
    "concurrency",
    "resource_leak",
    "data_integrity",
    "error_handling",
    "logic_error",
    "performance",
    "testing",
    "documentation",
    "maintainability",
)
# Categories a bot's own label gives when it only means "a bug" or nothing at all; the
# words of the comment may then name something sharper (CodeRabbit's "Potential issue",
# Sourcery's bug_risk), which is what the same finding from another tool is filed under.
_GENERIC = frozenset({"logic_error", "other"})
_SHARPER = frozenset(
    {"security", "concurrency", "resource_leak", "data_integrity", "error_handling"}
)

_WORDS: dict[str, str] = {
    word: category
    for category, words in {
        "security": "security vulnerability vulnerable injection xss csrf ssrf cwe cve secret "
        "secrets credential credentials password passwords authentication authorization "
        "unauthorized unauthenticated traversal rce exploit attacker malicious privilege "
        "permissions permission encryption tls certificate unsafe untrusted shell md5 sha1 "
        "hardcoded",
        "concurrency": "race mutex goroutine goroutines threadsafe atomic atomically "
        "synchronization synchronized",
        "resource_leak": "leak leaks leaked leaking unclosed",
        "data_integrity": "corruption corrupt corrupted integrity transaction transactions "
        "inconsistent inconsistency idempotent idempotency",
        "error_handling": "exception exceptions unhandled swallowed swallows swallow panic "
        "panics crash crashes retry retries",
        "performance": "performance slow slower latency quadratic inefficient allocation "
        "allocations optimization optimize",
        "testing": "test tests testing coverage assertion assertions mock mocks fixture flaky",
        "documentation": "docstring documentation typo typos readme grammar spelling docs "
        "jsdoc comment comments",
        "logic_error": "bug incorrect incorrectly wrong logic null undefined nil regression "
        "mismatch broken inverted backwards skips",
        "maintainability": "refactor readability naming rename unused redundant duplicated "
        "duplication simplify simplified complexity cleanup lint style",
    }.items()
    for word in words.split()
}

_PHRASES = {
    "race condition": "concurrency",
    "data race": "concurrency",
    "thread safe": "concurrency",
    "memory leak": "resource_leak",
    "resource leak": "resource_leak",
    "not closed": "resource_leak",
    "never closed": "resource_leak",
    "being closed": "resource_leak",
    "without closing": "resource_leak",
    "never used": "maintainability",
    "hard coded": "security",
    "file handle": "resource_leak",
    "data loss": "data_integrity",
    "lost update": "data_integrity",
    "error handling": "error_handling",
    "code execution": "security",
    "command injection": "security",
    "dead code": "maintainability",
    "magic number": "maintainability",
    "off by": "logic_error",
}

_STEMS = (
    ("vulnerab", "security"),
    ("sanitiz", "security"),
    ("concurren", "concurrency"),
    ("deadlock", "concurrency"),
    ("inefficien", "performance"),
    ("idempoten", "data_integrity"),
)


def guess_category(text: str) -> str:
    """The category the words of `text` point to most, or "other"."""
    votes: dict[str, int] = {}
    words = _WORD.findall(text[:_SCAN_LIMIT].lower())
    previous = ""
    for word in words:
        for category in _categories(word, f"{previous} {word}"):
            votes[category] = votes.get(category, 0) + 1
        previous = word
    if not votes:
        return "other"
    best = max(votes.values())
    return next(category for category in _ORDER if votes.get(category) == best)


def refine_category(category: str, text: str) -> str:
    """A bot's own category, unless it is generic and the words name a sharper one."""
    if category not in _GENERIC:
        return category
    guess = guess_category(text)
    if category == "other" or guess in _SHARPER:
        return guess if guess != "other" else category
    return category


def _categories(word: str, pair: str) -> list[str]:
    found = []
    if word in _WORDS:
        found.append(_WORDS[word])
    if pair in _PHRASES:
        found.append(_PHRASES[pair])
    found.extend(category for stem, category in _STEMS if word.startswith(stem))
    return found
