"""A keyword guess of the shared category, with how sure it is, for prose without category markup.

Free-text reviewer lines, Copilot and Greptile comments, Qodo focus areas, unknown bots
and human comments say what is wrong only in words. Consensus used to merge findings only
within one category, so a guess beats always answering "other"; the reliability model
treats a guess as a hint, weighted by its certainty. Whole words (and a few stems and
two-word phrases) vote for a category: a strong phrase ("SQL injection", "race condition",
"memory leak") counts two votes, a word one. The most votes win, ties go to the earlier
category in `_ORDER`, and text with no vote is "other" with certainty 0.

Certainty (a number in [0, 1), never 1.0: only a tool's own label is certain):
`STRONG` (0.8) when the winner has a strong phrase and leads by at least two votes,
`FAIR` (0.6) when it leads by at least two votes from words alone, `WEAK` (0.3) for a lead
of one vote or a tie. Matching is on word boundaries, so "highlight" is not "high" and
"deadlocked" is a concurrency stem while "unlocked" is nothing. "Hard-coded" alone is no
security word: a hard-coded index is a maintainability nit; a hard-coded password or API
key is security through the words "password" and "api key".
"""

from __future__ import annotations

import re

import msgspec

STRONG = 0.8
FAIR = 0.6
WEAK = 0.3
NONE = 0.0

_WORD = re.compile(r"[a-z][a-z0-9_+]*")  # snake_case names are one word: no votes
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
        "permissions permission encryption tls certificate unsafe untrusted md5 sha1 mitm",
        "concurrency": "race mutex goroutine goroutines threadsafe atomic atomically "
        "synchronization synchronized",
        "resource_leak": "leak leaks leaked leaking unclosed",
        "data_integrity": "corruption corrupt corrupted corrupting integrity transaction "
        "transactions inconsistent inconsistency idempotent idempotency",
        "error_handling": "exception exceptions unhandled swallowed swallows swallow panic "
        "panics crash crashes retry retries",
        "performance": "performance slow slower latency quadratic inefficient allocation "
        "allocations optimization optimize",
        "testing": "test tests testing coverage assertion assertions mock mocks fixture flaky",
        "documentation": "docstring documentation typo typos readme grammar spelling docs jsdoc",
        "logic_error": "bug incorrect incorrectly wrong logic null undefined nil regression "
        "mismatch broken inverted backwards skips",
        "maintainability": "refactor readability naming rename unused redundant duplicated "
        "duplication simplify simplified complexity cleanup lint style hardcoded",
    }.items()
    for word in words.split()
}

_SECRETS = (
    "password",
    "passwords",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "key",
    "token",
)
# Two-word phrases: strong evidence, two votes each ("hard-coded password" is two words).
_PHRASES = {
    "sql injection": "security",
    "command injection": "security",
    "code execution": "security",
    "cross site": "security",
    "api key": "security",
    "private key": "security",
    "secret key": "security",
    "access token": "security",
    "race condition": "concurrency",
    "data race": "concurrency",
    "thread safe": "concurrency",
    "memory leak": "resource_leak",
    "resource leak": "resource_leak",
    "not closed": "resource_leak",
    "never closed": "resource_leak",
    "being closed": "resource_leak",
    "without closing": "resource_leak",
    "file handle": "resource_leak",
    "data loss": "data_integrity",
    "lost update": "data_integrity",
    "error handling": "error_handling",
    "null pointer": "logic_error",
    "off by": "logic_error",
    "never used": "maintainability",
    "dead code": "maintainability",
    "magic number": "maintainability",
    "hard coded": "maintainability",
    "code comment": "documentation",
    "doc comment": "documentation",
    "shell injection": "security",
    **{f"{hard} {secret}": "security" for hard in ("hardcoded", "coded") for secret in _SECRETS},
}

_STEMS = (
    ("vulnerab", "security"),
    ("sanitiz", "security"),
    ("concurren", "concurrency"),
    ("deadlock", "concurrency"),
    ("inefficien", "performance"),
    ("idempoten", "data_integrity"),
)


class Guess(msgspec.Struct, frozen=True):
    """A category and how sure the words make it (1.0 only for a tool's own label)."""

    category: str
    certainty: float


def guess(text: str) -> Guess:
    """The category the words of `text` point to most, with its certainty."""
    votes: dict[str, int] = {}
    strong: set[str] = set()
    previous = ""
    for word in _WORD.findall(text[:_SCAN_LIMIT].lower()):
        for category in _word_votes(word):
            votes[category] = votes.get(category, 0) + 1
        if previous in _PHRASE_STARTS:
            phrase = _PHRASES.get(f"{previous} {word}")
            if phrase is not None:
                votes[phrase] = votes.get(phrase, 0) + 2
                strong.add(phrase)
        previous = word
    if not votes:
        return Guess("other", NONE)
    ranked = sorted(votes.values(), reverse=True)
    best = ranked[0]
    winner = next(category for category in _ORDER if votes.get(category) == best)
    lead = best - (ranked[1] if len(ranked) > 1 else 0)
    if lead >= 2:
        return Guess(winner, STRONG if winner in strong else FAIR)
    return Guess(winner, WEAK)


def guess_category(text: str) -> str:
    """The category the words of `text` point to most, or "other"."""
    return guess(text).category


def refine(category: str, text: str) -> Guess:
    """A bot's own category, unless it is generic and the words name a sharper one.

    A bot's "other" becomes whatever the words say (with their certainty); its generic
    "a bug" (logic_error) only yields to a sharper category the words point to with at
    least `FAIR` certainty (one stray word such as "credentials" does not move it).
    """
    if category not in _GENERIC:
        return Guess(category, 1.0)
    words = guess(text)
    if category == "other":
        return words if words.category != "other" else Guess(category, NONE)
    if words.category in _SHARPER and words.certainty >= FAIR:
        return words
    return Guess(category, 1.0)


def refine_category(category: str, text: str) -> str:
    """`refine` without the certainty."""
    return refine(category, text).category


def _word_votes(word: str) -> tuple[str, ...]:
    """The categories one word votes for (a vote each): as a whole word, and by its stems.

    Words repeat across a review, so each is looked up once (up to `_KNOWN_WORDS` words).
    """
    found = _VOTES_BY_WORD.get(word)
    if found is None:
        whole = (_WORDS[word],) if word in _WORDS else ()
        found = whole + tuple(category for stem, category in _STEMS if word.startswith(stem))
        if len(_VOTES_BY_WORD) >= _KNOWN_WORDS:
            _VOTES_BY_WORD.clear()
        _VOTES_BY_WORD[word] = found
    return found


_VOTES_BY_WORD: dict[str, tuple[str, ...]] = {}
_KNOWN_WORDS = 100_000
_PHRASE_STARTS = frozenset(phrase.split(" ", 1)[0] for phrase in _PHRASES)


def guess_finding(title: str, body: str) -> Guess:
    """`guess` over a finding's title and body, counting the title once when the body
    repeats it (a title taken from the body's first sentence)."""
    return guess(body if title in body else f"{title}\n{body}")
