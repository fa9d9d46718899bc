"""JSON documents written a chunk at a time, byte for byte as if dumped whole.

A million findings make a JSON document of several hundred megabytes. Encoding it whole
means every finding's Struct alive at once, one giant output buffer and a copy of it
indented; the chunks here hold the Structs of at most `CHUNK` findings and about
`MEMBERS` members at a time and go straight to the output as bytes. A finding with more
members than that (a cluster of thousands of near-identical reports) is written alone:
its fields, then its members and their contributions `MEMBERS` at a time. The chunks'
concatenation equals `orjson.dumps(document, option=OPT_INDENT_2)` of the same
document: msgspec encodes the Structs (`review_quorum.report`) and `msgspec.json.format`
indents them as orjson does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import islice
from operator import attrgetter
from typing import Any, TypeVar

import msgspec

from review_quorum.errors import Skipped
from review_quorum.model import ConsensusFinding, NormalizedFinding
from review_quorum.render.serialize import (
    Shares,
    consensus_entry,
    consensus_head,
    contributions_entry,
    member_entry,
    skipped_entry,
)
from review_quorum.report import ReportMember

CHUNK = 100
MEMBERS = 5_000
Item = TypeVar("Item")
_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format


class Part:
    """An array field of an item that can be long (a cluster's members): its name, its
    values as the item holds them, and how a run of them becomes Structs."""

    __slots__ = ("convert", "key", "name", "values")

    def __init__(
        self,
        name: str,
        values: Callable[[Any], Sequence[Any]],
        convert: Callable[[Any], Sequence[Any]],
    ) -> None:
        self.name = name
        self.key = b"\n      " + _encode(name) + b": ["  # as written in an item of an array
        self.values = values
        self.convert = convert


class Split:
    """How an item with many members is written in pieces: its Struct with every part
    empty (`head`), then each `Part`'s values a run at a time. The first part's length
    is the item's count of members."""

    __slots__ = ("head", "parts")

    def __init__(self, head: Callable[[Any], Any], parts: tuple[Part, ...]) -> None:
        self.head = head
        self.parts = parts


def _member_entries(members: Sequence[NormalizedFinding]) -> list[ReportMember]:
    return list(map(member_entry, members))


CLUSTER = Split(
    consensus_head,
    (
        Part("members", attrgetter("members"), _member_entries),
        Part("contributions", attrgetter("contributions"), contributions_entry),
    ),
)
"""A consensus finding (`report.ConsensusEntry`): its members and their contributions."""


class Stream:
    """An array member of a document: its items, how each becomes a Struct (or data), and
    how an item with many members is written in pieces (`Split`) if items have members."""

    __slots__ = ("convert", "items", "split")

    def __init__(
        self, items: Iterable[Item], convert: Callable[[Item], Any], split: Split | None = None
    ) -> None:
        self.items: Iterable[Any] = items
        self.convert: Callable[[Any], Any] = convert
        self.split = split


def consensus_document(
    consensus: Sequence[ConsensusFinding],
    bots_ran: int,
    skipped: Sequence[Skipped],
    *,
    chunk: int = CHUNK,
    most: int = MEMBERS,
) -> Iterator[bytes | memoryview]:
    """`quorum consensus --format json` (`report.ConsensusReport`): bots_ran, findings,
    skipped, and a final newline."""
    shares: Shares = {}  # by the identity of the tuples written
    return document(
        [
            ("bots_ran", bots_ran),
            ("findings", Stream(consensus, partial(consensus_entry, shares=shares), CLUSTER)),
            ("skipped", Stream(skipped, skipped_entry)),
        ],
        chunk=chunk,
        most=most,
    )


def indented(key: str, value: object) -> bytes:
    """`{key: value}` encoded and indented by two, as orjson's OPT_INDENT_2 writes it."""
    return _format(_encode({key: value}), indent=2)


def indented_document(value: object) -> bytes:
    """A whole document encoded, indented by two, and a final newline."""
    return _format(_encode(value), indent=2) + b"\n"


def document(
    members: Sequence[tuple[str, object]], *, chunk: int = CHUNK, most: int = MEMBERS
) -> Iterator[bytes | memoryview]:
    """An indented JSON object whose `Stream` members are written in chunks of at most
    `chunk` items and (where items have members) `most` members.

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
            yield from _array(key, value, chunk, most)
        else:
            yield memoryview(indented(key, value))[2:-2]  # '  "key": value' alone
        opening = b",\n"
    yield b"\n}\n"


def _array(key: str, stream: Stream, size: int, most: int) -> Iterator[bytes | memoryview]:
    """'  "key": [', the items indented by four, '  ]'; or '  "key": []' if empty."""
    head = b"  " + _encode(key) + b": ["
    separator = head + b"\n"
    for batch, split in _batches(stream, size, most):
        yield separator
        if split is not None:
            yield from _in_pieces(key, batch[0], split, most)
        else:
            text = indented(key, list(map(stream.convert, batch)))
            yield memoryview(text)[len(head) + 3 : -6]  # the items, without '\n  ]\n}'
        separator = b",\n"
    yield head + b"]" if separator != b",\n" else b"\n  ]"


def _batches(stream: Stream, size: int, most: int) -> Iterator[tuple[list[Any], Split | None]]:
    """The items in runs of at most `size` items and `most` members, and each item with
    more members than `most` alone, with the `Split` that writes it in pieces."""
    items = iter(stream.items)
    split = stream.split
    if split is None:
        while batch := list(islice(items, size)):
            yield batch, None
        return
    count = split.parts[0].values
    while batch := list(islice(items, size)):
        if sum(map(len, map(count, batch))) <= most:
            yield batch, None
            continue
        run: list[Any] = []
        weight = 0
        for item in batch:
            members = len(count(item))
            if run and weight + members > most:  # also when this item goes alone
                yield run, None
                run, weight = [], 0
            if members > most:
                yield [item], split
            else:
                run.append(item)
                weight += members
        if run:
            yield run, None


def _in_pieces(key: str, item: Any, split: Split, most: int) -> Iterator[bytes | memoryview]:
    """One item of an array, indented by four, its parts written `most` values at a time:
    its head's text up to each part's '[', the part's values, and from its ']' on."""
    text = indented(key, [split.head(item)])
    opening = len(b"{\n  ") + len(_encode(key)) + len(b": [")  # '{\n  "key": ['
    start = opening + 1  # and its newline
    for part in split.parts:
        values = part.values(item)
        at = text.find(part.key + b"]", start)
        if at < 0 or not values:  # not written (the agreement model's contributions), or []
            continue
        at += len(part.key)
        yield memoryview(text)[start:at]
        wrapper = opening + len(b"\n    {") + len(part.key)  # '{\n  "key": [\n    {\n ... ['
        for offset in range(0, len(values), most):
            if offset:
                yield b","
            written = indented(key, [{part.name: part.convert(values[offset : offset + most])}])
            yield memoryview(written)[wrapper:_PIECE_END]
        yield _CLOSING
        start = at
    yield memoryview(text)[start:-6]  # the rest of the item, without '\n  ]\n}'


_CLOSING = b"\n      "  # before a part's ']', in an item of an array
_PIECE_END = -len(b"\n      ]\n    }\n  ]\n}")
