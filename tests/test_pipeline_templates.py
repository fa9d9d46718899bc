"""The `azure-pipelines.yml` and `bitbucket-pipelines.yml` templates in docs/azure-devops.md
and docs/bitbucket.md: found by `.ci/workflow_blocks.py` (for check-jsonschema's
vendor.azure-pipelines and vendor.bitbucket-pipelines schemas, as scripts/check runs
them), left out of the GitHub and GitLab checks, valid against those schemas, and running
the commands the documentation describes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from github.test_github_action import load_workflow_blocks

AZURE = REPO_ROOT / "docs" / "azure-devops.md"
BITBUCKET = REPO_ROOT / "docs" / "bitbucket.md"
CASES = [
    ("--azure-pipelines", AZURE, "vendor.azure-pipelines"),
    ("--bitbucket-pipelines", BITBUCKET, "vendor.bitbucket-pipelines"),
]


def extract(flag: str, doc: Path, tmp_path: Path) -> Path:
    assert load_workflow_blocks().main([flag, str(tmp_path / "out"), str(doc)]) == 0
    [template] = sorted((tmp_path / "out").glob("*.yml"))
    return template


@pytest.mark.parametrize(("flag", "doc", "schema"), CASES)
def test_each_template_is_extracted_for_its_schema_only_and_validates(
    flag: str, doc: Path, schema: str, tmp_path: Path
) -> None:
    template = extract(flag, doc, tmp_path)
    blocks = load_workflow_blocks()
    assert [line for line, _ in blocks.workflows(doc)] == []  # no GitHub workflow
    assert [line for line, _ in blocks.workflows(doc, blocks.is_gitlab_ci)] == []
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema]
    command += ["--regex-variant", "nonunicode", str(template)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("flag", "doc", "schema"), CASES)
def test_a_broken_template_fails_its_schema(
    flag: str, doc: Path, schema: str, tmp_path: Path
) -> None:
    template = extract(flag, doc, tmp_path)
    text = template.read_text(encoding="utf-8")
    broken = text.replace("displayName: Analyse", "displayName: [Analyse]").replace(
        "name: Analyse and review", "name: [Analyse, review]"
    )
    assert broken != text
    template.write_text(broken, encoding="utf-8")
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema]
    command += ["--regex-variant", "nonunicode", str(template)]
    assert subprocess.run(command, capture_output=True, check=False).returncode == 1


def test_the_azure_pipeline_reviews_with_the_build_service_token(tmp_path: Path) -> None:
    document = yaml.safe_load(extract("--azure-pipelines", AZURE, tmp_path).read_text())
    [review] = [step for step in document["steps"] if "--azure-devops" in step.get("script", "")]
    assert "--reporter azure-devops-pr" in review["script"]
    assert review["env"] == {"SYSTEM_ACCESSTOKEN": "$(System.AccessToken)"}
    assert document["steps"][0] == {"checkout": "self", "fetchDepth": "0"}


def test_the_bitbucket_pipeline_reviews_pull_requests(tmp_path: Path) -> None:
    document = yaml.safe_load(extract("--bitbucket-pipelines", BITBUCKET, tmp_path).read_text())
    [step] = document["pipelines"]["pull-requests"]["**"]
    command = " ".join(step["step"]["script"])
    assert "quorum review ruff.sarif bandit.sarif" in command
    assert "--bitbucket" in command and "--reporter bitbucket-pr" in command
