"""Label formats: review-bots-dev units, OWASP expectedresults CSV, generic line labels."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum import InputError, labels
from review_quorum.labels import lines, owasp, review_bots

LABELS = FIXTURES / "labels"
UNITS = LABELS / "review-bots" / "units.jsonl"


def test_review_bots_units_become_native_findings_per_pull_request() -> None:
    label_set = labels.load(UNITS, judge="judge-a")
    runs = label_set.runs([], None)
    assert [(run.name, run.bots_ran, len(run.findings)) for run in runs] == [
        ("shop/shop#1", 3, 3),
        ("shop/shop#2", 3, 2),
    ]
    first = runs[0].findings[0]
    assert (first.bot, first.finding_id, first.category, first.evidence.file) == (
        "alpha",
        "0",
        "other",
        "",
    )
    assert first.evidence.line is None and first.severity.label == "medium"


def test_review_bots_scoring_follows_the_readme_rule() -> None:
    label_set = labels.load(UNITS, judge="judge-a")
    first, second = label_set.runs([], None)
    race = (first, first.findings[:2])  # two tp units: true, credited g0
    lumped = (first, first.findings)  # 2 tp of 3 units: still true, same credit
    naming = (first, first.findings[2:])  # fp
    migration = (second, second.findings[:1])
    metrics = label_set.score([race, lumped, naming, migration])
    assert (metrics.kept, metrics.true) == (4, 3)
    assert (metrics.precision, metrics.recall) == (0.75, 1.0)
    half = label_set.score([(second, second.findings)])  # one tp, one fp: half is enough
    assert (half.true, half.recall) == (1, 0.5)


def test_review_bots_judge_is_chosen_by_substring() -> None:
    label_set = labels.load(UNITS, judge="b")
    assert [len(run.findings) for run in label_set.runs([], None)] == [1]
    with pytest.raises(InputError, match="judge 'judge' matches"):
        labels.load(UNITS, judge="judge")


def test_review_bots_labels_refuse_other_findings() -> None:
    label_set = labels.load(UNITS, judge="judge-a")
    run = label_set.runs([], None)[0]
    with pytest.raises(InputError, match="carry their own findings"):
        label_set.runs(run.findings, None)


def test_detection_by_name_and_content() -> None:
    assert labels.detect(UNITS) == "review-bots"
    assert labels.detect(LABELS / "owasp.expectedresults.csv") == "owasp"
    assert labels.detect(LABELS / "lines.labels.jsonl") == "jsonl"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bad.jsonl", '{"file": "a.js", "line": 1, "real": true}\nnope\n', "line 2: invalid JSON"),
        ("bad.jsonl", '{"file": "", "line": 1, "real": true}\n', "line 1: 'file' must be"),
        ("bad.jsonl", '{"file": "a.js", "line": 0, "real": true}\n', "line 1: 'line'"),
        ("bad.jsonl", '{"file": "a.js", "line": 2, "real": "yes"}\n', "line 1: 'real' must be"),
        ("bad.jsonl", "[1]\n", "line 1: expected a JSON object"),
        ("bad.csv", "BenchmarkTest00001,sqli,true\n", "line 1: expected 4 columns"),
        ("bad.csv", "# h\nBenchmarkTest00001,sqli,maybe,89\n", "line 2: 'real vulnerability'"),
        ("bad.csv", "BenchmarkTest00001,sqli,true,CWE-89\n", "line 1: CWE must be a number"),
        ("bad.csv", "# only a header\n", ": no test cases"),
    ],
)
def test_label_errors_name_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        (owasp.load if name.endswith(".csv") else lines.load)(path)
    separator = "" if message.startswith(":") else ":"  # a position, or none
    assert str(caught.value).startswith(f"{path}{separator}{message}")


def test_missing_beside_files_are_named(tmp_path: Path) -> None:
    units = tmp_path / "units.jsonl"
    units.write_text(UNITS.read_text())
    with pytest.raises(InputError, match="golden.jsonl: cannot read"):
        review_bots.load(units)
