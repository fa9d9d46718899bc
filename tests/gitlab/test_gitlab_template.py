"""The `.gitlab-ci.yml` template in docs/gitlab.md: found by `.ci/workflow_blocks.py --gitlab`
(which CI then validates with check-jsonschema's vendor.gitlab-ci schema), left out of the
GitHub workflows, and running the command this documentation describes."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import REPO_ROOT
from github.test_github_action import load_workflow_blocks

DOC = REPO_ROOT / "docs" / "gitlab.md"


def test_the_template_is_extracted_for_the_gitlab_schema_only(tmp_path: Path) -> None:
    blocks = load_workflow_blocks()
    assert blocks.main(["--gitlab", str(tmp_path / "gitlab"), str(DOC)]) == 0
    [template] = sorted((tmp_path / "gitlab").glob("*.yml"))
    assert template.name == "gitlab-gitlab-1.yml"
    assert [line for line, _ in blocks.workflows(DOC)] == []  # no GitHub workflow here
    document = yaml.safe_load(template.read_text(encoding="utf-8"))
    assert document["workflow"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    command = " ".join(document["review-quorum"]["script"])
    assert "quorum review ruff.sarif bandit.sarif" in command
    assert "--gitlab" in command and "--reporter gitlab-mr" in command
    assert document["review-quorum"]["needs"] == ["ruff", "bandit"]


def test_without_a_gitlab_configuration_the_extraction_fails(tmp_path: Path) -> None:
    markdown = tmp_path / "notes.md"
    markdown.write_text("```yaml\nname: not a pipeline\n```\n", encoding="utf-8")
    assert load_workflow_blocks().main(["--gitlab", str(tmp_path / "out"), str(markdown)]) == 2
