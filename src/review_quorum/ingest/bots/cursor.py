"""Cursor Bugbot (`cursor[bot]`): a ``###`` title, a severity line, and a hidden locations block.

An inline finding reads ``### <Title>``, then ``**High Severity**`` (early-2026 bodies hide
that line in an HTML comment, ``<!-- **High Severity** -->``), the description between
``<!-- DESCRIPTION START -->`` and ``<!-- DESCRIPTION END -->`` (with an optional
"Verification Test" block), an optional ``<!-- BUGBOT_BUG_ID: <id> -->``, and
``<!-- LOCATIONS START`` with one ``path#La-Lb`` per line: the first is the commented
range, the others are further locations of the same finding (`related`), in this file or
another. Bugbot states no category (a keyword guess) and no suggestion. The Cursor Agent
availability notice and Bugbot's review summaries are not findings.
"""

from __future__ import annotations

import re

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    Place,
    skip,
    stated_span,
)
from review_quorum.ingest.bots.keywords import guess_finding
from review_quorum.ingest.bots.labels import level, severity_or
from review_quorum.ingest.bots.text import body_text, layout, lines_of, plain, short_title
from review_quorum.ingest.locations import line_span
from review_quorum.model import Severity

DEFAULT_SEVERITY = Severity.MEDIUM

_SEVERITY = re.compile(r"\*\*\s?(High|Medium|Low|Critical)\s+Severity\s?\*\*", re.IGNORECASE)
_BUG_ID = re.compile(r"BUGBOT_BUG_ID:\s?([A-Za-z0-9_-]{1,100})")
_PLACE = re.compile(r"([^\s#]{1,1024})#L(\d{1,9})(?:-L(\d{1,9}))?")
_DESCRIPTION = ("<!-- DESCRIPTION START -->", "<!-- DESCRIPTION END -->")
_LOCATIONS = ("<!-- LOCATIONS START", "LOCATIONS END -->")


class CursorParser:
    name = "cursor"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        title = _title(body)
        if comment.kind is not CommentKind.INLINE or not title:
            if "Cursor Agent" in body:
                return skip("Cursor Agent availability notice, not a finding")
            if comment.kind is not CommentKind.INLINE:
                return skip("Cursor Bugbot summary, not a finding (its inline comments are read)")
            return skip("Cursor comment without a ### title (a reply, not a finding)")
        places = _places(body)
        line, end_line = stated_span(comment, places[0] if places else None)
        text = body_text(layout(lines_of(_description(body))).prose)
        words = guess_finding(title, text)
        severity = _SEVERITY.search(body[:4000])
        bug_id = _BUG_ID.search(body)
        draft = ParsedFinding(
            severity=severity_or(DEFAULT_SEVERITY, level(severity.group(1)) if severity else None),
            category=words.category,
            title=title,
            file=comment.path or (places[0][0] if places else ""),
            line=line,
            end_line=end_line,
            key=bug_id.group(1) if bug_id else "",
            body=text,
            category_certainty=words.certainty,
            related=tuple(places[1:]),
        )
        return Parsed(findings=(draft,))


def _title(body: str) -> str:
    for line in lines_of(body[:2000]):
        stripped = line.strip()
        if stripped.startswith("### "):
            return short_title(plain(stripped[4:]))
        if stripped:
            return ""
    return ""


def _description(body: str) -> str:
    start = body.find(_DESCRIPTION[0])
    if start < 0:
        return ""
    end = body.find(_DESCRIPTION[1], start)
    return body[start + len(_DESCRIPTION[0]) : end if end > start else None]


def _places(body: str) -> list[Place]:
    """The ranges of the LOCATIONS block, the commented one first."""
    start = body.find(_LOCATIONS[0])
    if start < 0:
        return []
    end = body.find(_LOCATIONS[1], start)
    block = body[start + len(_LOCATIONS[0]) : end if end > start else start + 20000]
    places = []
    for line in lines_of(block):
        match = _PLACE.fullmatch(line.strip())
        if match is not None:
            places.append((match.group(1), *line_span(match.group(2), match.group(3))))
    return places


PARSER = CursorParser()
