"""Escaping untrusted text for markdown: inline, block, code spans and attributes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from review_quorum.markup import escape
from review_quorum.markup.markers import find_markers, marker


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


# --- huge texts: only the head that can show is escaped, with the same result ------------

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


def whole_inline(text: str, limit: int | None = None) -> str:
    """`escape.inline` as written before heads: every character of `text` folded first."""
    folded = re.sub(r"\s*[\r\n]+\s*", " ", _INVISIBLE.sub("", text)).strip()
    if limit is not None and len(folded) > limit:
        folded = folded[: max(limit - 1, 0)].rstrip() + "…"
    escaped = re.sub(
        r"([\\`*_\[\]|~$])", r"\\\1", folded.replace("&", "&amp;").replace("<", "&lt;")
    )
    return re.sub(r"@(?=[A-Za-z0-9])", "@\u2060", escaped)


def whole_block(text: str, limit: int | None = None) -> str:
    lines = _INVISIBLE.sub("", text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    rendered = "  \n".join(line_start(whole_inline(line)) for line in lines)
    if limit is not None and len(rendered) > limit:
        rendered = rendered[: max(limit - 1, 0)].rstrip("\\ \n") + "…"
    return rendered


def line_start(line: str) -> str:
    match = re.match(r"^(\d*)([#>=+.)-])", line)
    if match is None or (match.group(1) and match.group(2) not in ".)"):
        return line
    return f"{match.group(1)}\\{line[match.end(1) :]}"


pieces = st.sampled_from(
    ["a", "b ", "  ", "\n", "\r\n", " \n ", "\u200b", "\x00", "@", "@x", "1", "1.", "#", "*",
     "<", "&", "\\", "\u00a0", "\u2028", "é", "😀", "`", "-", "> "]
)  # fmt: skip


@settings(max_examples=examples(800), deadline=None)
@given(
    text=st.lists(pieces, max_size=120).map("".join),
    limit=st.integers(0, 40),
    repeat=st.integers(1, 30),
)
def test_a_limit_escapes_only_a_head_with_the_same_result(
    text: str, limit: int, repeat: int
) -> None:
    long_text = text * repeat
    assert escape.inline(long_text, limit=limit) == whole_inline(long_text, limit)
    assert escape.block(long_text, limit=limit) == whole_block(long_text, limit)
    assert escape.inline(long_text) == whole_inline(long_text)
    assert escape.block(long_text) == whole_block(long_text)


def test_a_huge_title_is_escaped_in_time_linear_in_what_shows() -> None:
    title = "word " * 4_000_000 + "<b>@octocat</b>"  # 20 MB on one line
    assert escape.inline(title, limit=20) == "word word word word…"
    cut = escape.block(title + "\n" + title, limit=30)
    assert cut == "word word word word word word…"


@pytest.mark.parametrize("limit", range(0, 14))
def test_heads_cut_exactly_at_every_boundary(limit: int) -> None:
    for width in range(limit + 4):
        for pad in (0, 1, limit + 62, 2 * limit + 62, 2 * limit + 63, 2 * limit + 64):
            for gap in (" ", "\n", "\u200b"):
                for tail in ("@Zed" + "q" * 300, "1." * 200, "  \n" * 150 + "@b"):
                    text = "x" * width + gap * pad + tail
                    assert escape.inline(text, limit=limit) == whole_inline(text, limit)
                    assert escape.block(text, limit=limit) == whole_block(text, limit)
