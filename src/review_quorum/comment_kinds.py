"""The one vocabulary of pull-request comment kinds, in both of its persisted spellings.

A comment sits in one of three REST collections: pull request review comments (inline),
reviews, or issue comments. `CommentKind` names them. Each kind has two spellings that are
persisted, so neither may change: the enum's value is the one in the ids of findings read
from comments (``review-comment:1001``, in history databases, saved plans and JSON
reports), and `CommentKind.source_kind` (`SourceKind`) is the one of `CommentSource.kind`
(``review_comment``, in JSON reports and saved plans, history databases, triage records
and the comment keys of hidden markers already posted on pull requests). Both are written
here and nowhere else.
"""

from __future__ import annotations

import enum
from typing import Literal, get_args

SourceKind = Literal["review_comment", "issue_comment", "review"]
"""A kind as `CommentSource.kind` spells it."""


class CommentKind(enum.Enum):
    """Where on a pull request a comment sits; the value is its spelling in finding ids."""

    INLINE = "review-comment"
    REVIEW = "review"
    ISSUE = "issue-comment"

    @property
    def source_kind(self) -> SourceKind:
        """The kind's spelling in `CommentSource.kind` (``review_comment``)."""
        return _SOURCE_KINDS[self]


_SOURCE_KINDS: dict[CommentKind, SourceKind] = {
    CommentKind.INLINE: "review_comment",
    CommentKind.REVIEW: "review",
    CommentKind.ISSUE: "issue_comment",
}
COMMENT_KINDS: tuple[SourceKind, ...] = get_args(SourceKind)
