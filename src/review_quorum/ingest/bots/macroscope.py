"""Macroscope (`macroscopeapp[bot]`): ``<circle> **<Severity>** `short/path:line` `` then prose.

An inline finding's first line is a coloured circle, the bold severity (``**Medium**``)
and the location as a code span whose path is shortened (`` `tools/edit.ts:412` `` for
``packages/app/src/tools/edit.ts``): the comment's own path wins, and the body's line
stands in when the comment has none and its path ends with the short one. The prose that
follows has no title markup: its first sentence is the title. Macroscope states no
category (a keyword guess). The per-round "Approvability" verdict comment is not a finding.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, skip, stated_span
from review_quorum.ingest.bots.labels import leading_label
from review_quorum.ingest.bots.text import lines_of
from review_quorum.ingest.locations import source_location

_LOCATION = re.compile(r"`([^`\n]{1,1024})`")


class MacroscopeParser:
    name = "macroscope"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if comment.kind is not CommentKind.INLINE:
            if "Approvability" in body[:200]:
                return skip("Macroscope approvability verdict, not a finding")
            return generic.read_body(comment, self.name)
        lines = lines_of(body)
        first = next((index for index, line in enumerate(lines) if line.strip()), 0)
        severity, rest = leading_label(lines[first].strip()) if lines else (None, "")
        if severity is None:
            return generic.read_inline(comment, self.name)
        location = _LOCATION.match(rest)
        place = source_location(location.group(1)) if location else None
        if place is not None and comment.path and not comment.path.endswith(place[0]):
            place = None  # a short path that is not this comment's file
        line, end_line = stated_span(comment, (comment.path, *place[1:]) if place else None)
        text = "\n".join(lines[first + 1 :])
        draft = generic.prose_draft(
            text, comment.path or (place[0] if place else ""), line, end_line
        )
        if draft is None:
            return skip("Macroscope comment with no text")
        return Parsed(findings=(msgspec.structs.replace(draft, severity=severity),))


PARSER = MacroscopeParser()
