"""Scoring records, drafter and verifier output: strict, complete validation; the join; schemas."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples
from review_quorum.errors import InputError, RecordProblem, RecordsError
from review_quorum.scoring.confidence import (
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    Verdict,
    VerifierSeverity,
)
from review_quorum.scoring.confidence.join import Unmatched, join_verdicts
from review_quorum.scoring.confidence.verdicts import (
    OPTIONAL_TEXT,
    SCORE_FIELDS,
    check_record,
    parse_drafter_output,
    parse_score_records,
    parse_verifier_output,
)

GOOD: dict[str, Any] = {
    "file": "src/app.py",
    "line": 7,
    "category": "logic_error",
    "verdict": "LIKELY",
    "evidence_strength": "circumstantial",
    "context_completeness": "partial",
    "drafter_severity": "high",
    "verifier_severity": "medium",
    "in_diff": True,
    "in_changed_code": False,
}
GOOD_INPUT = FindingInput(
    "src/app.py",
    7,
    Category.LOGIC_ERROR,
    Verdict.LIKELY,
    EvidenceStrength.CIRCUMSTANTIAL,
    ContextCompleteness.PARTIAL,
    VerifierSeverity.HIGH,
    VerifierSeverity.MEDIUM,
    True,
    False,
)


def problems_of(document: object) -> list[tuple[str, str]]:
    with pytest.raises(RecordsError) as caught:
        parse_score_records(document, "in.json")
    return [(problem.pointer, problem.message) for problem in caught.value.problems]


def test_a_good_record_becomes_an_input_with_members() -> None:
    (item,) = parse_score_records([GOOD], "in.json")
    assert item == GOOD_INPUT
    assert type(item.verdict) is Verdict and type(item.category) is Category


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"line": "12"}, {"line": 12}),
        ({"in_diff": "true", "in_changed_code": "false"}, {"in_diff": True}),
        (
            {"issue": "Off by one", "details": "The loop stops early."},
            {"issue": "Off by one", "details": "The loop stops early."},
        ),
        ({"issue": None, "details": None}, {"issue": ""}),
        ({"extra": {"kept": True}, "score": 3}, {}),
        ({"category": "security"}, {"category": Category.SECURITY}),
    ],
)
def test_accepted_variants(changes: dict[str, object], expected: dict[str, object]) -> None:
    (item,) = parse_score_records([{**GOOD, **changes}], "in.json")
    assert item == GOOD_INPUT._replace(**expected)  # type: ignore[arg-type]


BAD_FIELDS = [
    ("file", "", 'must be a non-empty string, not ""'),
    ("file", 3, "must be a non-empty string, not 3"),
    ("line", 0, "must be a positive integer, not 0"),
    ("line", -4, "must be a positive integer, not -4"),
    ("line", 1.0, "must be a positive integer, not 1.0"),
    ("line", 100.0, "must be a positive integer, not 100.0"),  # JSON 1e2
    ("line", "1e2", 'must be a positive integer, not "1e2"'),
    ("line", "012", 'must be a positive integer, not "012"'),
    ("line", " 3", 'must be a positive integer, not " 3"'),
    ("line", "+3", 'must be a positive integer, not "+3"'),
    ("line", "٣", 'must be a positive integer, not "٣"'),
    ("line", True, "must be a positive integer, not true"),
    ("line", None, "must be a positive integer, not null"),
    (
        "category",
        "Security",
        '"Security" is not one of security, logic_error, resource_leak, '
        "concurrency, error_handling, data_integrity, other",
    ),
    ("verdict", "confirmed", '"confirmed" is not one of CONFIRMED, LIKELY, DISMISSED'),
    ("verdict", ["CONFIRMED"], '["CONFIRMED"] is not one of CONFIRMED, LIKELY, DISMISSED'),
    ("evidence_strength", "strong", '"strong" is not one of direct, circumstantial, speculative'),
    ("context_completeness", 1, "1 is not one of full, partial, none"),
    ("drafter_severity", "critical", '"critical" is not one of high, medium, low'),
    ("verifier_severity", "", '"" is not one of high, medium, low'),
    ("in_diff", "True", 'must be true or false (or the strings "true"/"false"), not "True"'),
    ("in_diff", 1, 'must be true or false (or the strings "true"/"false"), not 1'),
    ("in_changed_code", "yes", 'must be true or false (or the strings "true"/"false"), not "yes"'),
    ("in_changed_code", None, 'must be true or false (or the strings "true"/"false"), not null'),
    ("issue", 5, "must be a string, not 5"),
    ("details", ["x"], 'must be a string, not ["x"]'),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_FIELDS)
def test_each_bad_field_is_named(field: str, value: object, message: str) -> None:
    assert problems_of([GOOD, {**GOOD, field: value}]) == [(f"/1/{field}", message)]


@pytest.mark.parametrize("field", list(GOOD))
def test_each_required_field_is_required(field: str) -> None:
    record = {name: value for name, value in GOOD.items() if name != field}
    assert problems_of([record]) == [(f"/0/{field}", "missing (required)")]


def test_every_problem_of_every_record_is_reported_in_one_run() -> None:
    document = json.loads((FIXTURES / "score.invalid-records.json").read_text())
    with pytest.raises(RecordsError) as caught:
        parse_score_records(document, "score.invalid-records.json")
    assert [(p.pointer, p.message.split(",")[0]) for p in caught.value.problems] == [
        ("/0/line", "must be a positive integer"),
        ("/0/verdict", '"MAYBE" is not one of CONFIRMED'),
        ("/2/line", "must be a positive integer"),
        ("/2/category", "missing (required)"),
        ("/2/verifier_severity", '"urgent" is not one of high'),
        ("/2/in_diff", 'must be true or false (or the strings "true"/"false")'),
        ("/2/in_changed_code", 'must be true or false (or the strings "true"/"false")'),
        ("/3", "must be an object"),
    ]
    message = str(caught.value)
    assert message.startswith(
        "score.invalid-records.json: 8 problems in 3 records; nothing was scored\n"
        '  score.invalid-records.json:/0/line: must be a positive integer, not "1e2"\n'
    )
    assert message.endswith("\n  score.invalid-records.json:/3: must be an object, not an array")
    assert isinstance(caught.value, InputError)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"findings": []}, "expected a JSON array of finding records, not an object"),
        ("[]", "expected a JSON array of finding records, not a string"),
        (None, "expected a JSON array of finding records, not null"),
    ],
)
def test_the_document_must_be_an_array(document: object, message: str) -> None:
    with pytest.raises(InputError, match=f"^in.json:/: {message}$"):
        parse_score_records(document, "in.json")


def test_an_empty_array_is_no_findings() -> None:
    assert parse_score_records([], "in.json") == []


# --- drafter and verifier output --------------------------------------------------------------


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def test_verifier_output_comes_back_converted() -> None:
    entries = parse_verifier_output(fixture("score.verifier.json"), "v.json")
    assert [index for index, _ in entries] == [0, 1, 2, 3]
    index, first = entries[1]
    assert first == {
        "verdict": Verdict.DISMISSED,
        "file": "src/cache/store.py",
        "line": 23,
        "severity": VerifierSeverity.LOW,
        "in_changed_code": True,
        "evidence_strength": EvidenceStrength.SPECULATIVE,
        "context_completeness": ContextCompleteness.PARTIAL,
    }


def test_drafter_output_requires_an_issue() -> None:
    document = {
        "findings": [
            {"file": "a.py", "line": 1, "severity": "low", "category": "other", "in_diff": True}
        ]
    }
    with pytest.raises(RecordsError) as caught:
        parse_drafter_output(document, "d.json")
    assert caught.value.problems == (
        RecordProblem("d.json", "/findings/0/issue", "missing (required)"),
    )


@pytest.mark.parametrize(
    ("document", "position", "message"),
    [
        ([], "/", 'expected a JSON object with a "verdicts" array, not an array'),
        ({}, "/verdicts", "expected an array of verdicts, not missing"),
        ({"verdicts": {}}, "/verdicts", "expected an array of verdicts, not an object"),
    ],
)
def test_verifier_output_shape(document: object, position: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_verifier_output(document, "v.json")
    assert (caught.value.position, caught.value.message) == (position, message)


def test_join_pairs_by_file_and_line_and_reports_what_did_not_match() -> None:
    joined = join_verdicts(
        fixture("score.drafter.json"),
        fixture("score.verifier.json"),
        drafter_source="d.json",
        verifier_source="v.json",
    )
    # Two findings on store.py:23 pair with that line's two verdicts, in order.
    assert [(r["file"], r["line"], r["category"], r["verdict"]) for r in joined.records] == [
        ("src/cache/store.py", 23, "concurrency", "CONFIRMED"),
        ("src/cache/store.py", 23, "other", "DISMISSED"),
        ("src/http/client.py", 58, "error_handling", "LIKELY"),
    ]
    assert joined.records[0] == {
        "file": "src/cache/store.py",
        "line": 23,
        "category": "concurrency",
        "verdict": "CONFIRMED",
        "evidence_strength": "direct",
        "context_completeness": "full",
        "drafter_severity": "high",
        "verifier_severity": "high",
        "in_diff": True,
        "in_changed_code": True,
        "issue": "Cache entry read and written without holding the lock",
        "details": "Two workers can interleave between the read and the write.",
        "verifier_issue": "Unsynchronised read-modify-write",
        "verifier_details": "store() releases the lock before writing.",
    }
    assert joined.unverified == (Unmatched("d.json", "/findings/3", "src/http/client.py", 90),)
    assert joined.unmatched_verdicts == (
        Unmatched("v.json", "/verdicts/3", "src/http/server.py", 12),
    )
    assert parse_score_records(list(joined.records), "d.json")[1].in_diff is True


def test_join_validates_both_documents_completely_first() -> None:
    drafter = {
        "findings": [
            {
                "file": "a.py",
                "line": 0,
                "severity": "low",
                "category": "x",
                "issue": "i",
                "in_diff": True,
            }
        ]
    }
    verifier = {
        "verdicts": [
            {
                "verdict": "NO",
                "file": "a.py",
                "line": 1,
                "severity": "low",
                "in_changed_code": True,
                "evidence_strength": "direct",
                "context_completeness": "full",
            }
        ]
    }
    with pytest.raises(RecordsError) as caught:
        join_verdicts(drafter, verifier, drafter_source="d.json", verifier_source="v.json")
    assert [problem.describe().split(":")[0:2] for problem in caught.value.problems] == [
        ["d.json", "/findings/0/line"],
        ["d.json", "/findings/0/category"],
        ["v.json", "/verdicts/0/verdict"],
    ]
    assert str(caught.value).startswith("d.json, v.json: 3 problems in 2 records;")


# --- the shipped JSON Schemas agree with the validator ----------------------------------------


def schema(name: str) -> jsonschema.Draft202012Validator:
    text = resources.files("review_quorum").joinpath("schemas", name).read_text("utf-8")
    document = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def test_the_schemas_ship_inside_the_package_and_accept_the_fixtures() -> None:
    schema("drafter-output.schema.json").validate(fixture("score.drafter.json"))
    schema("verifier-output.schema.json").validate(fixture("score.verifier.json"))


VERDICT: dict[str, Any] = {
    "verdict": "LIKELY",
    "file": "a.py",
    "line": 3,
    "severity": "medium",
    "in_changed_code": True,
    "evidence_strength": "direct",
    "context_completeness": "none",
}
DRAFT: dict[str, Any] = {
    "file": "a.py",
    "line": 3,
    "severity": "high",
    "category": "security",
    "issue": "Injection",
    "in_diff": "false",
}


def _variants(base: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    changes: list[tuple[dict[str, Any], bool]] = [
        ({}, True),
        ({"line": "42"}, True),
        ({"line": "0"}, False),
        ({"line": "1e2"}, False),
        ({"line": True}, False),
        ({"line": 0}, False),
        ({"file": ""}, False),
        ({"details": None, "extra": [1]}, True),
        ({"details": 3}, False),
        ({"severity": "critical"}, False),
    ]
    flag = "in_changed_code" if "verdict" in base else "in_diff"
    changes += [({flag: "true"}, True), ({flag: "TRUE"}, False), ({flag: 0}, False)]
    changes += [({name: None}, False) for name in base]
    return [({**base, **change}, valid) for change, valid in changes]


@pytest.mark.parametrize(("record", "valid"), _variants(VERDICT), ids=str)
def test_verifier_schema_and_validator_agree(record: dict[str, Any], valid: bool) -> None:
    document = {"verdicts": [record]}
    assert schema("verifier-output.schema.json").is_valid(document) is valid
    assert _runtime_accepts(parse_verifier_output, document) is valid


@pytest.mark.parametrize(("record", "valid"), _variants(DRAFT), ids=str)
def test_drafter_schema_and_validator_agree(record: dict[str, Any], valid: bool) -> None:
    document = {"findings": [record]}
    assert schema("drafter-output.schema.json").is_valid(document) is valid
    assert _runtime_accepts(parse_drafter_output, document) is valid


def test_the_one_known_difference_integral_floats() -> None:
    # JSON Schema counts 1.0 as an integer; quorum wants an integer literal.
    document = {"verdicts": [{**VERDICT, "line": 1.0}]}
    assert schema("verifier-output.schema.json").is_valid(document)
    assert not _runtime_accepts(parse_verifier_output, document)


def _runtime_accepts(parse: Any, document: object) -> bool:
    try:
        parse(document, "doc.json")
    except RecordsError:
        return False
    return True


# --- the fast path for canonical records beside the field-by-field path -------------------
# `parse_score_records` takes records in canonical form (JSON integers and booleans) by a
# fast path and everything else field by field; both must agree, above all at the edges.

EDGES = [
    ({"line": 1}, {"line": "1"}),
    ({"line": 2147483647}, {"line": "2147483647"}),
    ({"in_diff": False, "in_changed_code": True}, {"in_diff": "false", "in_changed_code": "true"}),
    ({"issue": "", "details": ""}, {"issue": None, "details": None}),
]


@pytest.mark.parametrize(("canonical", "loose"), EDGES)
def test_both_paths_agree_on_the_edges_they_accept(
    canonical: dict[str, object], loose: dict[str, object]
) -> None:
    fast, careful = parse_score_records([{**GOOD, **canonical}, {**GOOD, **loose}], "in.json")
    assert fast == careful


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (0, "must be a positive integer, not 0"),
        (2147483648, "must be at most 2147483647, not 2147483648"),
        ("2147483648", 'must be at most 2147483647, not "2147483648"'),
        (True, "must be a positive integer, not true"),
    ],
)
def test_both_paths_refuse_the_first_line_beyond_each_edge(line: object, message: str) -> None:
    assert problems_of([{**GOOD, "line": line}]) == [("/0/line", message)]


@settings(max_examples=examples(200), deadline=None)
@given(
    changes=st.dictionaries(
        st.sampled_from(sorted(GOOD)),
        st.none()
        | st.booleans()
        | st.integers(-3, 2**31 + 3)
        | st.text(max_size=4)
        | st.sampled_from(["true", "false", "12", "security", "LIKELY", "full", "high"]),
        max_size=3,
    )
)
def test_the_fast_path_takes_only_what_the_careful_path_would(
    changes: dict[str, object],
) -> None:
    record = {**GOOD, **changes}
    report: list[tuple[str, str]] = []
    careful = check_record(
        record, "/0", SCORE_FIELDS, OPTIONAL_TEXT, lambda *problem: report.append(problem)
    )
    try:
        (fast,) = parse_score_records([record], "in.json")
    except RecordsError as err:
        assert careful is None
        assert [(p.pointer, p.message) for p in err.problems] == report
    else:
        assert careful is not None and fast == FindingInput(**careful)
