"""The shipped JSON Schema of the native format agrees with the native reader."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from conftest import FIXTURES, REPO_ROOT
from review_quorum.ingest.base import Source
from review_quorum.ingest.native import READER

SCHEMA = json.loads(
    resources.files("review_quorum").joinpath("schemas/native-findings.schema.json").read_text()
)


@pytest.mark.parametrize(
    "path",
    [FIXTURES / "native.three-bots.json", REPO_ROOT / "examples" / "native" / "findings.json"],
)
def test_valid_files_validate_and_read_without_skips(path) -> None:  # type: ignore[no-untyped-def]
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(path.read_text()))
    batch = READER.read(Source(str(path), path.read_bytes()))
    assert batch.skipped == [] and batch.findings


@pytest.mark.parametrize(
    "record",
    [
        {"bot": "a", "severity": "urgent", "category": "x", "title": "t"},
        {"bot": "a", "severity": "low", "category": "x"},
        {"bot": "a", "severity": "low", "category": "x", "title": "t", "evidence": {"line": 0}},
        {"bot": "", "severity": "low", "category": "x", "title": "t"},
    ],
)
def test_records_the_schema_rejects_are_skipped_by_the_reader(record: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate([record], SCHEMA)
    batch = READER.read(Source("x.json", json.dumps([record]).encode()))
    assert batch.findings == [] and len(batch.skipped) == 1
