"""reviewdog rdjson and rdjsonl input."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from conftest import FIXTURES
from finding_rows import rows
from review_quorum.errors import InputError
from review_quorum.ingest import detect_format, rdjson
from review_quorum.ingest.base import Batch, ReadOptions, Source

INGEST = FIXTURES / "ingest"


def read_file(
    reader: rdjson.RdjsonReader | rdjson.RdjsonlReader, name: str, **options: Any
) -> Batch:
    return reader.read(Source(name, (INGEST / name).read_bytes(), ReadOptions(**options)))


def test_ruff_rdjson_output() -> None:
    batch = read_file(rdjson.RDJSON, "rdjson.ruff-shop.json", root="/tmp/fixproj")
    assert batch.skipped == []
    assert [row[:4] + row[5:] for row in rows(batch)] == [
        ("ruff", "S324", "medium", "security", "src/shop/orders.py", 10, 10),
        ("ruff", "S301", "medium", "security", "src/shop/orders.py", 14, 14),
        ("ruff", "S608", "medium", "security", "src/shop/orders.py", 18, 18),
        ("ruff", "S602", "medium", "security", "src/shop/orders.py", 23, 23),
        ("ruff", "S110", "medium", "error_handling", "src/shop/orders.py", 29, 30),
        ("ruff", "S311", "medium", "security", "src/shop/report.py", 8, 8),
        ("ruff", "S506", "medium", "security", "src/shop/report.py", 12, 12),
        ("ruff", "S307", "medium", "security", "src/shop/report.py", 18, 18),
    ]
    assert batch.findings[0].title == "Probable use of insecure hash functions in `hashlib`: `md5`"


def test_rdjsonl_lines_sources_severities_and_bad_lines() -> None:
    batch = read_file(rdjson.RDJSONL, "rdjsonl.golangci.jsonl")
    assert rows(batch) == [
        (
            "golangci-lint",
            "errcheck",
            "high",
            "other",
            "Error return value of `rows.Close` is not checked",
            "internal/store/orders.go",
            41,
            41,
        ),
        (
            "gosec",
            "G401",
            "medium",
            "security",
            "G401: Use of weak cryptographic primitive",
            "internal/auth/token.go",
            12,
            None,
        ),
        (
            "reviewdog",
            "revive:exported",
            "low",
            "other",
            "exported function Total should have comment or be unexported",
            "internal/store/total.go",
            None,
            None,
        ),
        (
            "reviewdog",
            "line 5",
            "medium",
            "other",
            "File is not gofmt-ed",
            "cmd/shop/main.go",
            3,
            5,
        ),
        (
            "reviewdog",
            "line 6",
            "medium",
            "other",
            "No location: a module-level note",
            "",
            None,
            None,
        ),
        ("staticcheck", "SA4006", "high", "other", "Last good line", "cmd/shop/main.go", 9, None),
    ]
    assert [(s.source, s.position, s.reason) for s in batch.skipped] == [
        (
            "rdjsonl.golangci.jsonl",
            "line 7",
            'unknown severity "SEVERE" (expected ERROR, WARNING, INFO or UNKNOWN_SEVERITY, '
            "or their numbers 1, 2, 3 and 0)",
        ),
        ("rdjsonl.golangci.jsonl", "line 8", "invalid JSON: unexpected end of data"),
        (
            "rdjsonl.golangci.jsonl",
            "line 9",
            "field 'location.range.start.line' must be a positive integer",
        ),
    ]


def test_bot_option_overrides_every_source() -> None:
    batch = read_file(rdjson.RDJSONL, "rdjsonl.golangci.jsonl", bot="ci-lint")
    assert {f.bot for f in batch.findings} == {"ci-lint"}


def test_result_level_severity_is_the_default_for_unknown_severities() -> None:
    diagnostics = [
        {"message": "a", "severity": "UNKNOWN_SEVERITY"},
        {"message": "b"},
        {"message": "c", "severity": "info"},
    ]
    data = orjson.dumps({"severity": "ERROR", "diagnostics": diagnostics})
    batch = rdjson.RDJSON.read(Source("x.rdjson", data))
    assert [(f.title, f.severity.label, f.finding_id) for f in batch.findings] == [
        ("a", "high", "/diagnostics/0"),
        ("b", "high", "/diagnostics/1"),
        ("c", "low", "/diagnostics/2"),
    ]


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ((INGEST / "rdjson.ruff-shop.json").read_bytes(), "rdjson"),
        ((INGEST / "rdjsonl.golangci.jsonl").read_bytes(), "rdjsonl"),
        (b'\xef\xbb\xbf{"message": "m", "location": {"path": "a"}}\n', "rdjsonl"),
    ],
)
def test_detection_by_content(data: bytes, fmt: str) -> None:
    assert detect_format(Source("input.txt", data)) == fmt


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ([1], "a diagnostic must be an object, not list"),
        ({"message": 3}, "field 'message' must be a string"),
        ({"message": ""}, "the diagnostic has no message and no code to title it"),
        ({"message": "m", "code": {"value": 7}}, "field 'code.value' must be a string"),
        ({"message": "m", "location": "a.go"}, "field 'location' must be an object"),
        ({"message": "m", "location": {"path": 1}}, "field 'location.path' must be a string"),
        (
            {"message": "m", "location": {"path": "a", "range": []}},
            "field 'location.range' must be an object",
        ),
        (
            {"message": "m", "location": {"path": "a", "range": {"start": 3}}},
            "field 'location.range.start' must be an object",
        ),
        (
            {
                "message": "m",
                "location": {"path": "a", "range": {"start": {"line": 5}, "end": {"line": 2}}},
            },
            "evidence for 'a': end_line 2 without a start line at or before it (line 5)",
        ),
        (
            {"message": "m", "severity": 7},
            "unknown severity 7 (expected ERROR, WARNING, INFO or UNKNOWN_SEVERITY, or their "
            "numbers 1, 2, 3 and 0)",
        ),
    ],
)
def test_bad_diagnostics_are_skipped_with_reasons(record: object, reason: str) -> None:
    data = orjson.dumps({"diagnostics": [record, {"message": "kept"}]})
    batch = rdjson.RDJSON.read(Source("x.rdjson", data))
    assert [f.title for f in batch.findings] == ["kept"]
    assert [(s.position, s.reason) for s in batch.skipped] == [("/diagnostics/0", reason)]


@pytest.mark.parametrize(
    ("data", "position", "message"),
    [
        (b"[]", "/", "expected an rdjson object with 'diagnostics'"),
        (b'{"diagnostics": {}}', "/diagnostics", "expected an array of diagnostics"),
        (
            b'{"diagnostics": [], "severity": "LOUD"}',
            "/severity",
            'unknown severity "LOUD" (expected ERROR, WARNING, INFO or UNKNOWN_SEVERITY, or '
            "their numbers 1, 2, 3 and 0)",
        ),
        (b'{"diagnostics": [', "line 1 column 18", "invalid JSON: unexpected end of data"),
    ],
)
def test_broken_rdjson_files(data: bytes, position: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        rdjson.RDJSON.read(Source("x.rdjson", data))
    assert (caught.value.source, caught.value.position, caught.value.message) == (
        "x.rdjson",
        position,
        message,
    )


@pytest.mark.parametrize(
    ("number", "severity"), [(1, "high"), (2, "medium"), (3, "low"), (0, "low")]
)
def test_severity_as_the_enum_number(number: int, severity: str) -> None:
    """Issue 33 item 16: protobuf's JSON mapping writes an enum as its number; reviewdog's
    UNKNOWN_SEVERITY (0) falls back to the result's severity, here INFO."""
    data = orjson.dumps({"severity": 3, "diagnostics": [{"message": "m", "severity": number}]})
    batch = rdjson.RDJSON.read(Source("x.rdjson", data))
    assert ([f.severity.label for f in batch.findings], batch.skipped) == ([severity], [])


def test_a_numeric_top_level_severity_reads_the_whole_file() -> None:
    data = orjson.dumps({"severity": 1, "diagnostics": [{"message": "m"}]})
    assert [f.severity.label for f in rdjson.RDJSON.read(Source("x.rdjson", data)).findings] == [
        "high"
    ]
    line = orjson.dumps({"message": "m", "severity": 2, "location": {"path": "a.go"}})
    assert [f.severity.label for f in rdjson.RDJSONL.read(Source("x.jsonl", line)).findings] == [
        "medium"
    ]
