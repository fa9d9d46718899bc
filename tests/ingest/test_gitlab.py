"""GitLab Code Quality input."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from conftest import FIXTURES
from finding_rows import rows
from review_quorum.errors import InputError
from review_quorum.ingest import detect_format, gitlab
from review_quorum.ingest.base import Batch, ReadOptions, Source

INGEST = FIXTURES / "ingest"


def read_file(name: str, **options: Any) -> Batch:
    return gitlab.READER.read(Source(name, (INGEST / name).read_bytes(), ReadOptions(**options)))


def test_ruff_gitlab_output_drops_the_repeated_code_from_titles() -> None:
    batch = read_file("gitlab.ruff-shop.json")
    assert batch.skipped == []
    assert rows(batch)[:2] == [
        (
            "code-quality",
            "S324:346a5ca540afdbab",
            "medium",
            "security",
            "Probable use of insecure hash functions in `hashlib`: `md5`",
            "src/shop/orders.py",
            10,
            10,
        ),
        (
            "code-quality",
            "S301:7f61c5ce9d5951b2",
            "medium",
            "security",
            "`pickle` and modules that wrap it can be unsafe when used to deserialize untrusted "
            "data, possible security issue",
            "src/shop/orders.py",
            14,
            14,
        ),
    ]
    assert [f.category for f in batch.findings].count("error_handling") == 1
    assert len(batch.findings) == 8


def test_lines_positions_engines_severities_and_skipped_issues() -> None:
    batch = read_file("gitlab.lines-and-positions.json")
    assert rows(batch) == [
        (
            "structure",
            "method_complexity:0f1e2d",
            "low",
            "maintainability",
            "Method `checkout` has a Cognitive Complexity of 21 (exceeds 5 allowed)",
            "app/models/order.rb",
            12,
            48,
        ),
        (
            "rubocop",
            "Rails/OutputSafety:aa11",
            "high",
            "security",
            "Tagging a string as html safe may be a security risk",
            "app/helpers/orders_helper.rb",
            7,
            7,
        ),
        (
            "code-quality",
            "duplicate_code:bb22",
            "critical",
            "maintainability",
            "Similar blocks of code found in 2 locations",
            "app/models/cart.rb",
            3,
            None,
        ),
        (  # a severity outside the five is GitLab's "unknown": kept, as an absent one
            "code-quality",
            "bad-severity",
            "medium",
            "other",
            "Severity is not one of the five",
            "a.rb",
            1,
            None,
        ),
        (
            "code-quality",
            "offset-only",
            "info",
            "other",
            "Positions by offset",
            "app/a.rb",
            None,
            None,
        ),
        (
            "code-quality",
            "S608:cc33",
            "medium",
            "security",
            "Possible SQL injection vector through string-based query construction",
            "src/shop/orders.py",
            18,
            18,
        ),
    ]
    assert [(s.source, s.position, s.reason) for s in batch.skipped] == [
        ("gitlab.lines-and-positions.json", "/3", 'type "measurement" is not an issue'),
        ("gitlab.lines-and-positions.json", "/4", "field 'location' must be an object"),
    ]


def test_bot_option_overrides_engine_names() -> None:
    assert {f.bot for f in read_file("gitlab.lines-and-positions.json", bot="cq").findings} == {
        "cq"
    }


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("gitlab.ruff-shop.json", "gitlab"), ("gitlab.lines-and-positions.json", "gitlab")],
)
def test_detection_by_content(name: str, fmt: str) -> None:
    assert detect_format(Source("report.json", (INGEST / name).read_bytes())) == fmt


def test_an_empty_array_is_not_claimed() -> None:
    assert not gitlab.READER.detect(Source("x.json", b"[]"))
    assert gitlab.READER.read(Source("x.json", b"[]")).findings == []


@pytest.mark.parametrize(
    ("issue", "reason"),
    [
        ("text", "an issue must be an object, not str"),
        ({"type": 5, "location": {"path": "a"}}, "type 5 is not an issue"),
        ({"check_name": 1, "location": {"path": "a"}}, "field 'check_name' must be a string"),
        ({"location": {"path": "a"}}, "the issue has no description and no check_name to title it"),
        (
            {"check_name": "c", "location": {"path": ["a"]}},
            "field 'location.path' must be a string",
        ),
        (
            {"check_name": "c", "location": {"path": "a", "lines": [1]}},
            "field 'location.lines' must be an object",
        ),
        (
            {"check_name": "c", "location": {"path": "a", "lines": {"begin": "1"}}},
            "field 'location.lines.begin' must be a positive integer",
        ),
        (
            {"check_name": "c", "location": {"path": "a", "positions": {"begin": 3}}},
            "field 'location.positions.begin' must be an object",
        ),
        (
            {"check_name": "c", "location": {"path": "a", "lines": {"begin": 9, "end": 2}}},
            "evidence for 'a': end_line 2 without a start line at or before it (line 9)",
        ),
        (
            {"check_name": "c", "categories": "Style", "location": {"path": "a"}},
            "field 'categories' must be an array of strings",
        ),
        (
            {"check_name": "c", "severity": 3, "location": {"path": "a"}},
            "unknown severity 3 (expected info, minor, major, critical, blocker)",
        ),
    ],
)
def test_bad_issues_are_skipped_with_reasons(issue: object, reason: str) -> None:
    data = orjson.dumps([issue, {"check_name": "kept", "location": {"path": "b"}}])
    batch = gitlab.READER.read(Source("cq.json", data))
    assert [f.title for f in batch.findings] == ["kept"]
    assert [(s.position, s.reason) for s in batch.skipped] == [("/0", reason)]


@pytest.mark.parametrize(
    ("data", "position", "message"),
    [
        (b'{"check_name": "x"}', "/", "expected a JSON array of Code Quality issues"),
        (b'[{"check_name": ', "line 1 column 17", "invalid JSON: unexpected end of data"),
    ],
)
def test_broken_files(data: bytes, position: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        gitlab.READER.read(Source("cq.json", data))
    assert (caught.value.source, caught.value.position, caught.value.message) == (
        "cq.json",
        position,
        message,
    )
