"""Where paths become repository-relative: `--root`, else the configuration's `root`, so a
tool that writes absolute file:// URIs is read at the same paths as the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum.cli import main

SARIF = {
    "version": "2.1.0",
    "runs": [
        {
            "tool": {"driver": {"name": "ruff", "rules": [{"id": "S608"}]}},
            "results": [
                {
                    "ruleId": "S608",
                    "level": "error",
                    "message": {"text": "SQL built from input"},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "file:///checkout/app/db.py"},
                                "region": {"startLine": 12},
                            }
                        }
                    ],
                }
            ],
        }
    ],
}


@pytest.mark.parametrize(
    ("configured", "flag", "path"),
    [
        ("/checkout", [], "app/db.py"),
        ("/elsewhere", ["--root", "/checkout"], "app/db.py"),
        (None, [], "/checkout/app/db.py"),
    ],
)
def test_paths_are_relative_to_the_root_given_else_configured(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    configured: str | None,
    flag: list[str],
    path: str,
) -> None:
    findings = tmp_path / "ruff.sarif"
    findings.write_text(json.dumps(SARIF), encoding="utf-8")
    config = tmp_path / "quorum.toml"
    config.write_text(f'root = "{configured}"\n' if configured else "", encoding="utf-8")
    argv = ["review", str(findings), "--config", str(config), "--format", "json", *flag]
    assert main([*argv, "--gate-level", "none"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [finding["file"] for finding in report["findings"]] == [path]
