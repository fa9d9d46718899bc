"""What every input reader shares: the `Source` it reads, the `Batch` it returns, its protocol.

A reader turns the bytes of one input file into `NormalizedFinding`s plus `Skipped`
records. It raises `InputError` only when the file as a whole cannot be read (broken JSON,
wrong top-level shape); one bad record is a `Skipped` with a JSON pointer or line number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

import orjson

from review_quorum.errors import InputError, Skipped
from review_quorum.ingest.categories import CategoryMap
from review_quorum.model import NormalizedFinding

_UNPARSED = object()


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """Settings a user gives for reading: the bot a file is attributed to, the repo root,
    category overrides (`categories.build_category_map`), whether GitHub comments by
    people are read as findings too (by default they are skipped), and which bot each
    GitHub login is (`bot_logins`, from the configuration's ``bot-logins`` table)."""

    bot: str | None = None
    root: str | None = None
    categories: CategoryMap | None = None
    include_humans: bool = False
    bot_logins: Mapping[str, str] = field(default_factory=dict)


class Source:
    """One input: a name for messages, its bytes, and its JSON document parsed at most once."""

    __slots__ = ("_document", "data", "name", "options")

    def __init__(self, name: str, data: bytes, options: ReadOptions | None = None) -> None:
        self.name = name
        self.data = data
        self.options = options or ReadOptions()
        self._document: object = _UNPARSED

    def head(self, size: int = 4096) -> str:
        """The start of the input as text, for content sniffing."""
        return self.data[:size].decode("utf-8", "replace").lstrip("\ufeff \t\r\n")

    def json(self) -> object:
        """The whole input parsed as JSON; `InputError` with line and column if it is not."""
        if self._document is _UNPARSED:
            # orjson refuses a UTF-8 byte order mark, which Windows tools often write
            data = self.data[3:] if self.data.startswith(b"\xef\xbb\xbf") else self.data
            try:
                self._document = orjson.loads(data)
            except orjson.JSONDecodeError as err:
                self._document = InputError(
                    self.name, f"line {err.lineno} column {err.colno}", f"invalid JSON: {err.msg}"
                )
        if isinstance(self._document, InputError):
            raise self._document  # parsed once: every reader asking again gets the same error
        return self._document

    def parsed(self) -> object | None:
        """The document if another reader already parsed it (and it was JSON), else None."""
        document = self._document
        return None if document is _UNPARSED or isinstance(document, InputError) else document

    def json_or_none(self) -> object | None:
        """The parsed document, or None when the input is not one JSON value."""
        if not self.head(8).startswith(("{", "[")):
            return None
        try:
            return self.json()
        except InputError:
            return None


@dataclass(slots=True)
class Batch:
    """What reading produced: findings in input order, and the records that were skipped."""

    findings: list[NormalizedFinding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def extend(self, other: Batch) -> None:
        self.findings.extend(other.findings)
        self.skipped.extend(other.skipped)

    @classmethod
    def merge(cls, batches: Iterable[Batch]) -> Batch:
        merged = cls()
        for batch in batches:
            merged.extend(batch)
        return merged


class Reader(Protocol):
    """One input format. `name` is the `--format` choice that selects it."""

    name: str

    def detect(self, source: Source) -> bool:
        """Whether the content (never the file name) is in this format."""
        ...

    def read(self, source: Source) -> Batch:
        """Every finding in `source`; bad records become `Skipped`, broken files raise."""
        ...


def pointer(*parts: object) -> str:
    """A JSON pointer (RFC 6901) to a value inside a document."""
    escaped = (str(part).replace("~", "~0").replace("/", "~1") for part in parts)
    return "/" + "/".join(escaped)
