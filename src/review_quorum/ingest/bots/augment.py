"""Augment (`augmentcode[bot]`): a location, prose, and a stated ``**Severity: X**`` line.

An inline finding opens with its own location in a code span, `` `path:line` ``, then the
text (no title markup: its first sentence is the title), ``**Severity: high|medium|low**``,
an optional ``<details open><summary>Other Locations</summary>`` list of `` `path:line` ``
(further locations of the same finding, `related`), and a "Fix This in Augment" link whose
URL-encoded prompt repeats file, line and text. The comment's path and lines win; the
opening location stands in when the comment has none. Augment states no category (a
keyword guess) and no suggestion. Review summaries ("Review completed. N suggestions
posted.") are not findings.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, Place, skip, stated_span
from review_quorum.ingest.bots.labels import level
from review_quorum.ingest.bots.text import lines_of
from review_quorum.ingest.locations import source_location

_OPENING = re.compile(r"\s{0,3}`([^`\n]{1,1024})`\s?")
_SEVERITY = re.compile(r"\*\*Severity:\s?([A-Za-z]{3,13})\*\*")
_OTHER = re.compile(r"^\s{0,3}[-*]\s+`([^`\n]{1,1024})`", re.MULTILINE)
_BOILERPLATE = ("Fix This in Augment", "Was this useful?", "<h2></h2>", "**Severity:")


class AugmentParser:
    name = "augment"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is not CommentKind.INLINE:
            return generic.read_body(comment, self.name)
        body = comment.body
        opening = _OPENING.match(body)
        place = source_location(opening.group(1)) if opening else None
        text = body[opening.end() :] if opening and place else body
        line, end_line = stated_span(comment, place)
        draft = generic.prose_draft(_own_text(text), comment.path, line, end_line)
        if draft is None:
            return skip("Augment comment with no text")
        severity = _SEVERITY.search(body)
        stated = level(severity.group(1)) if severity else None
        return Parsed(
            findings=(
                msgspec.structs.replace(
                    draft,
                    file=comment.path or (place[0] if place else ""),
                    severity=draft.severity if stated is None else stated,
                    related=_others(body),
                ),
            )
        )


def _own_text(text: str) -> str:
    """The finding's text without the Other Locations block, links and footer."""
    cut = text.find("<summary>Other Locations</summary>")
    text = text[: text.rfind("<details", 0, cut)] if cut >= 0 else text
    kept = (line for line in lines_of(text) if not any(mark in line for mark in _BOILERPLATE))
    return "\n".join(kept)


def _others(body: str) -> tuple[Place, ...]:
    start = body.find("<summary>Other Locations</summary>")
    if start < 0:
        return ()
    end = body.find("</details>", start)
    block = body[start : end if end > start else start + 20000]
    places = (source_location(match.group(1)) for match in _OTHER.finditer(block))
    return tuple(place for place in places if place is not None)


PARSER = AugmentParser()
