"""Hypothesis mutations of every structured fixture: only InputError or Skipped, never a crash.

Each reader gets its fixtures broken at the byte level (truncated, non-UTF-8 bytes spliced
in) and at the structure level (a value anywhere replaced by another JSON value of any type,
including huge numbers and nesting, or a key deleted). Whatever happens, reading either
raises `InputError` naming the file and a position, or returns findings plus Skipped
records that name the file, a position and a reason; and when one record is mutated,
every other record's finding still comes through unchanged.
"""

from __future__ import annotations

import collections
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples
from review_quorum.errors import InputError
from review_quorum.ingest import checkstyle, gitlab, native, rdjson, sarif
from review_quorum.ingest.base import Batch, Reader, Source
from review_quorum.model import NormalizedFinding

INGEST = FIXTURES / "ingest"
SETTINGS = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# reader, fixture, and where one record sits in the document (None: line-based format)
JSON_CASES: list[tuple[Reader, str, tuple[object, ...] | None]] = [
    (sarif.READER, "ingest/sarif.semgrep-shop.json", ("runs", 0, "results")),
    (sarif.READER, "ingest/sarif.codeql-extensions.json", ("runs", 0, "results")),
    (sarif.READER, "ingest/sarif.missing-locations.json", ("runs", 0, "results")),
    (rdjson.RDJSON, "ingest/rdjson.ruff-shop.json", ("diagnostics",)),
    (gitlab.READER, "ingest/gitlab.lines-and-positions.json", ()),
    (native.READER, "native.three-bots.json", ()),
]
LINE_CASES: list[tuple[Reader, str]] = [
    (rdjson.RDJSONL, "ingest/rdjsonl.golangci.jsonl"),
    (native.READER, "native.jsonl-with-bad-records.jsonl"),
]
BYTE_CASES: list[tuple[Reader, str]] = [
    *((reader, name) for reader, name, _ in JSON_CASES),
    *LINE_CASES,
    (checkstyle.READER, "ingest/checkstyle.checkstyle-java.xml"),
    (checkstyle.READER, "ingest/checkstyle.eslint-files.xml"),
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "error", "WARNING", "major", "file:///x", "%SRCROOT%", "0", "-1"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


def read(reader: Reader, name: str, data: bytes) -> Batch | InputError:
    """The outcome of reading, after checking it is one of the two allowed shapes."""
    try:
        source = Source(name, data)  # a byte-order mark or NUL bytes are judged here
        reader.detect(source)  # detection must not crash either
        batch = reader.read(source)
    except InputError as err:
        assert (err.source, bool(err.position), bool(err.message)) == (name, True, True)
        return err
    for skipped in batch.skipped:
        assert (skipped.source, bool(skipped.position), bool(skipped.reason)) == (name, True, True)
    assert all(isinstance(finding, NormalizedFinding) for finding in batch.findings)
    return batch


def paths(value: object, prefix: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, (*prefix, index))


def replaced(document: object, path: tuple[object, ...], value: object, delete: bool) -> object:
    if not path:
        return value
    copied = copy.deepcopy(document)
    parent: Any = copied
    for part in path[:-1]:
        parent = parent[part]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return copied


def unchanged_except_one(before: Batch, after: Batch) -> None:
    """All but at most one of the findings from before are still there, and at most one is new."""
    old, new = collections.Counter(before.findings), collections.Counter(after.findings)
    assert sum((old - new).values()) <= 1
    assert sum((new - old).values()) <= 1


@pytest.mark.parametrize(("reader", "name"), BYTE_CASES, ids=[n for _, n in BYTE_CASES])
@SETTINGS
@given(data=st.data())
def test_truncated_and_non_utf8_bytes(reader: Reader, name: str, data: st.DataObject) -> None:
    original = (FIXTURES / name).read_bytes()
    cut = data.draw(st.integers(min_value=0, max_value=len(original)), label="cut")
    junk = data.draw(st.binary(max_size=6) | st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80"]))
    mutated = data.draw(
        st.sampled_from([original[:cut], original[:cut] + junk + original[cut:], junk + original])
    )
    read(reader, name.split("/")[-1], mutated)


@pytest.mark.parametrize(
    ("reader", "name", "records"), JSON_CASES, ids=[n for _, n, _ in JSON_CASES]
)
@SETTINGS
@given(data=st.data())
def test_any_value_replaced_or_deleted(
    reader: Reader, name: str, records: tuple[object, ...] | None, data: st.DataObject
) -> None:
    document = json.loads((FIXTURES / name).read_text())
    path = data.draw(st.sampled_from(list(paths(document))), label="path")
    value = data.draw(json_values, label="value")
    delete = data.draw(st.booleans(), label="delete")
    mutated = json.dumps(replaced(document, path, value, delete)).encode()
    outcome = read(reader, name, mutated)
    inside_one_record = records is not None and len(path) > len(records) + 1
    if inside_one_record and records is not None and path[: len(records)] == records:
        baseline = reader.read(Source(name, (FIXTURES / name).read_bytes()))
        assert isinstance(outcome, Batch), f"one bad record broke the whole file: {outcome}"
        unchanged_except_one(baseline, outcome)
        assert len(outcome.findings) + len(outcome.skipped) == len(baseline.findings) + len(
            baseline.skipped
        )


@pytest.mark.parametrize(("reader", "name"), LINE_CASES, ids=[n for _, n in LINE_CASES])
@SETTINGS
@given(data=st.data())
def test_one_line_replaced(reader: Reader, name: str, data: st.DataObject) -> None:
    lines = (FIXTURES / name).read_bytes().splitlines(keepends=True)
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1), label="line")
    value = data.draw(json_values.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=20))
    value = value.replace(b"\n", b" ").replace(b"\r", b" ")  # keep every other line's number
    mutated = b"".join([*lines[:index], value + b"\n", *lines[index + 1 :]])
    outcome = read(reader, name, mutated)
    if reader is native.READER and index == 0 and value.lstrip().startswith(b"["):
        return  # native input that starts with "[" is one JSON array, not JSON lines
    assert isinstance(outcome, Batch)
    unchanged_except_one(reader.read(Source(name, b"".join(lines))), outcome)


_ATTRIBUTE = re.compile(rb'(line|severity|message|source|name)="[^"]*"')


@pytest.mark.parametrize("name", ["ingest/checkstyle.checkstyle-java.xml"])
@SETTINGS
@given(data=st.data())
def test_checkstyle_attribute_values(name: str, data: st.DataObject) -> None:
    original = (FIXTURES / name).read_bytes()
    spots = list(_ATTRIBUTE.finditer(original))
    spot = data.draw(st.sampled_from(spots), label="attribute")
    text = data.draw(
        st.text(max_size=12) | st.sampled_from(["0", "-3", "99999999999999999999", "ignore"])
    )
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    value = spot.group(1) + b'="' + escaped.encode("utf-8", "surrogatepass") + b'"'
    mutated = original[: spot.start()] + value + original[spot.end() :]
    outcome = read(checkstyle.READER, name, mutated)
    if isinstance(outcome, Batch) and spot.group(1) != b"name":
        unchanged_except_one(checkstyle.READER.read(Source(name, original)), outcome)


@pytest.mark.parametrize(
    ("reader", "prefix", "suffix"),
    [
        (sarif.READER, b'{"version": "2.1.0", "runs": [', b"]}"),
        (rdjson.RDJSON, b'{"diagnostics": [', b"]}"),
        (gitlab.READER, b"[", b"]"),
        (native.READER, b"[", b"]"),
    ],
)
def test_nesting_beyond_the_parser_limit_is_an_input_error(
    reader: Reader, prefix: bytes, suffix: bytes
) -> None:
    deep = prefix + b"[" * 1100 + b"]" * 1100 + suffix
    with pytest.raises(InputError) as caught:
        reader.read(Source("deep.json", deep))
    assert caught.value.message == "invalid JSON: depth limit exceeded"
    assert caught.value.position.startswith("line 1 column ")


@pytest.mark.parametrize(
    ("reader", "good"),
    [
        (rdjson.RDJSONL, b'{"message": "m", "severity": "ERROR"}'),
        (native.READER, b'{"bot": "b", "severity": "high", "category": "other", "title": "t"}'),
    ],
)
def test_nesting_beyond_the_limit_on_one_line_skips_that_line(reader: Reader, good: bytes) -> None:
    data = good + b"\n" + b"[" * 1100 + b"]" * 1100 + b"\n" + good + b"\n"
    batch = reader.read(Source("deep.jsonl", data))
    assert len(batch.findings) == 2
    assert [(s.position, s.reason.startswith("invalid JSON")) for s in batch.skipped] == [
        ("line 2", True)
    ]


def test_a_deep_value_in_a_field_the_reader_ignores_never_breaks_the_read() -> None:
    # How deep msgspec decodes follows the interpreter (deeper on Python 3.12+), so such a
    # line is read there and reported as too deep on 3.11; it is never an exception.
    good = b'{"bot": "b", "severity": "high", "category": "other", "title": "t"}'
    deep = good[:-1] + b', "extra": ' + b"[" * 1100 + b"]" * 1100 + b"}"
    batch = native.READER.read(Source("deep.jsonl", b"\n".join([good, deep, good, b""])))
    if len(batch.findings) == 3:
        assert not batch.skipped
    else:
        assert len(batch.findings) == 2
        (skipped,) = batch.skipped
        assert skipped.position == "line 2"
        assert skipped.reason.startswith("invalid JSON at column ")
        assert skipped.reason.endswith("depth limit exceeded")
