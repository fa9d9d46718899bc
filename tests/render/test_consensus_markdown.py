"""Provenance tags and the grouped consensus markdown, byte for byte (SPEC 3, rendering)."""

from __future__ import annotations

import re

import pytest

from review_quorum import (
    Evidence,
    NormalizedFinding,
    Severity,
    render_consensus_markdown,
    render_provenance,
)
from review_quorum.render.consensus import agreement_percent
from review_quorum.scoring.agreement import compute_consensus  # the seed 001 engine


def finding(
    bot: str, title: str, file: str = "app/db.py", line: int | None = 4
) -> NormalizedFinding:
    return NormalizedFinding(bot, "id", Severity.HIGH, "security", title, Evidence(file, line))


@pytest.mark.parametrize(
    ("detected", "ran", "percent"),
    [(2, 4, 50), (1, 8, 13), (3, 8, 38), (1, 3, 33), (2, 3, 67), (1, 200, 1), (1, 201, 0),
     (5, 4, 100), (4, 4, 100)],
)  # fmt: skip
def test_agreement_percent_rounds_halves_up_from_exact_counts(
    detected: int, ran: int, percent: int
) -> None:
    assert agreement_percent(detected, ran) == percent


def test_render_provenance_matches_the_seed_tag() -> None:
    [merged] = compute_consensus([finding("a", "x"), finding("b", "y")], bots_ran=4)
    assert render_provenance(merged) == "[detected by 2/4 bots, agreement 50%]"
    [alone] = compute_consensus([finding("a", "x")])
    assert render_provenance(alone) == "[detected by 1/1 bot, agreement 100%]"


def test_markdown_groups_by_level_and_omits_empty_groups() -> None:
    items = [
        finding("bandit", "SQL injection"),
        finding("semgrep", "SQL injection via f-string"),
        finding("ruff", "Weak hash", file="app/auth.py", line=None),
    ]
    assert render_consensus_markdown(compute_consensus(items, bots_ran=3)) == (
        "### Consensus: 2 findings from 3 bots\n"
        "\n#### Confirmed (1)\n\n"
        "- **HIGH** SQL injection via f-string — `app/db.py:4` "
        "[detected by 2/3 bots, agreement 67%] — bandit, semgrep\n"
        "\n#### Needs verification (1)\n\n"
        "- **HIGH** Weak hash — `app/auth.py` [detected by 1/3 bots, agreement 33%] — ruff\n"
    )


def test_empty_input_renders_an_explicit_no_findings_line() -> None:
    assert render_consensus_markdown([]) == "### Consensus\n\nNo findings.\n"


HOSTILE = [
    "<!-- review-quorum:summary -->",
    "<img src=x onerror=alert(1)>",
    "@everyone please look",
    "close ``` the ` span",
    "**bold** [link](http://evil) | table",
    "line\nbreak\r\n# heading",
    "bidi \u202eevil\u202c zero\u200bwidth",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_untrusted_text_cannot_change_the_markdown(text: str) -> None:
    # a path with control or invisible characters is refused when read (tests/ingest/
    # test_unnameable_paths.py), so only the printable ones reach a renderer
    file = text + ".py" if text.isprintable() else "app.py"
    [item] = compute_consensus([finding(text, text, file=file)])
    rendered = render_consensus_markdown([item])
    body = rendered.split("\n\n", 2)[2]
    assert body.count("\n") == 1  # one line per finding, whatever the text holds
    body = re.sub(r"(`+).+?\1", "<code span>", body)  # code spans show text literally
    assert "<!--" not in body.replace("<!\u200b--", "")
    assert "<img" not in body
    assert "@everyone" not in body
    assert "\u202e" not in body and "\u200bwidth" not in body
    assert "**bold**" not in body and "[link]" not in body


def test_paths_with_backticks_stay_inside_one_code_span() -> None:
    [item] = compute_consensus([finding("a", "t", file="we`ird``.py", line=3)])
    assert "```we`ird``.py:3```" in render_consensus_markdown([item])
