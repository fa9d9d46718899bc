"""Bot comments for parser tests: our own fixture bodies, wrapped as the reader wraps them."""

from __future__ import annotations

from conftest import FIXTURES
from review_quorum.ingest.bots import BotParser, Comment, CommentKind, Parsed

COMMENTS = FIXTURES / "comments"
INLINE, REVIEW, ISSUE = CommentKind.INLINE, CommentKind.REVIEW, CommentKind.ISSUE


def body(name: str) -> str:
    return (COMMENTS / name).read_text(encoding="utf-8")


def parse(
    parser: BotParser,
    name: str,
    kind: CommentKind = INLINE,
    path: str = "",
    line: int | None = None,
    start_line: int | None = None,
) -> Parsed:
    """What `parser` makes of fixture `name` posted as a `kind` comment at `path`."""
    return parser.parse(Comment(kind, parser.name, body(name), path, line, start_line))


def drafts(parsed: Parsed) -> list[tuple[object, ...]]:
    """(severity, category, certainty, file, line, end line, title) per finding."""
    return [
        (d.severity.label, d.category, d.category_certainty, d.file, d.line, d.end_line, d.title)
        for d in parsed.findings
    ]
