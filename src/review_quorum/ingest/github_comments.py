"""GitHub pull-request comments as the REST API returns them, read from a file.

Input is the JSON array of ``pulls/{n}/comments`` (inline review comments),
``pulls/{n}/reviews`` (review bodies) or ``issues/{n}/comments`` (conversation comments),
alone or mixed; also as ``gh api --paginate`` writes pages (arrays back to back) or
``--slurp`` collects them (an array of arrays; pointers are then ``/<page>/<index>``).
This module finds the records; `comments.read_comments` reads them (who wrote each,
which bot reader, duplicates, diff anchors), the same function ``quorum review --github``
calls on comments fetched from the API.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Sequence

from review_quorum.errors import InputError
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.bots.authors import HUMAN
from review_quorum.ingest.comments import REPLY, PullComment, read_comments
from review_quorum.ingest.duplicates import EACH, Shape, check, held

__all__ = ["HUMAN", "READER", "REPLY", "GitHubCommentsReader"]


@functools.cache
def _whitespace() -> re.Pattern[str]:
    """What may stand between two pages (compiled for the first file of several)."""
    return re.compile(r"[ \t\r\n\ufeff]*")


# Repeated keys refused in each comment: who wrote it (``user``, its ``login`` and
# ``type``), what it says (``body``, where the findings are) and where (``path``, ``line``).
CHECKED = ("user", "body", "path", "line")
CHECKED_USER = ("login", "type")
_COMMENTS = Shape(
    (EACH,), (EACH, "user"), (EACH, EACH), (EACH, EACH, "user"), keys=CHECKED + CHECKED_USER
)


class GitHubCommentsReader:
    name = "github-comments"

    def detect(self, source: Source) -> bool:
        items = source.first_items()
        if items is None:  # a truncated download, or not an array at all
            head = source.head()
            after = head[1:].lstrip(" \t\r\n[")
            return head.startswith("[") and after.startswith("{") and _names_fields(head)
        return bool(items) and _looks_like_comment(items)

    def read(self, source: Source) -> Batch:
        comments = (PullComment(record, where=where) for where, record in _records(source))
        return read_comments(comments, name=source.name, options=source.options)


def read_together(sources: Sequence[Source]) -> Batch:
    """The comment files of one pull request read as one input (as `jq -s add` would merge
    them), each Skipped record naming its own file: a summary's copy of an inline finding
    is found, and a ``#diff-`` anchor resolved, across the files."""
    comments = (
        PullComment(record, where=where, input=source.name)
        for source in sources
        for where, record in _records(source)
    )
    return read_comments(comments, name=sources[0].name, options=sources[0].options)


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
        _check_repeats(source, pages, concatenated=True)
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
        _check_repeats(source, document)
        return [((number,), page) for number, page in enumerate(document)]
    _check_repeats(source, [document])
    return [((), document)]


def _check_repeats(source: Source, pages: Sequence[object], *, concatenated: bool = False) -> None:
    records = [record for page in pages if isinstance(page, list) for record in page]
    most = held(records, CHECKED)
    users = (record.get("user") for record in records if isinstance(record, dict))
    most.update(held(users, CHECKED_USER))
    check(source.name, source.data, _COMMENTS, most, pages=concatenated)


def _concatenated(data: bytes) -> list[list[object]] | None:
    """The pages of ``gh api --paginate`` output (``[...][...]``), or None if it is not that."""
    try:
        text = data.decode("utf-8")
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
    match = _whitespace().match(text, position)
    return match.end() if match else position


READER = GitHubCommentsReader()
