"""The native reader's fields beyond the seed: rule id, body text, category certainty."""

from __future__ import annotations

import json

from review_quorum.ingest.base import Source
from review_quorum.ingest.native import READER

BASE: dict[str, object] = {"bot": "b", "severity": "low", "category": "security", "title": "t"}


def read(*records: dict[str, object]):  # type: ignore[no-untyped-def]
    return READER.read(Source("f.json", json.dumps(list(records)).encode()))


def test_extras_are_read() -> None:
    record = {**BASE, "rule_id": "r1", "body": "long text", "category_certainty": 0.3}
    (finding,) = read(record).findings
    assert (finding.rule_id, finding.body, finding.category_certainty) == ("r1", "long text", 0.3)


def test_bad_extras_are_skipped_with_a_reason() -> None:
    batch = read({**BASE, "rule_id": 3}, {**BASE, "category_certainty": "high"}, BASE)
    assert len(batch.findings) == 1
    assert [(s.position, s.reason) for s in batch.skipped] == [
        ("/0", "field 'rule_id' must be a string"),
        ("/1", "field 'category_certainty' must be a number"),
    ]
