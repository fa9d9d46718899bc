"""What every input reader shares: the `Source` it reads, the `Batch` it returns, its protocol.

A reader turns the bytes of one input file into `NormalizedFinding`s plus `Skipped`
records. It raises `InputError` only when the file as a whole cannot be read (broken JSON,
wrong top-level shape); one bad record is a `Skipped` with a JSON pointer or line number.

Every reader sees UTF-8 without a byte-order mark: a `Source` strips a UTF-8 byte-order
mark and re-encodes UTF-16 that starts with one (what PowerShell's ``>`` writes), and
refuses UTF-32 and byte-order-mark-less UTF-16 with an error that names them.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable, Mapping
from typing import Protocol

import msgspec
import orjson

from review_quorum.errors import InputError, Skipped
from review_quorum.ingest.categories import CategoryMap
from review_quorum.model import NormalizedFinding

_UNPARSED = object()
# What delimits JSON values: a whole string (escapes included), or a bracket or comma.
_JSON_DELIMITER = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|([\[\]{},])')
_SPACE = re.compile(rb"[ \t\r\n]*")


class ReadOptions(msgspec.Struct, frozen=True):
    """Settings a user gives for reading: the bot a file is attributed to, the repo root,
    category overrides (`categories.build_category_map`), whether GitHub comments by
    people are read as findings too (by default they are skipped), which bot each
    GitHub login is (`bot_logins`, from the configuration's ``bot-logins`` table), and
    the login review-quorum posts as (`own_login`, ``--bot-login``; the workflow token's
    ``github-actions[bot]`` is always ours), whose marked comments are never findings."""

    bot: str | None = None
    root: str | None = None
    categories: CategoryMap | None = None
    include_humans: bool = False
    bot_logins: Mapping[str, str] = msgspec.field(default_factory=dict)
    own_login: str | None = None


def signed(options: ReadOptions, accounts: Mapping[str, str]) -> ReadOptions:
    """`options` knowing `accounts` too (the accounts a conversation's signatures name as
    bots, on platforms where bots post through shared tokens); configured logins win."""
    return msgspec.structs.replace(options, bot_logins={**accounts, **options.bot_logins})


class Source:
    """One input: a name for messages, its bytes as UTF-8, and its JSON document parsed at
    most once. `encoding` says what the bytes were written in ("UTF-8", "UTF-8 with BOM",
    "UTF-16 LE", "UTF-16 BE"); other encodings raise `InputError` naming them."""

    __slots__ = ("_document", "_first", "data", "encoding", "name", "options")

    def __init__(self, name: str, data: bytes, options: ReadOptions | None = None) -> None:
        self.name = name
        self.data, self.encoding = as_utf8(name, data)
        self.options = options or ReadOptions()
        self._document: object = _UNPARSED
        self._first: list[object] | None | object = _UNPARSED

    def release(self) -> None:
        """Drop the input's bytes and parsed document once its findings are read, so that
        reading many big files keeps their findings, not every file read before. The SARIF
        fast path calls it as soon as the document is decoded: a `Source` is read once."""
        self.data = b""
        self._document = _UNPARSED
        self._first = _UNPARSED

    def text(self) -> str:
        """The whole input as text; `InputError` with line and column where it is not UTF-8."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise not_utf8(self.name, self.data, err) from None

    def blank(self) -> bool:
        """Whether the input holds nothing but whitespace (checked without copying it)."""
        return _skip_space(self.data, 0) == len(self.data)

    def head(self, size: int = 4096) -> str:
        """The start of the input as text, for content sniffing."""
        return self.data[:size].decode("utf-8", "replace").lstrip(" \t\r\n")

    def json(self) -> object:
        """The whole input parsed as JSON; `InputError` with line and column if it is not."""
        if self._document is _UNPARSED:
            try:
                self._document = orjson.loads(self.data)
            except orjson.JSONDecodeError as err:
                self._document = self._invalid_json(err)
        if isinstance(self._document, InputError):
            raise self._document  # parsed once: every reader asking again gets the same error
        return self._document

    def _invalid_json(self, err: orjson.JSONDecodeError) -> InputError:
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError as bad_text:
            return not_utf8(self.name, self.data, bad_text)
        return InputError(
            self.name, f"line {err.lineno} column {err.colno}", f"invalid JSON: {err.msg}"
        )

    def parsed(self) -> object | None:
        """The document if another reader already parsed it (and it was JSON), else None."""
        document = self._document
        return None if document is _UNPARSED or isinstance(document, InputError) else document

    def first_items(self) -> list[object] | None:
        """The first element of a top-level JSON array, alone in a list ([] for an empty
        array), parsed without the rest of the document, so detecting the format of a
        million-record array costs one record; None when the input does not start with an
        array whose first element is complete JSON."""
        if self._first is _UNPARSED:
            document = self.parsed()
            if isinstance(document, list):
                self._first = document[:1]
            else:
                self._first = first_element(self.data)
        return self._first  # type: ignore[return-value]

    def json_or_none(self) -> object | None:
        """The parsed document, or None when the input is not one JSON value."""
        if not self.head(8).startswith(("{", "[")):
            return None
        try:
            return self.json()
        except InputError:
            return None


class Batch(msgspec.Struct):
    """What reading produced: findings in input order, and the records that were skipped."""

    findings: list[NormalizedFinding] = msgspec.field(default_factory=list)
    skipped: list[Skipped] = msgspec.field(default_factory=list)

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


def first_element(data: bytes) -> list[object] | None:
    """The first element of the JSON array `data` starts with, see `Source.first_items`."""
    opening = _skip_space(data, 0)
    if data[opening : opening + 1] != b"[":
        return None
    start = _skip_space(data, opening + 1)
    if data[start : start + 1] == b"]":
        return []
    depth = 0
    for delimiter in _JSON_DELIMITER.finditer(data, start):
        token = delimiter.group(1)  # None for a string, which is never copied
        if token is None:
            continue
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
        if depth < 0 or (depth == 0 and token == b","):
            try:
                return [orjson.loads(data[start : delimiter.start()])]
            except orjson.JSONDecodeError:
                return None
    return None


def _skip_space(data: bytes, at: int) -> int:
    space = _SPACE.match(data, at)
    return space.end() if space else at


def pointer(*parts: object) -> str:
    """A JSON pointer (RFC 6901) to a value inside a document."""
    escaped = (str(part).replace("~", "~0").replace("/", "~1") for part in parts)
    return "/" + "/".join(escaped)


_READS = "quorum reads UTF-8 (with or without a byte-order mark) and UTF-16 with one"
_UTF16 = {codecs.BOM_UTF16_LE: "UTF-16 LE", codecs.BOM_UTF16_BE: "UTF-16 BE"}
_NUL_SCAN = 4096


def path_text(path: str | os.PathLike[str]) -> str:
    """`str(pathlib.Path(path))`: the path as pathlib spells it (no empty or ``.`` parts,
    no trailing slash), which is how messages name a file. A path already spelt so (the
    usual one) is returned as it is, without importing pathlib: pathlib, with the
    urllib.parse and ipaddress it imports, costs a small review 4% of its start-up."""
    text = os.fspath(path)
    if (
        os.name == "posix"
        and text
        and "//" not in text
        and "/./" not in text
        and not text.startswith("./")
        and not text.endswith(("/", "/."))
    ):
        return text
    from pathlib import Path

    return str(Path(text))


def as_utf8(name: str, data: bytes) -> tuple[bytes, str]:
    """`data` as UTF-8 without a byte-order mark, and the encoding it was written in."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        message = f"the file is UTF-32 (it starts with a UTF-32 byte-order mark); {_READS}"
        raise InputError(name, "line 1 column 1", message)
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :], "UTF-8 with BOM"
    encoding = _UTF16.get(data[:2])
    if encoding is not None:
        return _from_utf16(name, data[2:], encoding), encoding
    head = data[:_NUL_SCAN]
    if head.count(b"\x00") * 4 >= len(head) > 0:  # a stray NUL is left to the reader
        raise InputError(name, _position(data, data.find(b"\x00")), _nul_reason(head))
    return data, "UTF-8"


def _from_utf16(name: str, data: bytes, encoding: str) -> bytes:
    try:
        text = data.decode(encoding.replace(" ", "-").lower())
    except UnicodeDecodeError as err:
        # the position is counted in characters decoded before the fault, plus the mark
        before = data[: err.start].decode(encoding.replace(" ", "-").lower(), "replace")
        where = _position(before.encode(), len(before.encode()))
        raise InputError(name, where, f"invalid {encoding}: {err.reason}") from None
    return text.encode("utf-8")


def _nul_reason(head: bytes) -> str:
    nuls = head.count(b"\x00")
    if nuls * 4 >= len(head) * 3 - 4:
        guess = "UTF-32 without a byte-order mark"
    elif nuls * 3 >= len(head):
        odd = head[1::2].count(b"\x00") >= head[::2].count(b"\x00")
        guess = f"UTF-16 {'LE' if odd else 'BE'} without a byte-order mark"
    else:
        guess = "binary, or UTF-16 or UTF-32 without a byte-order mark"
    return f"the file has NUL bytes: it looks like {guess}; {_READS}"


def not_utf8(name: str, data: bytes, err: UnicodeDecodeError) -> InputError:
    """The error for bytes that are not UTF-8, at the line and column of the first fault."""
    byte = data[err.start]
    message = (
        f"not UTF-8 (byte 0x{byte:02x}: {err.reason}); {_READS}: convert a Latin-1 or "
        "Windows-1252 file to UTF-8 first"
    )
    return InputError(name, _position(data, err.start), message)


def _position(data: bytes, offset: int) -> str:
    """ "line L column C" of a byte offset, the column counted in characters."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    line = data.count(b"\n", 0, offset) + 1
    return f"line {line} column {column}"
