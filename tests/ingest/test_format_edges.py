"""Issue 33 items 13-18: valid input from real tools that was refused or half-read, each
written here from the format's specification."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from review_quorum import ingest
from review_quorum.cli import main
from review_quorum.errors import InputError
from review_quorum.ingest import sarif
from review_quorum.ingest.base import Source


def read(document: object, format: str | None = None) -> ingest.Batch:
    return ingest.read(Source("in.json", json.dumps(document).encode()), format)


def code_quality(**issue: Any) -> list[dict[str, Any]]:
    base = {"description": "Image has a known vulnerability.", "check_name": "CVE-2026-0001",
            "fingerprint": "f1", "severity": "major",
            "location": {"path": "Dockerfile", "lines": {"begin": 3}}}  # fmt: skip
    return [{**base, **issue}]


# --- 13. GitLab Code Quality: a line of 0 means no line ---------------------------------


@pytest.mark.parametrize(
    "location",
    [
        {"path": "Dockerfile", "lines": {"begin": 0}},
        {"path": "Dockerfile", "lines": {"begin": 0, "end": 0}},
        {"path": "Dockerfile", "positions": {"begin": {"line": 0}, "end": {"line": 0}}},
    ],
)
def test_code_quality_line_zero_is_no_line(location: dict[str, Any]) -> None:
    batch = read(code_quality(location=location), "gitlab")
    assert batch.skipped == []
    assert [(f.file, f.line, f.evidence.end_line) for f in batch.findings] == [
        ("Dockerfile", None, None)
    ]


def test_code_quality_negative_lines_are_still_refused() -> None:
    batch = read(code_quality(location={"path": "a", "lines": {"begin": -1}}), "gitlab")
    assert [s.reason for s in batch.skipped] == [
        "field 'location.lines.begin' must be a positive integer"
    ]


# --- 14. GitLab Code Quality: other severity names are GitLab's "unknown" ----------------


@pytest.mark.parametrize(
    ("given", "severity"),
    [("warning", "medium"), ("WARNING", "medium"), ("Critical", "high"), ("minor", "low")],
)
def test_code_quality_severities_as_gitlab_maps_them(given: str, severity: str) -> None:
    batch = read(code_quality(severity=given), "gitlab")
    assert ([f.severity.label for f in batch.findings], batch.skipped) == ([severity], [])


def test_code_quality_severity_that_is_not_a_name_is_refused() -> None:
    batch = read(code_quality(severity=3), "gitlab")
    assert [s.reason for s in batch.skipped] == [
        "unknown severity 3 (expected info, minor, major, critical, blocker)"
    ]


# --- 15. SARIF suppressions: accepted, and none rejected or under review ----------------


def sarif_log(*results: dict[str, Any], **run: Any) -> dict[str, Any]:
    return {"version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "CodeQL", **run.pop("driver", {})}},
                      "results": list(results), **run}]}  # fmt: skip


def result(title: str, **extra: Any) -> dict[str, Any]:
    return {"ruleId": "js/xss", "level": "error", "message": {"text": title},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.js"},
                                                "region": {"startLine": 2}}}], **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("suppressions", "kept"),
    [
        ([{"kind": "inSource", "status": "underReview"}], True),
        ([{"kind": "inSource"}, {"kind": "external", "status": "rejected"}], True),
        ([{"kind": "inSource", "status": "accepted"},
          {"kind": "external", "status": "underReview"}], True),
        ([{"kind": "external", "status": "rejected"}], True),
        ([{"kind": "inSource"}], False),
        ([{"kind": "inSource", "status": "accepted"}, {"kind": "external"}], False),
        ([{"kind": "inSource", "status": None}], False),
    ],
    ids=["under-review", "accepted-and-rejected", "accepted-and-under-review", "rejected",
         "absent-status", "two-accepted", "null-status"],
)  # fmt: skip
def test_sarif_suppressed_only_when_accepted_and_none_rejected_or_under_review(
    suppressions: list[dict[str, Any]], kept: bool
) -> None:
    batch = read(sarif_log(result("Cross-site scripting.", suppressions=suppressions)))
    assert [f.title for f in batch.findings] == (["Cross-site scripting"] if kept else [])
    assert [s.position for s in batch.skipped] == (
        [] if kept else ["/runs/0/results/0/suppressions"]
    )


# --- 16 is in tests/ingest/test_rdjson.py -------------------------------------------------

# --- 17. SARIF "runs": null: the tool did not run --------------------------------------


def test_sarif_runs_null_is_an_empty_review_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "scan.sarif"
    log.write_text('{"version": "2.1.0", "runs": null}')
    assert ingest.detect_format(Source("scan.sarif", log.read_bytes())) == "sarif"
    for flags in (["--allow-empty"], ["--input-format", "sarif", "--allow-empty"]):
        assert main(["consensus", *flags, "--format", "json", str(log)]) == 0
        out, _ = capsys.readouterr()
        report = json.loads(out)
        assert report["findings"] == []
        assert [(s["position"], s["reason"]) for s in report["skipped"]] == [
            ("/runs", sarif.NOT_RUN)
        ]
    assert main(["consensus", str(log)]) == 2  # a tool that did not run passes no gate
    assert sarif.NOT_RUN in capsys.readouterr().err


def test_sarif_schema_named_log_with_null_runs_is_detected() -> None:
    data = b'{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "runs": null}'
    assert ingest.detect_format(Source("x.json", data)) == "sarif"
    with pytest.raises(InputError, match="expected an array of runs"):
        ingest.detect_format(Source("x.json", b'{"runs": null}'))  # nothing says SARIF


# --- 18. SARIF "ruleId": "" with a valid ruleIndex ----------------------------------------


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "generic"])
def test_empty_rule_id_takes_the_indexed_rule(odd: bool) -> None:
    rules = [{"id": "py/sql-injection", "shortDescription": {"text": "SQL injection"}}]
    extra: dict[str, Any] = {"ruleId": "", "ruleIndex": 0}
    if odd:  # an argument of another type makes the typed decode refuse the file
        extra["message"] = {"text": "Query built from input.", "arguments": [1]}
    log = sarif_log(result("Query built from input.", **extra), driver={"rules": rules})
    batch = read(log)
    assert [(f.rule_id, f.finding_id) for f in batch.findings] == [
        ("py/sql-injection", "py/sql-injection")
    ]
