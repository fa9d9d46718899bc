"""SARIF output names each file by a URI reference that SARIF readers (quorum's own, GitHub
code scanning) decode: a path that holds a ``%`` must come back as the same path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum.cli import main


@pytest.mark.parametrize("path", ["templates/100%.html", "a%41b.py", "d/%2e%2e/x.py", "a b.py"])
def test_a_path_read_back_from_sarif_output_is_the_same_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    finding = {
        "bot": "bandit",
        "finding_id": "B1",
        "severity": "high",
        "category": "security",
        "title": "SQL injection",
        "evidence": {"file": path, "line": 3},
    }
    native, sarif = tmp_path / "findings.json", tmp_path / "review.sarif"
    native.write_text(json.dumps([finding]), encoding="utf-8")
    argv = ["--bots", "1", "--filter-mode", "nofilter", "--gate-level", "none"]
    assert main(["review", str(native), *argv, "--format", "sarif", "-o", str(sarif)]) == 0
    assert main(["review", str(sarif), *argv, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [item["file"] for item in report["findings"]] == [path]
