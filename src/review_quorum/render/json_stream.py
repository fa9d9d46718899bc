"""JSON documents written a chunk at a time, byte for byte as if dumped whole.

A million findings make a JSON document of several hundred megabytes. Dumping it whole
means a dict for every finding and member alive at once, one giant output buffer and a
copy of it as text; the chunks here hold the dicts of `CHUNK` findings at a time and go
straight to the output as bytes. Their concatenation equals `orjson.dumps(document,
option=OPT_INDENT_2)` of the document with the same keys in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import islice
from typing import Any, TypeVar

import orjson

from review_quorum.errors import Skipped
from review_quorum.model import ConsensusFinding
from review_quorum.render.serialize import consensus_data, skipped_data

CHUNK = 100
Item = TypeVar("Item")


def consensus_document(
    consensus: Sequence[ConsensusFinding],
    bots_ran: int,
    skipped: Sequence[Skipped],
    *,
    chunk: int = CHUNK,
) -> Iterator[bytes | memoryview]:
    """`quorum consensus --format json`: bots_ran, findings, skipped, and a final newline."""
    shares: dict[int, list[dict[str, Any]]] = {}  # by the identity of the tuples rendered
    return document(
        [
            ("bots_ran", bots_ran),
            ("findings", Stream(consensus, partial(consensus_data, shares=shares))),
            ("skipped", Stream(skipped, skipped_data)),
        ],
        chunk=chunk,
    )


class Stream:
    """An array member of a document: its items and how each becomes plain data."""

    __slots__ = ("convert", "items")

    def __init__(self, items: Iterable[Item], convert: Callable[[Item], Any]) -> None:
        self.items: Iterable[Any] = items
        self.convert: Callable[[Any], Any] = convert


def document(
    members: Sequence[tuple[str, object]], *, chunk: int = CHUNK
) -> Iterator[bytes | memoryview]:
    """An indented JSON object whose `Stream` members are written in chunks.

    Each piece is dumped inside a one-member object, so that orjson indents it at its
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
            text = orjson.dumps({key: value}, option=orjson.OPT_INDENT_2)
            yield memoryview(text)[2:-2]  # '  "key": value' without '{\n' and '\n}'
        opening = b",\n"
    yield b"\n}\n"


def _array(key: str, stream: Stream, size: int) -> Iterator[bytes | memoryview]:
    """'  "key": [', the items indented by four, '  ]'; or '  "key": []' if empty."""
    items = iter(stream.items)
    head = b"  " + orjson.dumps(key) + b": ["
    separator = head + b"\n"
    while batch := list(map(stream.convert, islice(items, size))):
        text = orjson.dumps({key: batch}, option=orjson.OPT_INDENT_2)
        yield separator
        yield memoryview(text)[len(head) + 3 : -6]  # the items, without '\n  ]\n}'
        separator = b",\n"
    yield head + b"]" if separator != b",\n" else b"\n  ]"
