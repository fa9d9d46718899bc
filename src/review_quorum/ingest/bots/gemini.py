"""Gemini Code Assist (`gemini-code-assist[bot]`): priority badges on inline comments.

An inline finding's first line holds badge images whose alt text is the priority
(``![high](.../high-priority.svg)``; critical's image is ``critical.svg``). Security
findings put a ``security-<priority>`` badge first: the severity comes from the badge
without the prefix, and the prefix makes the category security; otherwise the category is
a keyword guess with its certainty (Gemini has no category markup). The
title is a ``###`` heading when there is one, else the first sentence (in any language).
Review bodies ("## Code Review") and the summary comment are not findings; a comment with
no badge is a thread reply.
"""

from __future__ import annotations

import re

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    comment_span,
    skip,
)
from review_quorum.ingest.bots.keywords import Guess, guess_finding
from review_quorum.ingest.bots.text import (
    body_text,
    layout,
    lines_of,
    paragraphs,
    plain,
    short_title,
    suggestion,
    title_from,
)
from review_quorum.model import Severity

PRIORITIES = {
    "critical": Severity.CRITICAL,
    "high": Severity.HIGH,
    "medium": Severity.MEDIUM,
    "low": Severity.LOW,
}
SECURITY_PREFIX = "security-"

_BADGE = re.compile(r"!\[([A-Za-z-]{1,30})\]\([^()\s]{0,500}\)")


class GeminiParser:
    name = "gemini"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is CommentKind.INLINE:
            return _inline(comment)
        if "## Summary of Changes" in comment.body:
            return skip("Gemini pull request summary, not a finding")
        if "## Code Review" in comment.body:
            return skip("Gemini review summary, not a finding (its inline comments are read)")
        return skip("Gemini comment with no finding layout")


def _inline(comment: Comment) -> Parsed:
    lines = lines_of(comment.body)
    first = next((index for index, line in enumerate(lines) if line.strip()), 0)
    badges = [alt.lower() for alt in _BADGE.findall(lines[first][:4000])]
    severity = _severity(badges)
    if severity is None:
        return skip("Gemini comment without a priority badge (a reply, not a finding)")
    rest = _BADGE.sub("", lines[first]).strip()
    shape = layout([rest, *lines[first + 1 :]])
    title = _title(shape.prose)
    if not title:
        return skip("Gemini finding with no text")
    line, end_line = comment_span(comment)
    body = body_text(shape.prose, title)
    security = any(badge.startswith(SECURITY_PREFIX) for badge in badges)
    words = Guess("security", 1.0) if security else guess_finding(title, body)
    return Parsed(
        findings=(
            ParsedFinding(
                severity=severity,
                category=words.category,
                title=title,
                file=comment.path,
                line=line,
                end_line=end_line,
                body=body,
                suggestion=suggestion(shape.fences),
                category_certainty=words.certainty,
            ),
        )
    )


def _severity(badges: list[str]) -> Severity | None:
    """The priority badge's severity; a lone ``security-<priority>`` badge counts too."""
    for badge in badges:
        if badge in PRIORITIES:
            return PRIORITIES[badge]
    for badge in badges:
        level = PRIORITIES.get(badge.removeprefix(SECURITY_PREFIX))
        if level is not None:
            return level
    return None


def _title(prose: tuple[str, ...]) -> str:
    for line in prose:
        stripped = line.strip()
        if stripped.startswith("#"):
            return short_title(plain(stripped.lstrip("#")))
        if stripped:
            break
    return next((title for text in paragraphs(prose) if (title := title_from(text))), "")


PARSER = GeminiParser()
