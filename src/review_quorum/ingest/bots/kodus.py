"""Kodus (Kody): shields badges for kind, category and severity, proposed code, then prose.

Kodus posts through a person's own account (the pull request author's token), so its
comments carry a human login; the reader sends them here only when the configuration
names that login for Kodus (`authors`), and this parser still reads only comments that
carry Kodus's signature (``<!-- kody-codereview -->`` or the ``kody code-review`` badge):
the person's own comments on the same account are skipped. Line 1 holds three badges:
``![kody code-review](...)``, the category (``![Bug](.../badge/Bug-...)``, ``Security``,
...) and the severity (``.../badge/severity_level-high-...``: critical, high, medium,
low). A code fence follows (always tagged ``python``): the code Kodus proposes, kept as the
suggestion. Then the prose (its first sentence is the title), optional execution traces,
and the "Talk to Kody" footer.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, Parsed, comment_span, skip
from review_quorum.ingest.bots.keywords import Guess, guess, refine
from review_quorum.ingest.bots.labels import level
from review_quorum.ingest.bots.text import SNIPPET_LIMIT, layout, lines_of
from review_quorum.model import Severity

SIGNATURES = ("<!-- kody-codereview -->", "![kody code-review]")
CATEGORIES = {
    "bug": "logic_error",
    "potential issues": "logic_error",
    "security": "security",
    "performance": "performance",
    "performance and optimization": "performance",
    "error handling": "error_handling",
    "code style": "maintainability",
    "maintainability": "maintainability",
    "refactoring": "maintainability",
    "documentation": "documentation",
    "documentation and comments": "documentation",
    "tests": "testing",
}

_BADGE = re.compile(r"!\[([^\[\]\n]{1,60})\]\(https://img\.shields\.io/badge/([^()\s]{1,200})\)")
_FOOTER = ("<sub>Talk to Kody", "<sub>Was this suggestion helpful", "&#8203;")


class KodusParser:
    name = "kodus"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if not any(signature in body for signature in SIGNATURES):
            return skip("comment without the Kodus signature (by the account's owner)")
        lines = lines_of(body)
        badges = _BADGE.findall(lines[0][:2000]) if lines else []
        rest = [line for line in lines[1 if badges else 0 :] if not line.startswith(_FOOTER)]
        line, end_line = comment_span(comment)
        draft = generic.prose_draft("\n".join(rest), comment.path, line, end_line)
        if draft is None:
            return skip("Kodus comment with no text")
        fences = layout(rest).fences
        category = _category(badges, f"{draft.title}\n{draft.body}")
        severity = next((found for found in map(_severity, badges) if found is not None), None)
        found = msgspec.structs.replace(
            draft,
            severity=draft.severity if severity is None else severity,
            category=category.category,
            category_certainty=category.certainty,
            suggestion=fences[0].body[:SNIPPET_LIMIT] if fences else draft.suggestion,
        )
        return Parsed(findings=(found,))


def _category(badges: list[tuple[str, str]], text: str) -> Guess:
    """The category badge (the one that is neither Kody's own nor a severity)."""
    for alt, target in badges:
        if alt.startswith("kody") or target.startswith("severity_level"):
            continue
        mapped = CATEGORIES.get(alt.strip().lower())
        return refine(mapped, text) if mapped else guess(text)
    return guess(text)


def _severity(badge: tuple[str, str]) -> Severity | None:
    _, target = badge
    if not target.startswith("severity_level-"):
        return None
    return level(target.removeprefix("severity_level-").split("-")[0])


PARSER = KodusParser()
