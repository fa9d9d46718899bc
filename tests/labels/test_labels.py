"""Label formats: review-bots-dev units, OWASP expectedresults CSV, generic line labels."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES
from review_quorum import InputError, labels
from review_quorum.labels import lines, owasp, review_bots
from review_quorum.labels.base import Metrics, Run
from review_quorum.model import Evidence, NormalizedFinding, Severity

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
        (
            "bad.csv",
            '# h\n"a\nb",x,true,1\n\nBenchmarkTest2,x,no,1\n',
            "line 5: 'real vulnerability'",
        ),
        ("bad.csv", "BenchmarkTest00001,sqli,true,CWE-89\n", "line 1: CWE must be a number"),
        ("bad.csv", "BenchmarkTest00001,sqli,true,\u00b2\n", "line 1: CWE must be a number"),
        ("bad.csv", "B1,sqli,true," + "9" * 5000 + "\n", "line 1: CWE must be at most 2147483647"),
        ("bad.csv", "# only a header\n", ": no test cases"),
        (
            "bad.csv",
            '# h\nB1,x,true,1\nB2,"' + "x" * 200_000 + '",true,1\n',
            "line 3: unreadable CSV",
        ),
        ("bad.csv", "# h\rB1,x,true,1\rB2,x,no,1\r", "line 3: 'real vulnerability'"),
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


def test_an_owasp_cwe_may_have_thousands_of_leading_zeros(tmp_path: Path) -> None:
    path = tmp_path / "expected.csv"
    path.write_text("B1,sqli,true," + "0" * 5000 + "89\n")
    assert owasp.load(path).cases["B1"].cwe == 89


def test_missing_beside_files_are_named(tmp_path: Path) -> None:
    units = tmp_path / "units.jsonl"
    units.write_text(UNITS.read_text())
    with pytest.raises(InputError, match="golden.jsonl: cannot read"):
        review_bots.load(units)


UNIT = {"judge": "j", "pr": "o/r#1", "tool": "alpha", "unit": 0, "text": "t", "label": "tp"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"golden": 5}, "line 1: 'golden' must be a list of golden ids, not 5"),
        ({"golden": "o/r#1:g0"}, "line 1: 'golden' must be a list of golden ids, not \"o/r#1:g0\""),
        ({"tool": ""}, "line 1: 'tool' must be a non-empty string, not \"\""),
        ({"tool": None}, "line 1: 'tool' must be a non-empty string, not null"),
        ({"pr": {"a": 1}}, "line 1: 'pr' must be a non-empty string, not {\"a\": 1}"),
        ({"unit": True}, "line 1: 'unit' must be a number or a string, not true"),
        ({"text": 5}, "line 1: 'text' must be a string, not 5"),
        ({"label": "maybe"}, "line 1: 'label' must be tp, fp or trigger, not \"maybe\""),
        ({"label": None}, "line 1: 'label' must be tp, fp or trigger, not null"),
    ],
)
def test_review_bots_unit_fields_of_the_wrong_type_are_errors_at_their_line(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    units = tmp_path / "units.jsonl"
    units.write_text(json.dumps({**UNIT, **change}) + "\n")
    (tmp_path / "golden.jsonl").write_text("")
    (tmp_path / "reviewed.json").write_text('{"j": {"o/r#1": ["alpha"]}}')
    with pytest.raises(InputError) as caught:
        review_bots.load(units)
    assert str(caught.value) == f"{units}:{message}"


@pytest.mark.parametrize(
    ("reviewed", "message"),
    [
        ('{"j": {"o/r#1": 5}}', "/j/o~1r#1: expected a list of tool names, not 5"),
        ('{"j": {"o/r#1": "alpha"}}', '/j/o~1r#1: expected a list of tool names, not "alpha"'),
        ('{"j": {"o/r#1": ["alpha", null]}}', "/j/o~1r#1: expected a list of tool names"),
        ('{"j": {"o/r#1": ["alpha", ""]}}', "/j/o~1r#1: expected a list of tool names"),
    ],
)
def test_review_bots_reviewed_tools_must_be_lists_of_names(
    tmp_path: Path, reviewed: str, message: str
) -> None:
    units = tmp_path / "units.jsonl"
    units.write_text(json.dumps(UNIT) + "\n")
    (tmp_path / "golden.jsonl").write_text("")
    (tmp_path / "reviewed.json").write_text(reviewed)
    with pytest.raises(InputError) as caught:
        review_bots.load(units)
    assert str(caught.value).startswith(f"{tmp_path / 'reviewed.json'}:{message}")


# --- line ranges are intervals: the same answers as the per-line definition ---------------

LABEL_RANGES = st.lists(
    st.tuples(
        st.sampled_from(["a.py", "b.py"]),
        st.integers(1, 30),
        st.integers(0, 8),
        st.sampled_from(["", "security", "bug"]),
        st.booleans(),
    ),
    max_size=8,
)
FINDINGS = st.lists(
    st.tuples(
        st.sampled_from(["a.py", "b.py", "c.py"]),
        st.one_of(st.none(), st.integers(1, 40)),
        st.integers(0, 6),
        st.sampled_from(["security", "bug"]),
        st.sampled_from([1.0, 0.5]),
    ),
    max_size=8,
)


def per_line(ranges: list[tuple[str, int, int, str, bool]]) -> dict[tuple[str, int], str]:
    """Real lines one by one, as the labels define them: the last range's category wins."""
    real = {}
    for file, start, length, category, is_real in ranges:
        if is_real:
            real.update(
                dict.fromkeys(((file, n) for n in range(start, start + length + 1)), category)
            )
    return real


def per_line_hits(
    real: dict[tuple[str, int], str], finding: NormalizedFinding
) -> set[tuple[str, int]]:
    evidence = finding.evidence
    if evidence.line is None:
        return set()
    window = range(evidence.line - lines.TOLERANCE, (evidence.end_line or evidence.line) + 2)
    return {
        (evidence.file, n)
        for n in window
        if (evidence.file, n) in real
        and (
            not real[evidence.file, n]
            or finding.category_certainty < 1
            or finding.category == real[evidence.file, n]
        )
    }


@given(LABEL_RANGES, FINDINGS)
def test_line_ranges_score_as_their_lines_one_by_one(
    ranges: list[tuple[str, int, int, str, bool]],
    specs: list[tuple[str, int | None, int, str, float]],
) -> None:
    text = "".join(
        json.dumps({"file": f, "start_line": s, "end_line": s + n, "category": c, "real": r}) + "\n"
        for f, s, n, c, r in ranges
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "labels.jsonl"
        path.write_text(text)
        label_set = lines.load(path)
    findings = [
        NormalizedFinding(
            "bot", str(index), Severity.MEDIUM, category, "t",
            Evidence(file, line, end_line=None if line is None else line + extra),
            category_certainty=certainty,
        )
        for index, (file, line, extra, category, certainty) in enumerate(specs)
    ]  # fmt: skip
    real = per_line(ranges)
    hits = [per_line_hits(real, finding) for finding in findings]
    run = Run("all", tuple(findings))
    assert [label_set.truth(run, finding) for finding in findings] == [bool(hit) for hit in hits]
    spans: dict[tuple[str, int, int | None], set[tuple[str, int]]] = {}
    for finding, hit in zip(findings, hits, strict=True):
        if finding.evidence.line is not None:
            key = (finding.evidence.file, finding.evidence.line, finding.evidence.end_line)
            spans.setdefault(key, set()).update(hit)
    found = set().union(*spans.values())
    expected = Metrics.of(
        len(spans), sum(1 for hit in spans.values() if hit), len(found), len(real)
    )
    assert label_set.score([(run, findings)]) == expected


def test_ranges_are_held_as_disjoint_segments_the_latest_category_winning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"file": "a.py", "start_line": 1, "end_line": 1000, "real": true}\n'
        '{"file": "a.py", "start_line": 50, "end_line": 60, "category": "bug", "real": true}\n'
        '{"file": "a.py", "start_line": 55, "end_line": 70, "real": false}\n'
        '{"file": "a.py", "start_line": 58, "end_line": 59, "category": "", "real": true}\n'
    )
    label_set = lines.load(path)
    assert label_set.real == {
        "a.py": [(1, 49, ""), (50, 57, "bug"), (58, 59, ""), (60, 60, "bug"), (61, 1000, "")]
    }
    wide = NormalizedFinding(
        "b", "1", Severity.LOW, "security", "t", Evidence("a.py", 1, end_line=2000)
    )
    assert label_set.score([(Run("all", (wide,)), [wide])]) == Metrics.of(1, 1, 991, 1000)
