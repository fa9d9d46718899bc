"""The output format registry: every `quorum review --format` choice is a renderer."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES
from github.github_support import agreed_findings
from review_quorum.cli import main
from review_quorum.plan import review
from review_quorum.render.formats import RENDERERS

REVIEW = ["review", str(FIXTURES / "review.findings.json"), "--bots", "3"]


def test_every_format_choice_is_a_registered_renderer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--help"]) == 0
    listed = re.search(r"--format \{([a-z,-]+)\}", capsys.readouterr().out)
    assert listed is not None
    assert listed.group(1).split(",") == sorted(RENDERERS)


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_each_renderer_renders_a_plan_and_the_cli_prints_it(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = review(agreed_findings([("src/app.py", 12, "SQL built from request input")]))
    text = RENDERERS[name](plan)
    assert isinstance(text, str)
    assert "SQL built from request input" in text
    assert main([*REVIEW, "--format", name]) in (0, 1)
    assert capsys.readouterr().out.strip()


def test_each_format_is_written_by_its_own_module() -> None:
    from review_quorum.render import github_review, json_report, sarif, terminal
    from review_quorum.render import review as markdown

    plan = review(agreed_findings([("src/app.py", 12, "SQL built from request input")]))
    modules = {
        "markdown": markdown,
        "github-review": github_review,
        "sarif": sarif,
        "json": json_report,
        "terminal": terminal,
    }
    assert {name: RENDERERS[name](plan) for name in RENDERERS} == {
        name: module.render(plan) for name, module in modules.items()
    }
