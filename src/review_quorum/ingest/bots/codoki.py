"""Codoki (`codoki-pr-intelligence[bot]`): ``<emoji> **<Severity>**: <text>`` under a marker.

An inline finding opens with ``<!-- CODOKI_INLINE -->`` (the marker that tells Codoki's
comments apart), then ``🔷 **Medium**: <text>`` / ``⚠️ **High**: ...`` (also with the
``:warning:`` shortcode): the bold word is the severity and the text has no title markup,
so its first sentence is the title; an optional ```suggestion follows. Codoki states no
category (a keyword guess). Comments without the marker are read like any bot's.
"""

from __future__ import annotations

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, comment_span, skip

MARKER = "<!-- CODOKI_INLINE -->"


class CodokiParser:
    name = "codoki"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is not CommentKind.INLINE:
            return generic.read_body(comment, self.name)
        if MARKER not in comment.body[:200]:
            return generic.read_inline(comment, self.name)
        line, end_line = comment_span(comment)
        draft = generic.prose_draft(comment.body, comment.path, line, end_line)
        return Parsed(findings=(draft,)) if draft else skip("Codoki comment with no text")


PARSER = CodokiParser()
