"""A verdicts file another tool wrote (no cluster ids: each verdict names a file and a
line) attaches by file and line, for `quorum review` and `quorum post` alike; a verdict
that matches no finding is a counted Skipped record and said, never dropped silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from github.github_support import saved_plan
from review_quorum.cli import main
from verifier.test_review_cli import example_args


def verdict(verdict: str, file: str, line: int) -> dict[str, Any]:
    return {
        "verdict": verdict,
        "file": file,
        "line": line,
        "severity": "low",
        "in_changed_code": True,
        "evidence_strength": "direct",
        "context_completeness": "full",
    }


def write(tmp_path: Path, *verdicts: dict[str, Any]) -> str:
    path = tmp_path / "theirs.json"
    path.write_text(json.dumps({"verdicts": list(verdicts)}), encoding="utf-8")
    return str(path)


def test_review_attaches_by_file_and_line_and_counts_a_verdict_that_matches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = write(
        tmp_path,
        verdict("DISMISSED", "app/stock.py", 40),  # the finding is on line 39
        verdict("CONFIRMED", "app/nowhere.py", 3),
    )
    out = tmp_path / "plan.json"
    assert main([*example_args(tmp_path), "--verdicts", theirs, "-o", str(out)]) == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    [stock] = [f for f in report["findings"] if (f["file"], f["line"]) == ("app/stock.py", 39)]
    assert (stock["verdict"]["verdict"], stock["disposition"]) == ("DISMISSED", "dropped")
    unmatched = "verdict for app/nowhere.py:3 matches no finding"
    assert {"source": theirs, "position": "/verdicts/1", "reason": unmatched} in report["skipped"]
    assert "input record(s) skipped" in capsys.readouterr().err


def test_post_attaches_by_file_and_line_and_names_a_verdict_that_matches_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(saved_plan([("src/app.py", 12, "SQL built from input")])))
    theirs = write(
        tmp_path,
        verdict("DISMISSED", "src/app.py", 13),  # the finding is on line 12
        verdict("CONFIRMED", "src/gone.py", 3),
    )
    target = ["--repo", "octo-org/widgets", "--pr", "7", "--dry-run"]
    assert main(["post", str(plan), *target, "--verdicts", theirs]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out.split("\n\n")[1])["body"]
    assert "SQL built from input — `src/app.py:12` — dismissed by the verifier" in summary
    assert "**1** input record skipped" in summary
    unused = f"{theirs}:/verdicts/1: verdict for src/gone.py:3 matches no finding: not used"
    assert unused in err


def test_post_names_only_its_own_verdicts_as_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example's plan posted with no comment read: its findings from bots are left out
    (skipped records too), but only the verdict that matched nothing is named not used."""
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    plan = tmp_path / "plan.json"
    assert main([*example_args(tmp_path), "-o", str(plan)]) == 1
    theirs = write(tmp_path, verdict("CONFIRMED", "app/nowhere.py", 3))
    target = ["--repo", "acme/stockroom", "--pr", "1", "--dry-run"]
    assert main(["post", str(plan), *target, "--verdicts", theirs]) == 0
    err = capsys.readouterr().err
    assert "do not match the pull request's comments" in err  # left out, and said
    named = [line for line in err.splitlines() if line.endswith("finding: not used")]
    assert not any(line.endswith("left out: not used") for line in err.splitlines())
    assert named == [
        f"quorum: warning: {theirs}:/verdicts/0: verdict for app/nowhere.py:3 matches no "
        "finding: not used"
    ]
