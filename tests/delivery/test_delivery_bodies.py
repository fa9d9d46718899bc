"""The bodies the poster writes: size limits, moved findings, fixed notes, batch ids."""

from __future__ import annotations

import pytest

from review_quorum.delivery.bodies import batch_id, fixed_body, moved_section, without_markers
from review_quorum.delivery.draft import DraftComment
from review_quorum.delivery.fitting import MAX_BODY, fit_body
from review_quorum.github.batches import REFUSED, review_body
from review_quorum.markup.markers import find_markers, marker

FINDING = marker("finding", "fp-1")


def test_a_body_that_fits_is_unchanged() -> None:
    body = "x" * MAX_BODY
    assert fit_body(body) is body


def test_a_long_body_keeps_its_markers_and_says_what_was_cut() -> None:
    body = f"intro\n{FINDING}\n" + "\n".join(f"line {index}" for index in range(20_000))
    fitted = fit_body(body)
    assert len(fitted) <= MAX_BODY
    assert fitted.startswith(f"{FINDING}\nintro\nline 0\n")
    kept, note = fitted.split("\n_… ")
    assert note == f"{len(body) - len(kept):,} characters omitted: GitHub limits a body to 65,536._"


def test_a_cut_inside_a_code_fence_closes_it() -> None:
    body = "```python\n" + "print(1)\n" * 200
    fitted = fit_body(body, limit=500)
    assert len(fitted) <= 500
    lines = fitted.split("\n")
    assert lines[0] == "```python" and "```" in lines[1:]


def test_a_single_enormous_line_is_cut_mid_line() -> None:
    fitted = fit_body(FINDING + "\n" + "z" * 100_000, limit=1000)
    assert len(fitted) <= 1000
    assert find_markers(fitted) == [("finding", "fp-1")]


def test_the_moved_section_lists_each_finding_with_its_own_marker() -> None:
    moved = [DraftComment("src/a`b.py", 90, f"{FINDING}\n**Title**\n\nDetails", "fp-1")]
    assert moved_section(moved, REFUSED) == (
        "### Not placed on the diff\n\n"
        "GitHub refused the line anchors of these findings, so they are listed here.\n\n"
        f"{marker('moved', 'fp-1')}\n**``src/a`b.py`` line 90**\n\n**Title**\n\nDetails"
    )


def test_a_review_body_opens_with_a_marker_and_ends_with_its_batch_marker() -> None:
    summary = f"{marker('summary')}\nAssessment"
    assert review_body(summary, "abc") == f"{summary}\n\n{marker('batch', 'abc')}"
    assert review_body("Assessment", "abc") == f"{marker('batch', 'abc')}\n\nAssessment"
    assert review_body("  ", "abc") == marker("batch", "abc")


def test_batch_ids_are_stable_and_distinct() -> None:
    comments = [DraftComment("a.py", 1, FINDING, "fp-1")]
    assert batch_id("c" * 40, "COMMENT", comments, 0) == batch_id("c" * 40, "COMMENT", comments, 0)
    others = {
        batch_id("d" * 40, "COMMENT", comments, 0),
        batch_id("c" * 40, "REQUEST_CHANGES", comments, 0),
        batch_id("c" * 40, "COMMENT", comments, 1),
        batch_id("c" * 40, "COMMENT", [], 0),
    }
    assert batch_id("c" * 40, "COMMENT", comments, 0) not in others and len(others) == 4


@pytest.mark.parametrize(
    ("original", "headline"),
    [
        (f"{FINDING}\n**SQL injection** in `query`\n\nmore", "~~**SQL injection** in `query`~~"),
        (f"{FINDING}\n### Heading title\ntext", "~~Heading title~~"),
        (f"{FINDING}\n> quoted ~~struck~~ title", "~~quoted struck title~~"),
        (f"{FINDING}\n- a list item", "~~a list item~~"),
    ],
)
def test_a_fixed_note_strikes_the_headline_and_keeps_the_marker(
    original: str, headline: str
) -> None:
    body = fixed_body(original, "fp-1", "0123456789abcdef" * 2 + "01234567")
    lines = body.split("\n")
    assert lines[:3] == [FINDING, marker("fixed", "0123456789abcdef" * 2 + "01234567"), headline]
    assert "Fixed in 0123456789ab: review-quorum no longer reports this finding." in lines
    assert body.endswith(f"{without_markers(original)}\n\n</details>")


def test_a_fixed_note_without_a_known_commit() -> None:
    body = fixed_body(FINDING, "fp-1", None)
    assert body == (
        f"{FINDING}\n{marker('fixed', 'head')}\n"
        "Fixed in the latest push: review-quorum no longer reports this finding.\n\n"
        "<details><summary>Original comment</summary>\n\n\n\n</details>"
    )


def test_without_markers_removes_only_marker_lines() -> None:
    text = f"{FINDING}\nkeep <!-- review-quorum:summary --> inline\n{marker('summary')}\nend"
    assert without_markers(text) == "keep <!-- review-quorum:summary --> inline\nend"
