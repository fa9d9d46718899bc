"""The check run of a plan: what is annotated, within GitHub's sizes, bot text made inert."""

from __future__ import annotations

import pytest

from review_quorum.markup import escape
from review_quorum.model import NormalizedFinding
from review_quorum.plan import Settings, review
from review_quorum.render import check_run
from review_quorum.scope import DiffScope

DIFF = "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1,3 @@\n+x\n+y\n+z\n"


def plan_of(titles: list[str], lines: tuple[int, ...] = (2,)) -> check_run.CheckOutput:
    findings = [
        NormalizedFinding.create(
            bot=bot,
            finding_id=f"{bot}{i}",
            severity="medium",
            category="security",
            title=title,
            file="a.py",
            line=lines[i % len(lines)],
        )
        for i, title in enumerate(titles)
        for bot in ("ruff", "bandit")
    ]
    plan = review(findings, settings=Settings(bots_ran=2), diff=DiffScope.parse(DIFF))
    return check_run.check_output(plan)


def test_a_huge_hostile_title_fits_and_is_inert() -> None:
    title = "@everyone \u202ereversed\u202c " + "x" * 200_000
    [annotation] = plan_of([title]).annotations
    assert len(annotation.payload["title"]) == check_run.MAX_TITLE
    assert len(annotation.payload["message"]) <= check_run.MAX_MESSAGE
    for text in (annotation.payload["title"], annotation.payload["message"]):
        assert "\u202e" not in text and "@everyone" not in text
    assert annotation.payload["annotation_level"] == "warning"


def test_findings_past_the_cap_are_counted_not_annotated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_run, "MAX_ANNOTATIONS", 2)
    words = ["alpha", "bravo", "charlie"]
    output = plan_of([f"Problem with {word}" for word in words], lines=(1, 2, 3))
    assert (len(output.annotations), output.left_out) == (2, 1)


def test_plain_keeps_line_breaks_and_cuts_with_an_ellipsis() -> None:
    assert escape.plain("one\r\ntwo\rthree", limit=100) == "one\ntwo\nthree"
    assert escape.plain("abcdef", limit=4) == "abc…"
