"""The literal registry of `quorum review` output formats: `--format` name -> renderer.

Each renderer's module is imported when its format is rendered, not when the command
starts: a review written as terminal text loads neither SARIF nor the JSON report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from review_quorum.plan import ReviewPlan

Renderer = Callable[["ReviewPlan"], str]


# One renderer per format: each imports its module when called (a plain import, so mypy
# checks the module and the function it names).
def _markdown(plan: ReviewPlan) -> str:
    from review_quorum.render import review

    return review.render(plan)


def _github_review(plan: ReviewPlan) -> str:
    from review_quorum.render import github_review

    return github_review.render(plan)


def _sarif(plan: ReviewPlan) -> str:
    from review_quorum.render import sarif

    return sarif.render(plan)


def _json(plan: ReviewPlan) -> str:
    from review_quorum.render import json_report

    return json_report.render(plan)


def _terminal(plan: ReviewPlan) -> str:
    from review_quorum.render import terminal

    return terminal.render(plan)


RENDERERS: dict[str, Renderer] = {
    "markdown": _markdown,
    "github-review": _github_review,
    "sarif": _sarif,
    "json": _json,
    "terminal": _terminal,
}
