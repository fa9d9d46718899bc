"""`quorum evaluate ... --verify-url`: F1 with and without the verifier, measured on labels,
and what a dismissal cost (real findings lost) and saved (false positives removed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from review_quorum.cli import main
from verifier.conftest import Workspace
from verifier.openai_standin import StandIn


def write_inputs(workspace: Workspace) -> tuple[Path, Path]:
    findings = [
        {
            "bot": f.bot,
            "finding_id": f.finding_id,
            "severity": f.severity.label,
            "category": f.category,
            "title": f.title,
            "evidence": {"file": f.evidence.file, "line": f.evidence.line},
        }
        for f in workspace.findings
        if f.evidence.file == "app/calc.py"
    ]
    path = workspace.root / "findings.json"
    path.write_text(json.dumps(findings), encoding="utf-8")
    # real: the loop (11) and the broad except (17, 18); not real: the SQL finding (13)
    labels = workspace.root / "labels.jsonl"
    rows = [
        {"file": "app/calc.py", "line": 11, "real": True},
        {"file": "app/calc.py", "line": 13, "real": False},
        {"file": "app/calc.py", "line": 17, "real": True},
        {"file": "app/calc.py", "line": 18, "real": True},
        {"file": "app/calc.py", "line": 19, "real": False},
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path, labels


def rows(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    document = json.loads(capsys.readouterr().out)
    return {row["name"]: row for row in document["rows"]}


def test_evaluate_measures_the_verifier(
    workspace: Workspace, standin: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.verdicts["app/calc.py:13"] = {
        "verdict": "DISMISSED",
        "severity": "medium",
        "cited_lines": [13],
    }
    standin.verdicts["app/calc.py:11"] = {
        "verdict": "CONFIRMED",
        "severity": "high",
        "evidence_strength": "direct",
        "context_completeness": "full",
    }
    findings, labels = write_inputs(workspace)
    base = ["evaluate", str(labels), str(findings), "--bots", "5", "--format", "json"]
    assert main(base) == 0
    plain = rows(capsys)
    assert "reliability dismissed by the verifier" not in plain
    verify = ["--verify-url", standin.url, "--verify-model", "m"]
    verify += ["--verify-checkout", str(workspace.checkout)]
    verify += ["--verify-cache", str(workspace.root / "cache.json")]
    assert main([*base, *verify]) == 0
    verified = rows(capsys)
    dismissed = verified["reliability dismissed by the verifier"]
    assert (dismissed["kept"], dismissed["true"]) == (1, 0)  # one false positive removed
    before = verified["reliability disposition summary"]
    after = verified["reliability disposition summary, verified"]
    assert before == plain["reliability disposition summary"]
    assert after["precision"] > before["precision"]
    inline = verified["reliability disposition inline, verified"]
    # the loop (CONFIRMED) and the broad except (the default LIKELY scores 57) move inline
    assert inline["kept"] == verified["reliability disposition inline"]["kept"] + 2
    assert inline["true"] == inline["kept"]
