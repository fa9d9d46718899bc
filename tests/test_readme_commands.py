"""The README starts with the two commands a new user runs, and CI runs the second as written."""

from __future__ import annotations

import re

from conftest import REPO_ROOT


def readme_commands() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block is not None, "the README has no sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_opens_with_the_example_run_and_the_test_run() -> None:
    run, tests = readme_commands()
    assert "quorum review examples/pr-review/" in run
    assert tests.endswith("-m pytest -q")


def test_ci_runs_the_readmes_test_command_as_written() -> None:
    _, tests = readme_commands()
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
