"""An array of native records decoded straight into findings reads as record by record."""

from __future__ import annotations

import pickle
import re
from pathlib import Path
from typing import Any, Literal

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import astuple

from conftest import examples
from review_quorum.errors import FindingError
from review_quorum.ingest import duplicates, native
from review_quorum.ingest.base import Batch, ReadOptions, Source
from review_quorum.ingest.native import READER, _DecodedEvidence, _DecodedFinding
from review_quorum.model import MAX_LINE, NO_PRIORITY, Evidence, NormalizedFinding, Severity

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
# Fields a finding has and a native record does not: a record naming one is read as if it
# did not (a source comment from a file would decide which comment is hidden or resolved).
BEYOND: dict[str, object] = {
    "suggestion": "use(params)",
    "source": {"kind": "issue_comment", "rest_id": 5},
    "related": [{"file": "b.py", "line": 2}],
    "cwes": [89],
    "use_only": True,
    "priority": 0.5,
}


def read(records: list[dict[str, Any]], **options: Any) -> tuple[Batch, Batch]:
    """The batch read from the bytes (straight into findings when it can) and the batch
    read from the parsed document, each record as a dict by `parse_record`."""
    data = orjson.dumps(records)
    straight = READER.read(Source("f.json", data, ReadOptions(**options)))
    parsed = Source("f.json", data, ReadOptions(**options))
    parsed.json()
    return straight, READER.read(parsed)


json_values = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-1, 2)
    | st.text(max_size=4)
    | st.sampled_from(["", "high", "HIGH", "file:///repo/a.py", "./a.py", "a\\b.py", "a\x00.py"])
)
FIELDS = [*GOOD, *BEYOND, "evidence.file", "evidence.line", "evidence.end_line"]


@settings(max_examples=examples(300), deadline=None)
@given(
    changes=st.lists(
        st.dictionaries(st.sampled_from(FIELDS), json_values | st.just("<absent>"), max_size=2),
        min_size=1,
        max_size=3,
    ),
    bot=st.none() | st.just("override"),
)
def test_an_array_reads_as_its_records_one_by_one(
    changes: list[dict[str, object]], bot: str | None
) -> None:
    records = []
    for change in changes:
        record = {**GOOD, "evidence": dict(GOOD["evidence"])}
        for field, value in change.items():
            holder, _, name = field.rpartition(".")
            target = record.get("evidence") if holder else record
            if not isinstance(target, dict):
                continue
            if value == "<absent>":
                target.pop(name, None)
            else:
                target[name] = value
        records.append(record)
    straight, reference = read(records, root="/repo", bot=bot)
    assert straight == reference
    for finding in straight.findings:  # each a valid finding, built again and checked
        assert msgspec.structs.replace(finding, evidence=Evidence(*astuple(finding.evidence)))


@pytest.mark.parametrize(("name", "value"), list(BEYOND.items()))
def test_a_field_native_records_lack_is_ignored(name: str, value: object) -> None:
    straight, reference = read([GOOD, {**GOOD, name: value}])
    assert straight == reference
    finding = straight.findings[1]
    assert (finding.suggestion, finding.source, finding.related, finding.cwes) == ("", None, (), ())
    assert (finding.use_only, finding.priority) == (False, NO_PRIORITY)


def test_findings_share_their_bot_category_and_file_strings() -> None:
    """A decoder makes a new string per record: a million findings would hold a million
    copies of a handful of names."""
    other = {**GOOD, "finding_id": "r2", "evidence": {"file": "./app/db.py", "line": 9}}
    straight, _ = read([GOOD, other, {**GOOD, "finding_id": "r3"}, other])
    first, second, third, fourth = straight.findings
    assert first.bot is second.bot is third.bot is fourth.bot
    assert first.category is second.category is third.category
    assert first.file is third.file
    assert second.file is fourth.file == "app/db.py"  # made repository-relative


def test_findings_of_two_files_share_their_bot_and_category_strings() -> None:
    """A run reads many files: their findings hold one string per name, not one per file."""
    first, _ = read([GOOD])
    second, _ = read([{**GOOD, "finding_id": "r2"}])
    assert first.findings[0].bot is second.findings[0].bot
    assert first.findings[0].category is second.findings[0].category


def test_the_bot_option_names_every_finding_of_the_array() -> None:
    straight, reference = read([GOOD, {**GOOD, "bot": "ruff"}], bot="mine")
    assert [finding.bot for finding in straight.findings] == ["mine", "mine"]
    assert straight == reference


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"severity": 3}, "field 'severity' must be a string"),  # never a Severity's number
        ({"category": ""}, "field 'category' must be a non-empty string"),
        ({"title": ""}, "field 'title' must be a non-empty string"),
        ({"evidence": {"file": "file:///repo/a%0Ab.py"}}, "cannot name a file"),
    ],
)
def test_a_bad_record_is_skipped_the_others_read(changes: dict[str, object], reason: str) -> None:
    straight, reference = read([GOOD, {**GOOD, **changes}], root="/repo")
    assert straight == reference
    assert len(straight.findings) == 1
    assert [item.position for item in straight.skipped] == ["/1"]
    assert reason in straight.skipped[0].reason


def test_a_finding_takes_a_severity_by_its_exact_label_only() -> None:
    finding = NormalizedFinding("b", "1", "critical", "security", "t")  # type: ignore[arg-type]
    assert finding.severity is Severity.CRITICAL
    for label in ("Critical", "severe", 4):
        with pytest.raises(FindingError, match="unknown severity"):
            NormalizedFinding("b", "1", label, "security", "t")  # type: ignore[arg-type]
    assert NormalizedFinding("b", "1", Severity.LOW, "c", "t", Evidence("a.py")).file == "a.py"


def test_a_well_typed_array_needs_no_record_struct(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every finding of a well-typed array comes straight from the decoder: reading it
    makes no `_TypedRecord`, so the record-by-record decoders are never asked."""

    def refuse(data: object) -> object:
        raise AssertionError("a record struct was decoded")

    monkeypatch.setattr(native, "_DECODE_TYPED_ARRAY", refuse)
    monkeypatch.setattr(native, "_DECODE_TYPED", refuse)
    straight = READER.read(Source("f.json", orjson.dumps([GOOD, {**GOOD, "finding_id": "r2"}])))
    assert [finding.finding_id for finding in straight.findings] == ["r1", "r2"]
    assert straight.findings[0].evidence == Evidence("app/db.py", 4, "q", "f", 6)


def test_a_clean_array_pays_only_the_screen_for_repeated_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each record holds `severity` once: the screen counts as many as findings were read,
    so the exact walk for a repeated key (a second parse of the file) never runs."""

    def walk(*args: object, **options: object) -> None:
        raise AssertionError("the file was walked for a repeated key")

    monkeypatch.setattr(duplicates, "repeated_key", walk)
    straight = READER.read(Source("f.json", orjson.dumps([GOOD, {**GOOD, "finding_id": "r2"}])))
    assert len(straight.findings) == 2


# Each value the decoder refuses in C (its constraints) or the pass after it refuses, where
# a finding's or its evidence's own checks refused it before.
REFUSED_STRAIGHT = [
    ({"bot": ""}, "field 'bot' must be a non-empty string"),
    ({"evidence": {"file": "a.py", "line": 0}}, "line must be >= 1, not 0"),
    ({"evidence": {"file": "a.py", "line": MAX_LINE + 1}}, f"line must be at most {MAX_LINE}"),
    ({"evidence": {"file": "a.py", "line": 1, "end_line": 0}}, "line must be >= 1, not 0"),
    ({"evidence": {"file": "a.py", "line": 5, "end_line": 4}}, "end_line 4 without a start"),
    ({"evidence": {"file": "a.py", "end_line": 4}}, "end_line 4 without a start line"),
    ({"evidence": {"end_line": 4}}, "evidence for '<global>': end_line 4 without a start"),
    ({"category_certainty": 1.5}, "category certainty must be a number in [0, 1], not 1.5"),
    ({"category_certainty": -0.5}, "category certainty must be a number in [0, 1], not -0.5"),
    ({"evidence": {"file": "app/\u202efdp.exe"}}, "cannot name a file in the pull request"),
]


@pytest.mark.parametrize("bot", [None, "mine"])
@pytest.mark.parametrize(("changes", "reason"), REFUSED_STRAIGHT)
def test_a_value_a_finding_refuses_is_refused_straight_too(
    changes: dict[str, object], reason: str, bot: str | None
) -> None:
    """The decoder's constraints and the pass after it refuse what the finding's own
    checks would: the array is read record by record, the record skipped with its reason,
    naming the file and the record's position."""
    data = orjson.dumps([GOOD, {**GOOD, **changes}, GOOD])
    assert native._decoded_findings(Source("f.json", data, ReadOptions(bot=bot))) is None
    straight, reference = read([GOOD, {**GOOD, **changes}, GOOD], bot=bot)
    assert straight == reference
    assert [finding.finding_id for finding in straight.findings] == ["r1", "r1"]
    assert [(item.source, item.position) for item in straight.skipped] == [("f.json", "/1")]
    assert reason in straight.skipped[0].reason


def test_a_confidence_beyond_a_float_is_refused_straight_too() -> None:
    record = orjson.dumps({**GOOD, "confidence": 1.5}).replace(b"1.5", b"1e999")
    data = b"[" + orjson.dumps(GOOD) + b"," + record + b"]"
    assert native._decoded_findings(Source("f.json", data)) is None
    batch = READER.read(Source("f.json", data))
    assert [finding.finding_id for finding in batch.findings] == ["r1"]
    assert [(item.source, item.position) for item in batch.skipped] == [("f.json", "/1")]
    assert batch.skipped[0].reason.startswith("invalid JSON: Number out of range")


@pytest.mark.parametrize(
    "evidence",
    [
        {"file": "a.py", "line": 1},
        {"file": "a.py", "line": MAX_LINE, "end_line": MAX_LINE},
        {"file": "a.py", "line": 4, "end_line": 9},
        {"file": "", "line": None},
    ],
)
def test_a_value_at_the_edge_of_a_rule_is_read_straight(evidence: dict[str, object]) -> None:
    data = orjson.dumps([{**GOOD, "category_certainty": 0.0, "evidence": evidence}])
    found = native._decoded_findings(Source("f.json", data))
    assert found is not None
    assert found[0].evidence == Evidence(**evidence)  # type: ignore[arg-type]
    assert found[0].category_certainty == 0.0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("suggestion", "x"),
        ("related", [{}]),
        ("cwes", [1]),
        ("use_only", True),
        ("priority", -0.999),
        ("priority", -1.5),
        ("priority", 0),
        ("source", {"kind": "issue_comment", "rest_id": 5}),
    ],
)
def test_a_field_native_records_lack_is_never_read_straight(name: str, value: object) -> None:
    """Any value but the default sends the file the `_TypedRecord` way, which ignores it."""
    data = orjson.dumps([GOOD, {**GOOD, name: value}])
    assert native._decoded_findings(Source("f.json", data)) is None
    straight, reference = read([GOOD, {**GOOD, name: value}])
    assert straight == reference
    assert len(straight.findings) == 2


def test_a_field_native_records_lack_stated_at_its_default_is_read_straight() -> None:
    defaults: dict[str, object] = {"suggestion": "", "source": None, "related": [], "cwes": []}
    record = {**GOOD, **defaults, "use_only": False, "priority": -1}
    found = native._decoded_findings(Source("f.json", orjson.dumps([record])))
    assert found is not None
    assert found == read([GOOD])[1].findings


def test_a_finding_read_straight_is_a_finding_like_any_other() -> None:
    """Decoded as a struct of the same fields checked in C, each becomes in place the
    `NormalizedFinding` and `Evidence` it is: equal, alike in hash, picklable, and checked
    again when changed."""
    assert _DecodedFinding.__struct_fields__ == NormalizedFinding.__struct_fields__
    assert _DecodedEvidence.__struct_fields__ == Evidence.__struct_fields__
    without = {name: value for name, value in GOOD.items() if name != "evidence"}
    found = native._decoded_findings(Source("f.json", orjson.dumps([GOOD, without])))
    assert found is not None
    built = NormalizedFinding.create(
        bot="semgrep",
        finding_id="r1",
        severity="high",
        category="security",
        title="SQL injection",
        file="app/db.py",
        line=4,
        end_line=6,
        snippet="q",
        symbol="f",
        confidence=0.9,
        rule_id="python.sql",
        body="Use parameters.",
        category_certainty=0.8,
    )
    first, second = found
    assert (type(first), type(first.evidence), type(second.evidence)) == (
        NormalizedFinding,
        Evidence,
        Evidence,
    )
    assert first == built and hash(first) == hash(built)
    assert pickle.loads(pickle.dumps(first)) == built
    assert second.evidence == Evidence()
    with pytest.raises(FindingError, match="bot must be a non-empty string"):
        msgspec.structs.replace(first, bot="")
    with pytest.raises(FindingError, match="end_line 3 without a start line"):
        msgspec.structs.replace(first.evidence, end_line=3)


def test_the_msgspec_the_package_declares_builds_the_twins_decoder() -> None:
    """`_DecodedFinding.use_only` is `Literal[False]`, which msgspec decodes from 0.22 on:
    with the 0.21 the package declared, building the decoder raised TypeError ("Literal
    may only contain None/integers/strings") when the native reader was imported, and
    every `quorum consensus` or `review` ended in an internal error."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    floor = re.search(r'"msgspec>=([0-9.]+)"', pyproject.read_text(encoding="utf-8"))
    assert floor is not None
    assert tuple(map(int, floor.group(1).split("."))) >= (0, 22)
    assert msgspec.json.decode(b"false", type=Literal[False]) is False
