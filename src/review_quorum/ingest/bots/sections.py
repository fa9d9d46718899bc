"""Findings written as markdown headings: ``### 1. **[Critical] Title** `src/a.py:61-62` ``.

LLM reviewers that post one long comment (the Claude Code action, bots without a dedicated
reader) write each finding as a heading under a problem section, followed by prose and
code. `sections` splits a body at its headings (fenced code is never a heading); a
`Heading` reads one heading's number, severity tag (``[High]``, ``(Low-Medium)``,
``**Critical**:``, or a leading coloured circle), location (a ``path:line`` code span or
token) and title. `section_draft` turns a heading and its text into a finding: the
location falls back to the first ``path:line`` in the prose, the body is the prose, and a
fence after a fix word is the suggestion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from review_quorum.ingest.bots.base import ParsedFinding, Place
from review_quorum.ingest.bots.keywords import guess_finding
from review_quorum.ingest.bots.labels import circle, first_of, leading_label, level
from review_quorum.ingest.bots.text import (
    body_text,
    fence_end,
    layout,
    plain,
    short_title,
    suggestion,
)
from review_quorum.ingest.locations import source_location
from review_quorum.model import Severity

_HEADING = re.compile(r"[ ]{0,3}(#{1,6})[ \t]+(.*)")
_NUMBER = re.compile(r"(?:\*\*)?\s{0,3}(\d{1,3})[.)](?=\s|\*)\s*")
_TAGGED = re.compile(r"[\[(]([A-Za-z][A-Za-z -]{1,24})[\])]")
_CODE = re.compile(r"`([^`\n]{1,1024})`")
_TOKEN = re.compile(r"[^\s`'\"()\[\]<>,;*]{3,1024}")


class Section(msgspec.Struct):
    """A heading (its ``#`` count and text), the lines under it, and the heading above it."""

    depth: int
    text: str
    parent: str = ""
    lines: list[str] = msgspec.field(default_factory=list)


def sections(lines: Sequence[str]) -> list[Section]:
    """The headed sections of a body, in order; text before the first heading is dropped."""
    found: list[Section] = []
    above: dict[int, str] = {}
    index = 0
    while index < len(lines):
        after_fence = fence_end(lines, index)
        if after_fence is not None:
            if found:
                found[-1].lines.extend(lines[index:after_fence])
            index = after_fence
            continue
        heading = _HEADING.fullmatch(lines[index].rstrip())
        if heading is not None:
            depth = len(heading.group(1))
            parent = next((above[d] for d in range(depth - 1, 0, -1) if d in above), "")
            above = {d: text for d, text in above.items() if d < depth}
            above[depth] = heading.group(2)
            found.append(Section(depth, heading.group(2), parent))
        elif found:
            found[-1].lines.append(lines[index])
        index += 1
    return found


class Heading(msgspec.Struct, frozen=True):
    """What one heading says: its number, severity tag, location and title."""

    number: str
    severity: Severity | None
    place: Place | None
    title: str


def read_heading(text: str) -> Heading:
    number = _NUMBER.match(text)
    rest = text[number.end() :] if number is not None else text
    severity = circle(rest)
    place = None
    for code in _CODE.findall(rest):
        place = place or source_location(code)
    rest = _CODE.sub(lambda match: "" if source_location(match.group(1)) else match.group(0), rest)
    for tag in _TAGGED.finditer(rest):
        tagged = level(tag.group(1))
        if tagged is not None:
            severity = first_of(severity, tagged)
            rest = rest.replace(tag.group(0), " ", 1)
            break
    labelled, remainder = leading_label(plain(rest))
    title = short_title(remainder if labelled is not None else plain(rest))
    return Heading(number.group(1) if number else "", first_of(severity, labelled), place, title)


def section_draft(
    section: Section, heading: Heading, default: Severity, *fix_words: str
) -> ParsedFinding | None:
    """The finding a heading and its text describe, or None when the heading has no title."""
    if not heading.title:
        return None
    shape = layout(section.lines)
    place = heading.place or _first_place(shape.prose)
    text = body_text(shape.prose)
    words = guess_finding(heading.title, text)
    file, line, end_line = place or ("", None, None)
    return ParsedFinding(
        severity=default if heading.severity is None else heading.severity,
        category=words.category,
        title=heading.title,
        file=file,
        line=line,
        end_line=end_line,
        from_summary=True,
        key=heading.number,
        body=text,
        suggestion=suggestion(shape.fences, *fix_words),
        category_certainty=words.certainty,
    )


def _first_place(prose: Sequence[str]) -> Place | None:
    """The first ``path:line`` the prose names (a bare path only if nothing has a line)."""
    bare: Place | None = None
    for line in prose:
        for token in _TOKEN.findall(line[:2000]):
            place = source_location(token)
            if place is not None and place[1] is not None:
                return place
            if place is not None and bare is None and "/" in place[0]:
                bare = place
    return bare
