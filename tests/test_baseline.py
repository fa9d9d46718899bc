"""`quorum review --baseline`: a base SARIF, a head SARIF and a diff that shifts lines give
the right SARIF `baselineState` (unchanged, new, absent), the pre-existing finding is
listed apart and not gated on, and bad baselines are clear errors naming the file."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest

from review_quorum.cli import main
from review_quorum.scope import DiffScope

BASE = [
    "import os",
    "",
    "def query(q):",
    '    cursor.execute("SELECT " + q)',
    "    return 1",
    "",
    "",
    "",
    "",
    "def run(cmd):",
    "    os.system(cmd)",
    "",
]
HEAD = [
    "import os",
    "import subprocess",
    "import sys",
    "",
    "def query(q):",
    '    cursor.execute("SELECT " + q)',
    "    return 1",
    "",
    "",
    "",
    "",
    "def run(cmd):",
    "    subprocess.run(cmd, shell=True)",
    "",
]


def sarif(results: list[tuple[str, int, str]], path: str = "app.py") -> dict[str, Any]:
    """A SARIF log of one tool with (rule, line, message) results in `path`."""
    return {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "bandit", "rules": []}},
                "results": [
                    {
                        "ruleId": rule,
                        "level": "error",
                        "message": {"text": text},
                        "properties": {"issue_severity": "HIGH", "tags": ["security"]},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": path},
                                    "region": {"startLine": line},
                                }
                            }
                        ],
                    }
                    for rule, line, text in results
                ],
            }
        ],
    }


SQL = ("B608", "Possible SQL injection vector through string-based query construction")
SHELL = ("B605", "Starting a process with a shell: command injection")
SHELL_TRUE = ("B602", "subprocess call with shell=True identified, security issue")


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    lines = difflib.unified_diff(
        [f"{line}\n" for line in BASE], [f"{line}\n" for line in HEAD], "a/app.py", "b/app.py", n=1
    )
    (tmp_path / "pr.diff").write_text("".join(lines), encoding="utf-8")
    base = sarif([(SQL[0], 4, SQL[1]), (SHELL[0], 11, SHELL[1])])
    head = sarif([(SQL[0], 6, SQL[1]), (SHELL_TRUE[0], 13, SHELL_TRUE[1])])
    (tmp_path / "base.sarif").write_text(json.dumps(base), encoding="utf-8")
    (tmp_path / "head.sarif").write_text(json.dumps(head), encoding="utf-8")
    (tmp_path / "head").mkdir()
    (tmp_path / "head" / "app.py").write_text("\n".join(HEAD) + "\n", encoding="utf-8")
    return tmp_path


def review(*extra: str, fmt: str = "sarif") -> tuple[int, Any]:
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "--filter-mode"]
    argv += ["nofilter", "--gate-level", "unverified", "--format", fmt, "-o", "out", *extra]
    status = main(argv)
    return status, json.loads(Path("out").read_text(encoding="utf-8"))


def states(log: dict[str, Any]) -> list[tuple[str, int, str]]:
    return sorted(
        (
            result["baselineState"],
            result["locations"][0]["physicalLocation"]["region"]["startLine"],
            result["ruleId"],
        )
        for result in log["runs"][0]["results"]
    )


def test_the_sql_line_outside_every_hunk_is_mapped_from_base_4_to_head_6(scene: Path) -> None:
    diff = DiffScope.parse((scene / "pr.diff").read_text(encoding="utf-8"))
    assert 4 not in diff.files["app.py"].old_lines  # outside the hunks: mapped by the shift
    assert diff.head_place("app.py", 4) == ("app.py", 6)
    assert diff.head_place("app.py", 11) == ("app.py", None)  # rewritten


def test_unchanged_new_and_absent_in_sarif_and_the_gate_ignores_unchanged(
    scene: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, log = review("--baseline", "base.sarif", "--checkout", str(scene / "head"))
    assert states(log) == [
        ("absent", 11, "security"),
        ("new", 13, "security"),
        ("unchanged", 6, "security"),
    ]
    assert status == 1  # the new shell=True call fails the gate
    status, report = review("--baseline", "base.sarif", fmt="json")
    by_line = {f["line"]: f for f in report["findings"]}
    assert by_line[6]["baseline_state"] == "unchanged"
    assert by_line[13]["baseline_state"] == "new"
    assert [(f["line"], f["title"]) for f in report["baseline"]["absent"]] == [(11, SHELL[1])]
    assert [f["line"] for f in report["findings"] if f in report["findings"]] == [6, 13]
    assert report["gate"]["count"] == 1  # the new one only
    body = report["summary_markdown"]
    assert "1 pre-existing, 1 fixed by this pull request" in body
    assert "<details><summary>1 pre-existing" in body


def test_gate_on_all_counts_the_pre_existing_finding_too(scene: Path) -> None:
    _, report = review("--baseline", "base.sarif", "--gate-on", "all", fmt="json")
    assert report["gate"]["count"] == 2
    Path(".quorum.toml").write_text('gate-on = "all"\n', encoding="utf-8")
    _, report = review("--baseline", "base.sarif", fmt="json")
    assert report["gate"]["count"] == 2


def test_a_baseline_with_only_the_pre_existing_finding_passes_the_gate(scene: Path) -> None:
    head = sarif([(SQL[0], 6, SQL[1])])
    Path("head.sarif").write_text(json.dumps(head), encoding="utf-8")
    status, log = review("--baseline", "base.sarif")
    assert status == 0
    assert ("unchanged", 6, "security") in states(log)
    status, _ = review()
    assert status == 1  # without a baseline every finding in scope counts


def test_a_saved_plan_is_a_baseline_too(scene: Path) -> None:
    argv = ["review", "base.sarif", "--bots", "1", "--format", "json", "-o", "base.json"]
    assert main(argv) in (0, 1)
    _, log = review("--baseline", "base.json")
    assert ("unchanged", 6, "security") in states(log)


@pytest.mark.parametrize(
    ("encoding", "mark"), [("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe")]
)
def test_a_saved_plan_with_a_byte_order_mark_is_a_baseline_too(
    scene: Path, encoding: str, mark: bytes
) -> None:
    """As PowerShell's `>` writes it: a plan is read whatever encoding inputs may have."""
    argv = ["review", "base.sarif", "--bots", "1", "--format", "json", "-o", "base.json"]
    assert main(argv) in (0, 1)
    text = Path("base.json").read_text(encoding="utf-8")
    Path("base.json").write_bytes(mark + text.encode(encoding))
    _, log = review("--baseline", "base.json")
    assert ("unchanged", 6, "security") in states(log)


def test_gate_on_without_a_baseline_says_it_falls_back_to_the_diff_scope(
    scene: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    review("--gate-on", "new")
    assert "no --baseline: the gate counts every finding in the diff scope" in (
        capsys.readouterr().err
    )


def test_a_baseline_in_an_unknown_format_is_an_error_naming_the_file(
    scene: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("base.txt").write_bytes(b"\x00\x01 not findings")
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "--baseline", "base.txt"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "base.txt" in err and "Traceback" not in err


def test_a_baseline_of_another_repositorys_paths_is_an_error_naming_the_file(
    scene: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = sarif([(SQL[0], 4, SQL[1])], path="vendor/elsewhere/main.go")
    Path("other.sarif").write_text(json.dumps(other), encoding="utf-8")
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "--baseline", "other.sarif"]
    assert main([*argv, "-o", "out"]) == 2
    err = capsys.readouterr().err
    assert "other.sarif" in err and "names none of the files of this review" in err
    assert not Path("out").exists()


def test_a_pre_existing_finding_is_not_posted_inline_and_a_changed_severity_is_updated(
    scene: Path,
) -> None:
    argv = ("--baseline", "base.sarif", "--inline-level", "unverified", "--threshold", "30")
    _, report = review(*argv, fmt="json")
    inline = [c["line"] for c in report["github_review"]["comments"]]
    assert 13 in inline and 6 not in inline
    base = sarif([(SQL[0], 4, SQL[1]), (SHELL[0], 11, SHELL[1])])
    base["runs"][0]["results"][0]["level"] = "note"
    base["runs"][0]["results"][0]["properties"]["issue_severity"] = "LOW"
    Path("base.sarif").write_text(json.dumps(base), encoding="utf-8")
    _, log = review("--baseline", "base.sarif")
    assert ("updated", 6, "security") in states(log)
    _, report = review("--baseline", "base.sarif", fmt="json")
    assert report["gate"]["count"] == 2  # an updated finding is gated on


BASE_SHA = "b" * 40


def test_the_run_the_history_recorded_for_the_merge_base_is_a_baseline(
    scene: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUORUM_HISTORY_DB", str(scene / "history.db"))
    record = ["review", "base.sarif", "--bots", "1", "--db-default", "--repo", "o/r"]
    record += ["--pr", "1", "--head-sha", BASE_SHA, "-o", "base.md"]
    assert main(record) in (0, 1)
    _, log = review("--baseline-db", BASE_SHA, "--repo", "o/r")
    assert states(log) == [
        ("absent", 11, "security"),
        ("new", 13, "security"),
        ("unchanged", 6, "security"),
    ]
    capsys.readouterr()
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "-o", "out2"]
    assert main([*argv, "--baseline-db", "c" * 40, "--repo", "o/r"]) == 2
    err = capsys.readouterr().err
    assert f"the history has no run of commit {'c' * 40} in o/r" in err
    assert not Path("out2").exists()


def test_a_baseline_of_which_nothing_could_be_read_is_an_error_naming_the_record(
    scene: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = sarif([(SQL[0], 4, SQL[1])])
    broken["runs"][0]["results"][0]["level"] = "bogus"
    Path("broken.sarif").write_text(json.dumps(broken), encoding="utf-8")
    argv = ["review", "head.sarif", "--bots", "1", "--diff", "pr.diff", "-o", "out"]
    assert main([*argv, "--baseline", "broken.sarif"]) == 2
    err = capsys.readouterr().err
    assert "broken.sarif:/runs/0/results/0: no baseline finding" in err
    assert not Path("out").exists()


def test_the_newest_run_of_the_merge_base_is_the_baseline(
    scene: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUORUM_HISTORY_DB", str(scene / "history.db"))
    record = ["review", "--bots", "1", "--db-default", "--repo", "o/r", "--pr", "1"]
    record += ["--head-sha", BASE_SHA, "-o", "base.md"]
    assert main(["review", "base.sarif", *record[1:]]) in (0, 1)
    only_sql = sarif([(SQL[0], 4, SQL[1])])
    Path("newer.sarif").write_text(json.dumps(only_sql), encoding="utf-8")
    assert main(["review", "newer.sarif", *record[1:]]) in (0, 1)
    _, log = review("--baseline-db", BASE_SHA, "--repo", "o/r")
    assert [state for state, _, _ in states(log)] == ["new", "unchanged"]  # nothing absent
