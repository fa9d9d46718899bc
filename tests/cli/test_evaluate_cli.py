"""`quorum evaluate` and `quorum calibrate`: tables, JSON, profiles, errors, shared corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO_ROOT, shared_path
from review_quorum import Profile
from review_quorum.cli import main

LABELS = FIXTURES / "labels"
OWASP = [str(LABELS / "owasp.expectedresults.csv"), str(LABELS / "owasp.findings.json")]
UNITS = str(LABELS / "review-bots" / "units.jsonl")

OWASP_TABLE = """\
Against {labels}:
       policy                               kept  true      P      R     F1    TPR    FPR  TPR-FPR
source codeql                                  2     2  1.000  1.000  1.000  1.000  0.000    1.000
source semgrep                                 2     1  0.500  0.500  0.500  0.500  0.500    0.000
policy union                                   3     2  0.667  1.000  0.800  1.000  0.500    0.500
"""


def test_owasp_table_has_rates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", *OWASP, "--bots", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(OWASP_TABLE.format(labels=OWASP[0]))
    assert "policy agreement >= confirmed                  1     1  1.000  0.500  0.667" in out
    assert len(out.splitlines()) == 2 + 2 + 1 + 2 * 7


def test_review_bots_json_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", UNITS, "--judge", "judge-a", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {(row["kind"], row["name"]): row for row in document["rows"]}
    assert rows[("source", "alpha")] == {
        "kind": "source", "name": "alpha", "kept": 2, "true": 2,
        "precision": 1.0, "recall": 1.0, "f1": 1.0,
    }  # fmt: skip
    assert rows[("policy", "union")]["kept"] == 5
    assert rows[("policy", "reliability clusters of >= 2 bots")]["kept"] == 1


def test_calibrate_writes_a_profile_consensus_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "profile.json"
    argv = ["calibrate", UNITS, "--judge", "judge-a", "--origin", "test", "-o", str(path)]
    assert main(argv) == 0
    profile = Profile.load(path)
    assert [(s.bot, s.reliability, s.true, s.false) for s in profile.sources[:3]] == [
        ("alpha", 0.5855, 2, 0),
        ("beta", 0.4945, 1, 1),
        ("gamma", 0.444, 0, 1),
    ]
    # the learned sources extend the shipped profile, which keeps everything else
    assert profile.sources[3:] == Profile.default().sources
    assert capsys.readouterr().err.splitlines() == [
        "quorum: calibrate: 3 source(s) learned over the shipped profile; what moved:",
        "quorum:   alpha: new, 0.586 (2 decided)",
        "quorum:   beta: new, 0.494 (2 decided)",
        "quorum:   gamma: new, 0.444 (1 decided)",
    ]
    findings = str(FIXTURES / "native.three-bots.json")
    assert main(["consensus", findings, "--bots", "3", "--profile", str(path)]) in (0, 1)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--bot", "alpha"], "--bot: for calibrating from the history; LABELS are given"),
        (
            ["--db", "h.db", "--since", "2026-01-01"],
            "--db, --since: for calibrating from the history; LABELS are given",
        ),
        (
            ["--min-decided", "5", "--repo", "o/r"],
            "--repo, --min-decided: for calibrating from the history; LABELS are given",
        ),
        (["--config", "q.toml"], "--config: for calibrating from the history; LABELS are given"),
    ],
)
def test_calibrate_from_labels_refuses_the_history_options(
    capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    assert main(["calibrate", UNITS, "--judge", "judge-a", *flags]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"quorum: error: {message}\n")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--judge", "a"], "--judge: for calibrating from LABELS [FINDINGS]; none are given"),
        (
            ["--origin", "x", "--bots", "3"],
            "--bots, --origin: for calibrating from LABELS [FINDINGS]; none are given",
        ),
        (
            ["--tolerance", "4", "--any-category"],
            "--tolerance, --any-category: for calibrating from LABELS [FINDINGS]; none are given",
        ),
        (
            ["--ignore-rule", "x*", "--root", "."],
            "--ignore-rule, --root: for calibrating from LABELS [FINDINGS]; none are given",
        ),
    ],
)
def test_calibrate_from_the_history_refuses_the_labels_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    assert main(["calibrate", "--db", str(tmp_path / "none.db"), *flags]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"quorum: error: {message}\n")


def test_missing_labels_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "no-such-labels.csv"]) == 2
    assert capsys.readouterr().err.startswith("quorum: error: no-such-labels.csv: cannot read")


def score_of(rows: list[dict[str, object]], name: str) -> tuple[object, ...]:
    row = next(row for row in rows if row["name"] == name)
    return (row["precision"], row["recall"], row["f1"])


def test_review_bots_dev_reference_figures(capsys: pytest.CaptureFixture[str]) -> None:
    units = shared_path("corpora", "review-bots-dev", "units.jsonl")
    assert main(["evaluate", str(units), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert score_of(rows, "augment") == (0.431, 0.6267, 0.5108)
    assert score_of(rows, "union") == (0.3571, 0.92, 0.5145)


def test_securibench_reference_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = shared_path("corpora", "securibench-micro-js")
    monkeypatch.syspath_prepend(REPO_ROOT / "bench")  # for this test only
    from judgement import bad_lines  # bench/judgement.py: BAD markers as line labels

    label_path = tmp_path / "bad.jsonl"
    label_path.write_text(bad_lines(folder))
    sarif = [str(folder / "sarif" / f"{name}.sarif") for name in ("eslint", "njsscan", "semgrep")]
    noise = ["--ignore-rule", "*detect-object-injection", "--ignore-rule", "*useless-assignment"]
    argv = ["evaluate", str(label_path), *sarif, *noise, "--bots", "3", "--format", "json"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert score_of(rows, "union") == (0.8523, 0.7458, 0.7955)
    assert score_of(rows, "agreement >= confirmed") == (0.7976, 0.4661, 0.5884)
