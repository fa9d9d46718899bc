"""What every bot-comment parser shares: the comment it reads, the drafts it returns, its protocol.

A parser sees one GitHub comment (already validated by the reader) and returns `Parsed`:
zero or more `ParsedFinding` findings and zero or more reasons why parts of the body are not
findings. Parsers never raise on odd text; they never see JSON, files or the network.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from review_quorum.comment_kinds import CommentKind as CommentKind  # for the parsers
from review_quorum.model import Severity


class Comment(msgspec.Struct, frozen=True):
    """One comment as the reader validated it; `line`/`start_line` already fall back to the
    `original_*` fields on outdated diffs."""

    kind: CommentKind
    login: str
    body: str
    path: str = ""
    line: int | None = None
    start_line: int | None = None


Place = tuple[str, int | None, int | None]
"""A location a finding names besides its own: (path, line, end line)."""


class ParsedFinding(msgspec.Struct, frozen=True):
    """A finding as a parser read it, before the reader names the bot and the id.

    `from_summary` marks findings read from a review or issue body rather than posted
    inline, so the reader can drop the ones an inline comment in the same input repeats.
    `diff_anchor` is a ``#diff-<sha256 of the path>`` hash the reader resolves to a path
    when `file` is empty. `key` tells several findings of one body apart in their ids.
    `body` is the finding's text beside the title (plain text), `suggestion` the code the
    bot proposes, `category_certainty` 1.0 when the bot states the category and less when
    it was guessed from words (`keywords.guess`), `related` further locations it names.
    """

    severity: Severity
    category: str
    title: str
    file: str = ""
    line: int | None = None
    end_line: int | None = None
    snippet: str = ""
    confidence: float = 1.0
    from_summary: bool = False
    diff_anchor: str = ""
    key: str = ""
    body: str = ""
    suggestion: str = ""
    category_certainty: float = 1.0
    related: tuple[Place, ...] = ()
    rule_id: str = ""


class Parsed(msgspec.Struct, frozen=True):
    """What one comment yielded: findings, and reasons for what was not a finding."""

    findings: tuple[ParsedFinding, ...] = ()
    skipped: tuple[str, ...] = ()


def skip(reason: str) -> Parsed:
    return Parsed(skipped=(reason,))


class BotParser(Protocol):
    """One review bot's comment markup. `name` is the bot name findings carry."""

    name: str

    def parse(self, comment: Comment) -> Parsed:
        """The findings in `comment`; what is not a finding comes back as a reason."""
        ...


def comment_span(comment: Comment) -> tuple[int | None, int | None]:
    """The (line, end_line) a review comment covers: ``start_line..line`` or just ``line``."""
    start, end = comment.start_line, comment.line
    if start is not None and end is not None and start < end:
        return start, end
    return comment.line, None


def stated_span(comment: Comment, place: Place | None) -> tuple[int | None, int | None]:
    """The comment's lines, or the range its body states for the same file (`place`).

    The stated range wins when the comment has no line (outdated, or a body finding), or
    when it has a single line that the range covers (the API gives only the end of a
    multi-line comment when ``start_line`` is lost). A range elsewhere is not this
    comment's: a moved comment keeps the API's current line.
    """
    line, end_line = comment_span(comment)
    if place is None or end_line is not None:
        return line, end_line
    path, start, end = place
    if comment.path and not _same_file(path, comment.path):
        return line, end_line
    if line is None:
        return start, end
    if start is not None and start <= line <= (end or start):
        return start, end
    return line, end_line


def _same_file(first: str, second: str) -> bool:
    """Whether two spellings name one file: equal, or one a path suffix of the other
    (``src/a.py`` and ``/repo/src/a.py``; ``tools/edit.ts`` for ``pkg/src/tools/edit.ts``)."""
    first, second = first.removeprefix("./"), second.removeprefix("./")
    shorter, longer = sorted((first, second), key=len)
    return bool(shorter) and (longer == shorter or longer.endswith("/" + shorter))
