"""action.yml read with a YAML parser: its parts line up, and no expression reaches a shell.

Also the test tools themselves: the expression evaluator and GITHUB_OUTPUT reader that the
end-to-end run relies on, and `.ci/workflow_blocks.py`, which finds the workflows the docs
show so that CI can validate them.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT
from github.action_expressions import (
    Strict,
    UnsupportedExpression,
    condition,
    context_paths,
    evaluate,
    render,
    templates,
    to_text,
)
from github.action_harness import issue_comment_event, pull_request_event
from github.action_runner import RunnerError, read_outputs

ACTION: dict[str, Any] = yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]


def strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def expressions(value: object) -> list[str]:
    """Every expression in a part of the file: `${{ }}` templates and `if:` conditions."""
    found = [expression for text in strings(value) for expression in templates(text)]
    if isinstance(value, dict) and isinstance(value.get("if"), str) and "${{" not in value["if"]:
        found.append(value["if"])
    return found


def paths(value: object) -> set[tuple[str, ...]]:
    return {path for expression in expressions(value) for path in context_paths(expression)}


def test_the_action_is_composite_and_every_run_step_is_bash() -> None:
    assert ACTION["runs"]["using"] == "composite"
    for step in STEPS:
        assert step["name"]
        assert ("run" in step) != ("uses" in step)
        if "run" in step:
            assert step["shell"] == "bash", step["name"]


def test_every_input_is_declared_and_used() -> None:
    used = {path[1] for step in STEPS for path in paths(step) if path[0] == "inputs"}
    assert used == set(ACTION["inputs"])
    for name, spec in ACTION["inputs"].items():
        assert spec["description"].strip(), name
        assert isinstance(spec.get("default", ""), str), f"{name}: defaults are strings"


def test_each_step_reads_only_outputs_of_earlier_steps() -> None:
    earlier: set[str] = set()
    for step in STEPS:
        read = {path[1] for path in paths(step) if path[0] == "steps"}
        assert read <= earlier, step["name"]
        if "id" in step:
            earlier.add(step["id"])


def test_every_output_comes_from_a_step() -> None:
    ids = {step["id"] for step in STEPS if "id" in step}
    for name, spec in ACTION["outputs"].items():
        [path] = paths(spec["value"])
        assert path[0] == "steps" and path[1] in ids and path[2] == "outputs", name


def test_no_expression_is_pasted_into_a_shell_script() -> None:
    scripts = {step["name"]: step["run"] for step in STEPS if "run" in step}
    assert len(scripts) == len(STEPS) - 1
    for name, script in scripts.items():
        assert "${{" not in script, f"{name}: pass values through env, never inline"


def test_actions_used_are_pinned_to_a_full_commit() -> None:
    for step in STEPS:
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


# --- the runner model the end-to-end test relies on --------------------------------------

CONTEXTS = {
    "inputs": Strict({"post": "true", "diff": "", "gate-level": "confirmed"}),
    "github": Strict({"event": {"pull_request": None, "issue": {"number": 9}}}),
    "steps": {"review": {"outputs": {"gate": "FAILED"}}},
}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("inputs.post == 'true'", True),
        ("inputs.post != 'true'", False),
        ("steps.review.outputs.gate == 'failed'", True),  # strings compare ignoring case
        ("steps.missing.outputs.gate == ''", True),  # a missing property is null, null is ''
        ("github.event.pull_request.number || github.event.issue.number", 9),
        ("inputs.diff || 'fetched'", "fetched"),
        ("inputs.post == 'true' && inputs.diff", ""),
        ("!(inputs.diff)", True),
        ("inputs['gate-level']", "confirmed"),
        ("'it''s'", "it's"),
        ("1 == '1'", True),
        ("null == 0", True),
    ],
)
def test_expressions_evaluate_as_on_github(expression: str, value: object) -> None:
    assert evaluate(expression, CONTEXTS) == value


@pytest.mark.parametrize(
    "expression",
    ["inputs.missing", "github.sha", "vars.X", "contains(inputs.post, 't')", "1 < 2", "inputs."],
)
def test_expressions_outside_the_model_fail_loudly(expression: str) -> None:
    with pytest.raises(UnsupportedExpression):
        evaluate(expression, CONTEXTS)


def test_conditions_imply_success_unless_they_ask_for_status() -> None:
    assert condition("inputs.post == 'true'", CONTEXTS, "success")
    assert not condition("inputs.post == 'true'", CONTEXTS, "failure")
    assert condition("${{ always() && inputs.post == 'true' }}", CONTEXTS, "failure")
    assert render("n=${{ github.event.issue.number }}, d=${{ inputs.diff }}.", CONTEXTS) == (
        "n=9, d=."
    )


def test_github_output_reads_lines_and_delimited_blocks() -> None:
    text = "gate=failed\nbody<<EOF_1\nline one\nx=y\nEOF_1\n\ncount=3=3\n"
    assert read_outputs(text) == {"gate": "failed", "body": "line one\nx=y", "count": "3=3"}
    with pytest.raises(RunnerError, match="not closed"):
        read_outputs("body<<EOF\nunfinished\n")


# --- .ci/workflow_blocks.py -------------------------------------------------------------


def load_workflow_blocks() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "workflow_blocks", REPO_ROOT / ".ci" / "workflow_blocks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WORKFLOW = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps: [{run: echo}]\n"


def test_workflow_blocks_keeps_workflows_only(tmp_path: Path) -> None:
    indented = "".join(f"   {line}\n" for line in WORKFLOW.splitlines())
    markdown = (
        f"# Docs\n\n```yaml\n{WORKFLOW}```\n\n"
        "```yaml\nname: not a workflow\n```\n\n"
        f"- a list item:\n\n   ~~~yml\n{indented}   ~~~\n\n"
        "```sh\non: push\njobs: {}\n```\n"
        "    ```yaml\n    indented code, not a fence\n    ```\n"
    )
    source = tmp_path / "guide.md"
    source.write_text(markdown, encoding="utf-8")
    module = load_workflow_blocks()
    assert module.main([str(tmp_path / "out"), str(source)]) == 0
    written = sorted((tmp_path / "out").iterdir())
    assert [path.name for path in written] == ["guide-1.yml", "guide-2.yml"]
    assert [path.read_text(encoding="utf-8") for path in written] == [WORKFLOW, WORKFLOW]


def test_workflow_blocks_names_a_broken_block_and_refuses_finding_none(tmp_path: Path) -> None:
    source = tmp_path / "guide.md"
    source.write_text("Intro\n\n```yaml\non: [push\n```\n", encoding="utf-8")
    module = load_workflow_blocks()
    with pytest.raises(SystemExit, match=r"guide\.md:4: the YAML block does not parse"):
        module.main([str(tmp_path / "out"), str(source)])
    source.write_text("No workflow here.\n", encoding="utf-8")
    assert module.main([str(tmp_path / "out"), str(source)]) == 2


def test_the_docs_show_a_workflow_using_declared_inputs(tmp_path: Path) -> None:
    module = load_workflow_blocks()
    assert module.main([str(tmp_path), str(REPO_ROOT / "docs" / "github.md")]) == 0
    for path in tmp_path.iterdir():
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
        for step in steps:
            if "review-quorum@" in step.get("uses", ""):
                assert set(step.get("with", {})) <= set(ACTION["inputs"]), path.name


def review_quorum_steps(value: object) -> Iterator[dict[str, Any]]:
    """Every step using review-quorum in a YAML document (a workflow or a list of steps)."""
    if isinstance(value, dict):
        if "review-quorum@" in str(value.get("uses", "")):
            yield value
        for item in value.values():
            yield from review_quorum_steps(item)
    elif isinstance(value, list):
        for item in value:
            yield from review_quorum_steps(item)


def fork_pull_request_event() -> dict[str, Any]:
    event = pull_request_event()
    head = event["pull_request"]["head"]
    head["repo"] = head["repo"] | {"full_name": "octo-dev/stockroom", "fork": True}
    return event


def posts(post: str, event: dict[str, Any]) -> str:
    """The `post:` input of a step, as GitHub expands it for `event` in acme/stockroom."""
    return render(post, {"github": Strict({"event": event, "repository": "acme/stockroom"})})


@pytest.mark.parametrize("document", ["README.md", "docs/github.md"])
def test_the_docs_workflows_review_a_forks_pull_request_without_posting(document: str) -> None:
    """A fork's pull_request run has a read-only token: posting would fail every such run."""
    module = load_workflow_blocks()
    text = (REPO_ROOT / document).read_text(encoding="utf-8")
    steps = [
        step
        for _, fence in module.yaml_fences(text)
        for step in review_quorum_steps(yaml.safe_load(fence))
        if "plan" not in step.get("with", {})  # the workflow_run job that posts a plan
    ]
    assert steps
    for step in steps:
        post = to_text(step["with"].get("post", "true"))
        assert posts(post, fork_pull_request_event()) == "false"
        if post != "false":
            assert posts(post, pull_request_event()) == "true"
            assert posts(post, issue_comment_event()) == "true"
