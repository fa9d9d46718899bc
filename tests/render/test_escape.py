"""Escaping untrusted text for markdown: inline, block, code spans and attributes."""

from __future__ import annotations

import pytest

from review_quorum.render import escape
from review_quorum.render.markers import find_markers, marker


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain words", "plain words"),
        ("a < b & c", "a &lt; b &amp; c"),
        ("*x* _y_ `z` [l](u) |t| ~s~ $m$", r"\*x\* \_y\_ \`z\` \[l\](u) \|t\| \~s\~ \$m\$"),
        ("ping @octocat now", "ping @\u2060octocat now"),
        ("mail a@b.c", "mail a@\u2060b.c"),
        ("one\ntwo\r\n  three", "one two three"),
        ("tab\there\x00\x1b[31m", "tab\there\\[31m"),
    ],
)
def test_inline(text: str, expected: str) -> None:
    assert escape.inline(text) == expected


def test_inline_limit_adds_an_ellipsis() -> None:
    assert escape.inline("abcdefghij", limit=5) == "abcd…"


def test_block_keeps_line_breaks_and_neutralises_line_starts() -> None:
    assert escape.block("# h\n- i\n1. j\n> q\nok") == "\\# h  \n\\- i  \n1\\. j  \n\\> q  \nok"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.py", "`a.py`"),
        ("a`b", "``a`b``"),
        ("`edge`", "`` `edge` ``"),
        ("x <!-- y --> z", "`x <!\u200b-- y --\u200b> z`"),
        ("", ""),
    ],
)
def test_code_span(text: str, expected: str) -> None:
    assert escape.code(text) == expected


def test_attribute_cannot_close_a_comment_or_attribute() -> None:
    assert escape.attribute('a"--><b>') == "a&quot;&#45;&#45;&gt;&lt;b&gt;"


def test_markers_round_trip_and_reject_unsafe_payloads() -> None:
    body = f"text\n{marker('finding', 'abc123')}\n{marker('summary')}\n"
    assert find_markers(body) == [("finding", "abc123"), ("summary", "")]
    assert find_markers("`<!-- review-quorum:summary -->`") == []
    with pytest.raises(ValueError, match="marker payload"):
        marker("finding", "x --> <b>")


def test_escaped_text_never_forms_a_marker() -> None:
    hostile = "<!-- review-quorum:summary -->"
    assert find_markers(escape.block(hostile)) == []
    assert find_markers(escape.inline(hostile)) == []
