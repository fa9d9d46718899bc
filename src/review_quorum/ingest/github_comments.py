"""GitHub pull-request comments as the REST API returns them, read through the bot parsers.

Input is the JSON array of ``pulls/{n}/comments`` (inline review comments),
``pulls/{n}/reviews`` (review bodies) or ``issues/{n}/comments`` (conversation comments),
alone or mixed; also as ``gh api --paginate`` writes pages (arrays back to back) or
``--slurp`` collects them (an array of arrays; pointers are then ``/<page>/<index>``).
Each record goes to the parser of its author's bot (`bots.PARSERS`, by login). Comments
by humans and unknown bots, and replies in review threads, are Skipped unless
`ReadOptions.include_humans` asks for humans, whose comments are then read as prose
(inline) or as free-text finding lines (bodies). After all records are read, a finding
taken from a review or issue body is dropped as a duplicate when an inline comment of the
same bot in the same input has the same file and title, and Qodo's ``#diff-<sha256>``
anchors are resolved against the paths the input mentions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from review_quorum.errors import FindingError, InputError, Skipped
from review_quorum.ingest import freetext
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.bots import (
    Comment,
    CommentKind,
    Draft,
    Parsed,
    normalise_login,
    parser_for,
)
from review_quorum.ingest.bots.base import comment_span
from review_quorum.ingest.bots.keywords import guess_category
from review_quorum.ingest.bots.text import layout, lines_of, paragraphs, plain, title_from
from review_quorum.ingest.paths import PathResolver
from review_quorum.model import NormalizedFinding, Severity

HUMAN = "comment by a human/unknown author"
REPLY = "reply in a review thread, not a new finding"

_LINE_FIELDS = ("line", "start_line", "original_line", "original_start_line")
_WHITESPACE = re.compile(r"[ \t\r\n\ufeff]*")


class GitHubCommentsReader:
    name = "github-comments"

    def detect(self, source: Source) -> bool:
        document = source.json_or_none()
        if document is None:  # pages back to back, or a truncated download
            head = source.head()
            after = head[1:].lstrip(" \t\r\n[")
            return head.startswith("[") and after.startswith("{") and _names_fields(head)
        return isinstance(document, list) and bool(document) and _looks_like_comment(document)

    def read(self, source: Source) -> Batch:
        reading = _Reading(source)
        for where, record in _records(source):
            reading.record(where, record)
        return reading.finish()


def _names_fields(head: str) -> bool:
    return '"user"' in head and '"body"' in head


def _looks_like_comment(document: list[object]) -> bool:
    first = document[0]
    if isinstance(first, list) and first:
        first = first[0]  # gh api --slurp: an array of pages
    return isinstance(first, dict) and "user" in first and "body" in first


def _records(source: Source) -> Iterator[tuple[str, object]]:
    for prefix, page in _pages(source):
        if not isinstance(page, list):
            yield pointer(*prefix), page  # becomes a Skipped: "record must be an object"
            continue
        for index, record in enumerate(page):
            yield pointer(*prefix, index), record


def _pages(source: Source) -> list[tuple[tuple[int, ...], object]]:
    try:
        document = source.json()
    except InputError:
        pages = _concatenated(source.data)
        if pages is None:
            raise
        return [((number,), page) for number, page in enumerate(pages)]
    if not isinstance(document, list):
        message = document.get("message") if isinstance(document, dict) else None
        hint = f" (GitHub said: {message[:200]})" if isinstance(message, str) else ""
        raise InputError(
            source.name,
            "/",
            "expected a JSON array of GitHub comments (pulls/N/comments, pulls/N/reviews "
            f"or issues/N/comments){hint}",
        )
    if document and isinstance(document[0], list):
        return [((number,), page) for number, page in enumerate(document)]
    return [((), document)]


def _concatenated(data: bytes) -> list[list[object]] | None:
    """The pages of ``gh api --paginate`` output (``[...][...]``), or None if it is not that."""
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    pages: list[list[object]] = []
    position = _skip_whitespace(text, 0)
    while position < len(text):
        try:
            page, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return None
        if not isinstance(page, list):
            return None
        pages.append(page)
        position = _skip_whitespace(text, position)
    return pages if len(pages) > 1 else None


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


@dataclass(frozen=True, slots=True)
class _Read:
    """One finding as read, with what the post-pass needs to dedupe and resolve it."""

    order: int
    where: str
    bot: str
    finding_id: str
    draft: Draft


class _Reading:
    """The state of reading one input: findings so far, skips, and the paths seen.

    Skips are kept with the number of the record they belong to, so that the duplicates
    found at the end are reported in input order with the rest.
    """

    def __init__(self, source: Source) -> None:
        self.source = source
        self.reads: list[_Read] = []
        self.skipped: list[tuple[int, Skipped]] = []
        self.paths: set[str] = set()
        self.resolver = PathResolver(source.options.root)
        self.order = 0

    def skip(self, where: str, reason: str, order: int | None = None) -> None:
        skipped = Skipped(self.source.name, where, reason)
        self.skipped.append((self.order if order is None else order, skipped))

    def record(self, where: str, record: object) -> None:
        self.order += 1
        comment = _comment(record)
        if isinstance(comment, str):
            self.skip(where, comment)
            return
        if comment.path:
            self.paths.add(comment.path)
        parser = parser_for(comment.login)
        if parser is None and not self.source.options.include_humans:
            self.skip(where, HUMAN)
            return
        bot = parser.name if parser is not None else normalise_login(comment.login) or "ghost"
        parsed = parser.parse(comment) if parser is not None else _human(comment)
        for reason in parsed.skipped:
            self.skip(f"{where}/body", reason)
        base = _base_id(record, comment, where)
        many = len(parsed.findings) > 1
        for number, draft in enumerate(parsed.findings, start=1):
            key = draft.key or (str(number) if many else "")
            finding_id = f"{base}#{key}" if key else base
            bot_name = self.source.options.bot or bot
            self.reads.append(_Read(self.order, where, bot_name, finding_id, draft))

    def finish(self) -> Batch:
        anchors = {hashlib.sha256(path.encode()).hexdigest(): path for path in self.paths}
        inline = {_identity(read): read.where for read in self.reads if not read.draft.from_summary}
        batch = Batch()
        for read in self.reads:
            repeated = inline.get(_identity(read)) if read.draft.from_summary else None
            if repeated is not None:
                reason = f"same finding as the inline comment at {repeated}"
                self.skip(read.where, reason, read.order)
                continue
            try:
                batch.findings.append(self._finding(read, anchors))
            except FindingError as err:
                self.skip(read.where, str(err), read.order)
        batch.skipped = [skipped for _, skipped in sorted(self.skipped, key=lambda item: item[0])]
        return batch

    def _finding(self, read: _Read, anchors: dict[str, str]) -> NormalizedFinding:
        draft = read.draft
        file = draft.file or anchors.get(draft.diff_anchor, "")
        return NormalizedFinding.create(
            bot=read.bot,
            finding_id=read.finding_id,
            severity=draft.severity,
            category=draft.category,
            title=draft.title,
            file=self.resolver.path(file) if file else "",
            line=draft.line if file else None,
            end_line=draft.end_line if file else None,
            snippet=draft.snippet,
            confidence=draft.confidence,
        )


def _identity(read: _Read) -> tuple[str, str, str]:
    return read.bot, read.draft.file, read.draft.title.casefold()


def _base_id(record: object, comment: Comment, where: str) -> str:
    identifier = record.get("id") if isinstance(record, dict) else None
    if isinstance(identifier, int | str) and not isinstance(identifier, bool) and identifier != "":
        return f"{comment.kind.value}:{identifier}"
    return f"{comment.kind.value}:{where}"


def _comment(record: object) -> Comment | str:
    """The validated comment in `record`, or the reason it cannot be read."""
    if not isinstance(record, dict):
        return f"record must be an object, not {_type_name(record)}"
    if record.get("in_reply_to_id") is not None:
        return REPLY
    user = record.get("user")
    if user is None:
        return HUMAN  # deleted accounts come back as null
    if not isinstance(user, dict) or not isinstance(user.get("login"), str):
        return "field 'user' must be an object with a 'login' string"
    body = record.get("body")
    if body is not None and not isinstance(body, str):
        return f"field 'body' must be a string, not {_type_name(body)}"
    path = record.get("path")
    if path is not None and not isinstance(path, str):
        return f"field 'path' must be a string, not {_type_name(path)}"
    for name in _LINE_FIELDS:
        value = record.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            return f"field {name!r} must be a positive integer or null, not {value!r}"[:200]
    current = record.get("line") is not None
    return Comment(
        kind=_kind(record),
        login=user["login"],
        body=body or "",
        path=path or "",
        line=record.get("line" if current else "original_line"),
        start_line=record.get("start_line" if current else "original_start_line"),
    )


def _kind(record: dict[str, object]) -> CommentKind:
    if "path" in record or "diff_hunk" in record or "pull_request_review_id" in record:
        return CommentKind.INLINE
    if "state" in record or "submitted_at" in record:
        return CommentKind.REVIEW
    return CommentKind.ISSUE


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _human(comment: Comment) -> Parsed:
    """A human's (or unknown bot's) comment: inline prose is one finding, bodies free text."""
    if comment.kind is not CommentKind.INLINE:
        outcomes = [outcome for _, outcome in freetext.parse_lines(lines_of(comment.body))]
        drafts = tuple(outcome for outcome in outcomes if isinstance(outcome, Draft))
        reasons = tuple(outcome for outcome in outcomes if isinstance(outcome, str))
        if not drafts and not reasons:
            return Parsed(skipped=(f"{HUMAN} with no finding lines",))
        return Parsed(drafts, reasons)
    text = next(paragraphs(layout(lines_of(comment.body)).prose), "")
    title = title_from(text)
    if not title:
        return Parsed(skipped=(f"{HUMAN} with no text",))
    line, end_line = comment_span(comment)
    draft = Draft(
        severity=Severity.MEDIUM,
        category=guess_category(plain(text)),
        title=title,
        file=comment.path,
        line=line,
        end_line=end_line,
    )
    return Parsed(findings=(draft,))


READER = GitHubCommentsReader()
