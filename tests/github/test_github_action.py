"""action.yml: inputs and outputs line up, no expression reaches a shell, the review step runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO_ROOT

ACTION = REPO_ROOT / "action.yml"
EXAMPLE = REPO_ROOT / "examples" / "pr-review"
TEXT = ACTION.read_text(encoding="utf-8")


def block_keys(section: str) -> list[str]:
    """The two-space-indented keys of a top-level section (`inputs:`, `outputs:`)."""
    body = re.search(rf"^{section}:\n((?:  .*\n|\n)+)", TEXT, re.MULTILINE)
    assert body is not None
    return re.findall(r"^  ([a-z-]+):", body.group(1), re.MULTILINE)


def run_blocks() -> dict[str, str]:
    """Each step's `run: |` script by step name, dedented as the runner sees it."""
    blocks: dict[str, str] = {}
    lines = TEXT.split("\n")
    name = ""
    for index, line in enumerate(lines):
        if match := re.match(r"\s*- name: (.+)", line):
            name = match.group(1)
        if match := re.match(r"(\s*)run: \|$", line):
            indent = len(match.group(1))
            script = []
            for following in lines[index + 1 :]:
                if following.strip() and len(following) - len(following.lstrip()) <= indent:
                    break
                script.append(following)
            blocks[name] = textwrap.dedent("\n".join(script))
    return blocks


def test_every_input_is_declared_and_used() -> None:
    declared = block_keys("inputs")
    used = set(re.findall(r"\binputs\.([a-z-]+)", TEXT))
    assert used == set(declared)


def test_every_output_comes_from_the_review_step() -> None:
    written = set(re.findall(r'echo "([a-z-]+)=', TEXT)) | set(
        re.findall(r'print\(f?"([a-z-]+)=', TEXT)
    )
    referenced = set(re.findall(r"steps\.review\.outputs\.([a-z-]+)", TEXT))
    assert set(block_keys("outputs")) <= referenced <= written


def test_no_expression_is_pasted_into_a_shell_script() -> None:
    scripts = run_blocks()
    assert set(scripts) == {
        "Install review-quorum",
        "Fetch the pull request diff",
        "Review",
        "Post to the pull request",
        "Gate",
    }
    for name, script in scripts.items():
        assert "${{" not in script, f"{name}: pass values through env, never inline"


@pytest.mark.skipif(shutil.which("bash") is None, reason="the action's steps run in bash")
def test_the_review_step_runs_on_the_example(tmp_path: Path) -> None:
    outputs = tmp_path / "outputs"
    sarif = tmp_path / "out.sarif"
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(outputs),
        "FINDINGS": "  analysers/*.sarif\n\nbots/**/*.json\nnothing/*.xml\n",
        "DIFF_PATH": "pr.diff",
        "VERDICTS": "verdicts.json",
        "BOTS": "",
        "THRESHOLD": "",
        "GATE_LEVEL": "confirmed",
        "CONFIG": "quorum.toml",
        "SARIF": str(sarif),
    }
    script = run_blocks()["Review"]
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=EXAMPLE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "::warning::review-quorum: no file matches nothing/*.xml" in done.stdout
    lines = outputs.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == [f"sarif={sarif}", f"plan={tmp_path / 'review-quorum-plan.json'}"]
    assert lines[2:4] == ["gate=failed", "gate-count=3"]
    assert re.fullmatch(r"findings-count=\d+", lines[4]) and re.fullmatch(
        r"inline-count=\d+", lines[5]
    )
    assert sarif.read_text(encoding="utf-8").lstrip().startswith("{")
