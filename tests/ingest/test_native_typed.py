"""The native reader's typed decoding gives exactly what `parse_record` gives, or defers to it."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from review_quorum.errors import FindingError
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.ingest.native import READER, parse_record, typed_record
from review_quorum.ingest.paths import PathResolver

GOOD: dict[str, Any] = {
    "bot": "semgrep",
    "finding_id": "r1",
    "severity": "high",
    "category": "security",
    "title": "SQL injection",
    "evidence": {"file": "app/db.py", "line": 4, "end_line": 6, "snippet": "q", "symbol": "f"},
    "confidence": 0.9,
    "rule_id": "python.sql",
    "body": "Use parameters.",
    "category_certainty": 0.8,
}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(["", "high", "HIGH", " low ", "file:///repo/a.py", "./a.py", "a\\b.py"]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=4,
)
FIELDS = [*GOOD, "evidence.file", "evidence.line", "evidence.end_line", "evidence.snippet"]


def both(record: object, bot: str | None = None) -> tuple[object, object]:
    """What each path makes of one record: a finding, None (typed defers) or the error."""
    raw = json.dumps(record).encode()  # integers beyond 64 bits too
    paths = PathResolver("/repo")
    typed = typed_record(raw, 7, bot, paths)
    try:
        generic: object = parse_record(msgspec.json.decode(raw), 7, bot, paths)
    except FindingError as err:
        generic = f"error: {err}"
    return typed, generic


@settings(max_examples=examples(600), deadline=None)
@given(
    changes=st.dictionaries(st.sampled_from(FIELDS), json_values | st.just("<absent>")),
    bot=st.none() | st.just("override"),
)
def test_typed_findings_equal_parsed_ones(changes: dict[str, object], bot: str | None) -> None:
    record = {**GOOD, "evidence": dict(GOOD["evidence"])}
    for field, value in changes.items():
        holder, _, name = field.rpartition(".")
        target = record.get("evidence") if holder else record
        if isinstance(target, dict):
            if value == "<absent>":
                target.pop(name, None)
            else:
                target[name] = value
    typed, generic = both(record, bot)
    assert typed is None or typed == generic


@pytest.mark.parametrize(
    ("changes", "typed_reads_it"),
    [
        ({}, True),
        ({"finding_id": 12}, True),  # an integer id becomes its text
        ({"confidence": 1}, True),
        ({"evidence": None}, True),
        ({"severity": "HIGH"}, False),  # parse_record reads case and spaces
        ({"severity": " low "}, False),
        ({"evidence": []}, False),  # an empty value counts as no evidence
        ({"finding_id": 12.0}, False),
        ({"bot": ""}, False),
        ({"confidence": True}, False),
        ({"category_certainty": 1.5}, False),
        ({"evidence": {"file": "a.py", "line": 0}}, False),
        ({"evidence": {"file": "file:///repo/a.py", "line": 3}}, True),
    ],
)
def test_boundaries_of_the_typed_path(changes: dict[str, object], typed_reads_it: bool) -> None:
    typed, generic = both({**GOOD, **changes})
    assert (typed is not None) == typed_reads_it
    if typed is not None:
        assert typed == generic


def test_a_file_mixing_good_and_bad_records_reads_each_as_the_generic_reader_does() -> None:
    records = [GOOD, {**GOOD, "severity": "Medium"}, {**GOOD, "bot": 3}, {**GOOD, "title": ""}]
    data = orjson.dumps(records)
    batch = READER.read(Source("mixed.json", data, ReadOptions(root="/repo")))
    parsed = Source("mixed.json", data, ReadOptions(root="/repo"))
    parsed.json()  # an already parsed document is read record by record as dicts
    reference = READER.read(parsed)
    assert batch == reference
    assert [finding.severity.label for finding in batch.findings] == ["high", "medium"]
    assert [(item.position, item.reason) for item in batch.skipped] == [
        ("/2", "field 'bot' must be a non-empty string"),
        ("/3", "field 'title' must be a non-empty string"),
    ]
