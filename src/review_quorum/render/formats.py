"""The literal registry of `quorum review` output formats: `--format` name -> renderer."""

from __future__ import annotations

from collections.abc import Callable

from review_quorum.plan import ReviewPlan
from review_quorum.render import github_review, json_report, review, sarif, terminal

Renderer = Callable[[ReviewPlan], str]

RENDERERS: dict[str, Renderer] = {
    "markdown": review.render,
    "github-review": github_review.render,
    "sarif": sarif.render,
    "json": json_report.render,
    "terminal": terminal.render,
}
