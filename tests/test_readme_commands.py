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


def test_the_readme_counts_the_bots_read_and_names_every_platform_posted_to() -> None:
    from review_quorum.cli.reporters import REPORTERS
    from review_quorum.ingest.bots import BOT_NAMES

    text = " ".join((REPO_ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"the comments of {len(BOT_NAMES)} review bots" in text
    platforms = {"github": "GitHub", "gitlab": "GitLab", "azure": "Azure DevOps"}
    platforms["bitbucket"] = "Bitbucket"
    posted_to = {prefix for prefix in platforms for name in REPORTERS if name.startswith(prefix)}
    post_row = next(line for line in text.split("|") if "post a review saved" in line)
    assert all(platforms[prefix] in post_row for prefix in posted_to)
