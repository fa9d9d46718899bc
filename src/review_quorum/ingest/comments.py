"""Pull-request comments, already parsed from JSON, read into findings: the pure entry point.

`read_comments` takes comment records as the GitHub REST API returns them (dicts from
``pulls/N/comments``, ``pulls/N/reviews`` or ``issues/N/comments``), each optionally with
its kind, and returns a `Batch`. It touches no file and no network: the file reader
(`github_comments`) and ``quorum review --github`` both call it. Each record's author
decides its reader (`bots.authors.resolve`); replies in review threads and our own
comments are never findings. Every finding keeps the comment it came from
(`CommentSource`), its body, suggestion and further locations. After all records are read,
a finding taken from a review or issue body is dropped as a duplicate when an inline
comment of the same bot has the same file and title, and ``#diff-<sha256>`` anchors
(Qodo, CodeAnt) are resolved against the paths the comments mention. Several comment files
of one pull request (`github_comments.read_together`) are one reading: the same
duplicates and anchors are found whether the files are given apart or merged first.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from review_quorum.comment_kinds import CommentKind
from review_quorum.digests import sha256
from review_quorum.errors import FindingError, Skipped, shown
from review_quorum.ingest.base import Batch, ReadOptions
from review_quorum.ingest.bots import BY_NAME, PARSERS, Comment, ParsedFinding
from review_quorum.ingest.bots.authors import HUMAN, Attribution, resolve
from review_quorum.ingest.paths import PathResolver
from review_quorum.model import CommentSource, Evidence, NormalizedFinding

REPLY = "reply in a review thread, not a new finding"

_LINE_FIELDS = ("line", "start_line", "original_line", "original_start_line")


class PullComment(msgspec.Struct, frozen=True):
    """One comment record, the REST collection it came from (None: judged by its fields),
    where it sits for Skipped records (a JSON pointer; by default ``/<index>``), and the
    input it was read from when several are read as one (by default the reading's name)."""

    record: object
    kind: CommentKind | None = None
    where: str = ""
    input: str = ""


def read_comments(
    comments: Iterable[PullComment], *, name: str = "github", options: ReadOptions | None = None
) -> Batch:
    """Every finding in `comments`; `name` names the input in Skipped records."""
    reading = _Reading(name, options or ReadOptions())
    for index, comment in enumerate(comments):
        where = comment.where or f"/{index}"
        reading.record(where, comment.record, comment.kind, comment.input or name)
    return reading.finish()


class _Read(msgspec.Struct, frozen=True):
    """One finding as read, with what the post-pass needs to dedupe and resolve it."""

    order: int
    input: str
    where: str
    bot: str
    finding_id: str
    draft: ParsedFinding
    source: CommentSource | None


class _Reading:
    """The state of reading one input: findings so far, skips, and the paths seen.

    Skips are kept with the number of the record they belong to, so that the duplicates
    found at the end are reported in input order with the rest.
    """

    def __init__(self, name: str, options: ReadOptions) -> None:
        self.name = name
        self.attribution = Attribution(
            options.bot, options.bot_logins, options.include_humans, options.own_login
        )
        self.reads: list[_Read] = []
        self.skipped: list[tuple[int, Skipped]] = []
        self.paths: set[str] = set()
        self.resolver = PathResolver(options.root)
        self.order = 0

    def skip(
        self,
        where: str,
        reason: str,
        order: int | None = None,
        *,
        not_a_finding: bool = True,
        name: str | None = None,
    ) -> None:
        skipped = Skipped(name or self.name, where, reason, not_a_finding)
        self.skipped.append((self.order if order is None else order, skipped))

    def record(self, where: str, record: object, kind: CommentKind | None, name: str) -> None:
        self.order += 1
        comment = _comment(record, kind)
        if isinstance(comment, str):  # a reply or a person's comment is by design no finding
            self.skip(where, comment, not_a_finding=comment in (REPLY, HUMAN), name=name)
            return
        if comment.path:
            self.paths.add(comment.path)
        assert isinstance(record, dict)  # _comment checked it
        author = resolve(
            comment.login, _user_type(record), comment.body, self.attribution, PARSERS, BY_NAME
        )
        if author.parser is None:
            self.skip(where, author.reason, name=name)
            return
        parsed = author.parser.parse(comment)
        for reason in parsed.skipped:
            self.skip(f"{where}/body", reason, name=name)
        base = _base_id(record, comment, where)
        source = _source(record, comment)
        many = len(parsed.findings) > 1
        keys: set[str] = set()
        for number, draft in enumerate(parsed.findings, start=1):
            key = draft.key or (str(number) if many else "")
            key = key if key not in keys else f"{key}-{number}"  # two lists numbered from 1
            keys.add(key)
            finding_id = f"{base}#{key}" if key else base
            read = _Read(self.order, name, where, author.bot, finding_id, draft, source)
            self.reads.append(read)

    def finish(self) -> Batch:
        anchors = {sha256(path.encode()).hexdigest(): path for path in self.paths}
        inline = {_identity(read): read for read in self.reads if not read.draft.from_summary}
        batch = Batch()
        for read in self.reads:
            repeated = inline.get(_identity(read)) if read.draft.from_summary else None
            if repeated is not None:
                at = repeated.where
                if repeated.input != read.input:  # read together from several files
                    at = f"{repeated.input}:{at}"
                reason = f"same finding as the inline comment at {at}"
                self.skip(read.where, reason, read.order, name=read.input)
                continue
            try:
                batch.findings.append(self._finding(read, anchors))
            except FindingError as err:
                self.skip(read.where, str(err), read.order, not_a_finding=False, name=read.input)
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
            rule_id=draft.rule_id,
            body=draft.body,
            category_certainty=draft.category_certainty,
            suggestion=draft.suggestion,
            source=read.source,
            related=tuple(
                Evidence(self.resolver.path(path), line, end_line=end)
                for path, line, end in draft.related
                if path
            ),
        )


def _identity(read: _Read) -> tuple[str, str, str]:
    return read.bot, read.draft.file, read.draft.title.casefold()


def _base_id(record: dict[str, object], comment: Comment, where: str) -> str:
    identifier = record.get("id")
    if isinstance(identifier, int | str) and not isinstance(identifier, bool) and identifier != "":
        return f"{comment.kind.value}:{identifier}"
    return f"{comment.kind.value}:{where}"


def _source(record: dict[str, object], comment: Comment) -> CommentSource | None:
    """The comment a finding came from, when the record has a numeric REST id."""
    identifier = record.get("id")
    if isinstance(identifier, bool) or not isinstance(identifier, int):
        return None
    node_id, html_url = record.get("node_id"), record.get("html_url")
    return CommentSource(
        kind=comment.kind.source_kind,
        rest_id=identifier,
        node_id=node_id if isinstance(node_id, str) else "",
        html_url=html_url if isinstance(html_url, str) else "",
        author=comment.login,
    )


def _user_type(record: dict[str, object]) -> str:
    user = record.get("user")
    kind = user.get("type") if isinstance(user, dict) else None
    return kind if isinstance(kind, str) else ""


def _comment(record: object, kind: CommentKind | None) -> Comment | str:
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
    for name in ("body", "path"):
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            return f"field {name!r} must be a string, not {_type_name(value)}"
    for name in _LINE_FIELDS:
        value = record.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            return f"field {name!r} must be a positive integer or null, not {shown(value)}"
    current = record.get("line") is not None
    return Comment(
        kind=kind or _kind(record),
        login=user["login"],
        body=record.get("body") or "",
        path=record.get("path") or "",
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
