"""JSON documents written a chunk at a time, byte for byte as if dumped whole.

A million findings make a JSON document of several hundred megabytes. Encoding it whole
means every finding's Struct alive at once, one giant output buffer and a copy of it
indented; the chunks here hold the Structs of `CHUNK` findings at a time and go straight
to the output as bytes. Their concatenation equals `orjson.dumps(document,
option=OPT_INDENT_2)` of the same document: msgspec encodes the Structs
(`review_quorum.report`) and `msgspec.json.format` indents them as orjson does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import islice
from typing import Any, TypeVar

import msgspec

from review_quorum.errors import Skipped
from review_quorum.model import ConsensusFinding
from review_quorum.render.serialize import Shares, consensus_entry, skipped_entry

CHUNK = 100
Item = TypeVar("Item")
_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format


def consensus_document(
    consensus: Sequence[ConsensusFinding],
    bots_ran: int,
    skipped: Sequence[Skipped],
    *,
    chunk: int = CHUNK,
) -> Iterator[bytes | memoryview]:
    """`quorum consensus --format json` (`report.ConsensusReport`): bots_ran, findings,
    skipped, and a final newline."""
    shares: Shares = {}  # by the identity of the tuples written
    return document(
        [
            ("bots_ran", bots_ran),
            ("findings", Stream(consensus, partial(consensus_entry, shares=shares))),
            ("skipped", Stream(skipped, skipped_entry)),
        ],
        chunk=chunk,
    )


class Stream:
    """An array member of a document: its items and how each becomes a Struct (or data)."""

    __slots__ = ("convert", "items")

    def __init__(self, items: Iterable[Item], convert: Callable[[Item], Any]) -> None:
        self.items: Iterable[Any] = items
        self.convert: Callable[[Any], Any] = convert


def indented(key: str, value: object) -> bytes:
    """`{key: value}` encoded and indented by two, as orjson's OPT_INDENT_2 writes it."""
    return _format(_encode({key: value}), indent=2)


def indented_document(value: object) -> bytes:
    """A whole document encoded, indented by two, and a final newline."""
    return _format(_encode(value), indent=2) + b"\n"


def document(
    members: Sequence[tuple[str, object]], *, chunk: int = CHUNK
) -> Iterator[bytes | memoryview]:
    """An indented JSON object whose `Stream` members are written in chunks.

    Each piece is encoded inside a one-member object, so that it is indented at its
    depth in the document, and handed on as a view without that object's braces.
    """
    if not members:
        yield b"{}\n"
        return
    opening = b"{\n"
    for key, value in members:
        yield opening
        if isinstance(value, Stream):
            yield from _array(key, value, chunk)
        else:
            yield memoryview(indented(key, value))[2:-2]  # '  "key": value' alone
        opening = b",\n"
    yield b"\n}\n"


def _array(key: str, stream: Stream, size: int) -> Iterator[bytes | memoryview]:
    """'  "key": [', the items indented by four, '  ]'; or '  "key": []' if empty."""
    items = iter(stream.items)
    head = b"  " + _encode(key) + b": ["
    separator = head + b"\n"
    while batch := list(map(stream.convert, islice(items, size))):
        text = indented(key, batch)
        yield separator
        yield memoryview(text)[len(head) + 3 : -6]  # the items, without '\n  ]\n}'
        separator = b",\n"
    yield head + b"]" if separator != b",\n" else b"\n  ]"
