"""Plain-text helpers the bot-comment parsers share: markup to plain text, titles, fences, spans.

Bot bodies are untrusted data and can be large (GitHub allows 65,536 characters, archives
hold more), so every helper runs in linear time. Blocks are found by scanning lines or with
`str.find`; each regular expression is either matched at a line start or bounds every
repeat with a character class that excludes the character a match starts with, so no input
can make it backtrack quadratically. Nothing here builds markup: results are plain strings
that the renderers escape later.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

import msgspec

from review_quorum.ingest.locations import line_span as line_span  # parsers read it here

TITLE_LIMIT = 200
SNIPPET_LIMIT = 8000
BODY_LIMIT = 4000
_PARAGRAPH_LIMIT = 4000

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")
_IMAGE_OR_LINK = re.compile(r"(!?)\[([^\[\]\n]{0,500})\]\(([^()\s]{0,2000})\)")
# Only real HTML tag names, so that generic types such as `Vec<T>` in prose survive.
_TAG = re.compile(
    r"</?(?:a|b|i|s|u|p|em|strong|code|pre|br|hr|div|span|img|sup|sub|details|summary"
    r"|blockquote|table|thead|tbody|tr|td|th|ul|ol|li|h[1-6]|del|ins|kbd|strike|tt|picture"
    r"|source|small|big|mark|abbr|cite|dl|dt|dd|center|font)(?=[\s/>])[^<>\n]{0,1000}>",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"(`{1,3})([^`\n]{1,1000})\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]{1,300})(?<=\S)\1(?![\w*])")
_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "no"})
_SUMMARY = re.compile(r"<summary>([^<\n]{0,500}(?:<(?!/summary>)[^<\n]{0,500}){0,20})</summary>")
_DETAILS_TAG = re.compile(r"</details>|<details")
_HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s+")
# Where `html.unescape` can change anything: an ampersand before a character that can
# start a reference (it leaves "&", "& " and "&&" as they are).
_REFERENCE = re.compile(r"&[^\t\n\f <&;]")


def lines_of(text: str) -> list[str]:
    """The lines of `text`, whatever its line endings."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def unquote(line: str) -> str:
    """`line` without its blockquote markers (``> > text`` becomes ``text``)."""
    position, length = 0, len(line)
    while True:
        probe = position
        while probe < length and line[probe] in " \t":
            probe += 1
        if probe == length or line[probe] != ">":
            return line[position:] if position else line
        position = probe + 1
        if position < length and line[position] == " ":
            position += 1


def strip_html_comments(text: str) -> str:
    """`text` without ``<!-- ... -->`` comments; an unclosed comment runs to the end."""
    parts: list[str] = []
    position = 0
    while True:
        start = text.find("<!--", position)
        if start < 0:
            parts.append(text[position:])
            return "".join(parts)
        parts.append(text[position:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(parts)
        position = end + 3


def plain(text: str) -> str:
    """Markdown and HTML reduced to one line of plain text (links keep their text)."""
    pieces = _CODE_SPAN.split(strip_html_comments(text))
    # split() yields prose, backticks, code, prose, ...; code keeps its text as it is.
    out: list[str] = []
    for index, piece in enumerate(pieces):
        kind = index % 3
        if kind == 0:
            out.append(_prose(piece))
        elif kind == 2:
            out.append(piece.strip())
    return _SPACE.sub(" ", "".join(out)).strip()


def _prose(text: str) -> str:
    text = _IMAGE_OR_LINK.sub(lambda match: match.group(2), text)
    text = _TAG.sub(" ", text).replace("**", "")
    text = unescape(_EMPHASIS.sub(lambda match: match.group(2), text))
    return text.replace("\u200b", "")  # zero-width spaces some bots end comments with


def unescape(text: str) -> str:
    """`text` with its HTML character references replaced (`html.unescape`). The module
    and its table of two thousand entities load only for text that holds a reference."""
    if _REFERENCE.search(text) is None:
        return text
    import html

    return html.unescape(text)


def clamp(text: str, limit: int = TITLE_LIMIT) -> str:
    """`text` cut to at most `limit` characters at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def short_title(text: str) -> str:
    """A finding title: one line, no leading emoji, no closing full stop (as SARIF titles),
    at most `TITLE_LIMIT` characters."""
    start = 0
    while start < len(text) and not text[start].isascii() and not text[start].isalnum():
        start += 1  # "🧹 Sort the imports", "⚠️ ..."
    text = text[start:].strip()
    if text.endswith((".", "。")) and not text.endswith(".."):
        text = text[:-1].rstrip()
    return clamp(text)


def first_sentence(text: str) -> str:
    """The first sentence of plain `text` (abbreviations such as "e.g." do not end one)."""
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        if match.group() == ".":
            word = text[text.rfind(" ", 0, match.start()) + 1 : match.start()]
            word = word.lower().lstrip("(")
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
        return text[:end].strip()
    return text.strip()


def title_from(text: str) -> str:
    """A short plain title from a markdown paragraph: its first sentence, clamped."""
    text = _HEADING_MARK.sub("", text[:_PARAGRAPH_LIMIT], count=1)
    return short_title(first_sentence(plain(text)))


def summary_raw(line: str) -> str | None:
    """The markup inside a ``<summary>...</summary>`` on `line`, or None."""
    if "<summary>" not in line:
        return None
    match = _SUMMARY.search(line)
    return match.group(1) if match else None


def summary_text(line: str) -> str | None:
    """The plain text of a ``<summary>...</summary>`` on `line`, or None."""
    raw = summary_raw(line)
    return None if raw is None else plain(raw)


def fence_end(lines: Sequence[str], index: int) -> int | None:
    """If `lines[index]` opens a fenced block, the index just after the block; else None."""
    opening = _FENCE_OPEN.match(lines[index])
    if opening is None:
        return None
    return _fence_body(lines, index + 1, opening.group(1))[1]


def bold_title(line: str) -> str | None:
    """The bold span a stripped `line` starts with, unless it is a ``**Label:**``."""
    stripped = line.strip()
    if not stripped.startswith("**"):
        return None
    close = stripped.find("**", 2)
    if close <= 2:
        return None
    span = stripped[2:close]
    if span.rstrip().endswith(":") or stripped[close + 2 : close + 3] == ":":
        return None
    return short_title(plain(span)) or None


class Fence(msgspec.Struct, frozen=True):
    """One fenced code block: its info string, its text, and what introduced it.

    `context` is the ``<summary>`` of the ``<details>`` the fence sits in, else the last
    prose line before it, so a parser can tell a proposed fix from an illustration.
    """

    info: str
    body: str
    context: str


class Layout(msgspec.Struct, frozen=True):
    """A body split for parsing: prose lines outside fences and ``<details>``, and fences."""

    prose: tuple[str, ...]
    fences: tuple[Fence, ...]


def layout(lines: Sequence[str]) -> Layout:
    """Separate top-level prose from fenced blocks and collapsed ``<details>`` in one pass."""
    prose: list[str] = []
    fences: list[Fence] = []
    depth = 0
    summary = ""
    last_prose = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        opening = _FENCE_OPEN.match(line)
        if opening is not None:
            body, index = _fence_body(lines, index + 1, opening.group(1))
            fences.append(Fence(opening.group(2).lower(), body, summary or last_prose))
            if depth <= 0:
                prose.append("")  # a fence ends the paragraph before it
            continue
        markup = outside_code(line)
        summary = summary_text(markup) or summary
        text, depth = _outside_details(line, depth)
        if text is line:
            prose.append(line)
            if line.strip():
                last_prose = line.strip()
        elif text.strip():
            prose.append(text)
            last_prose = text.strip()
        elif prose and prose[-1]:
            prose.append("")  # a collapsed block ends the paragraph before it
        if depth == 0:
            summary = ""
        index += 1
    return Layout(tuple(prose), tuple(fences))


def _outside_details(line: str, depth: int) -> tuple[str, int]:
    """The parts of `line` outside collapsed ``<details>`` blocks when `depth` blocks are open
    before it, and the depth after it. `line` itself when no block touches it. A closing tag
    with no block open is text (a comment about a template quotes it), not the end of one."""
    if "details" not in line:
        return (line, depth) if depth == 0 else ("", depth)
    masked = _CODE_SPAN.sub(lambda span: " " * len(span.group()), line) if "`" in line else line
    kept: list[str] = []
    position = 0
    for tag in _DETAILS_TAG.finditer(masked):
        if depth == 0:
            kept.append(line[position : tag.start()])
        if tag.group() != "</details>":
            depth += 1
        elif depth > 0:
            depth -= 1
        position = tag.end()
    if position == 0:
        return (line, depth) if depth == 0 else ("", depth)
    if depth == 0:
        kept.append(line[position:])
    return "".join(kept), depth


def outside_code(line: str) -> str:
    """`line` with its code spans emptied, so that markup quoted in backticks (a Copilot
    comment about a stray `</details>`) is not taken for the comment's own markup."""
    if "`" not in line:
        return line
    return _CODE_SPAN.sub("``", line)


def _fence_body(lines: Sequence[str], index: int, marker: str) -> tuple[str, int]:
    """The text of a fence that opened just before `index`, and the index after it."""
    start = index
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped.startswith(marker) and not stripped.lstrip(marker[0]):
            return "\n".join(lines[start:index]), index + 1
        index += 1
    return "\n".join(lines[start:]), index


def paragraphs(prose: Sequence[str]) -> Iterator[str]:
    """The blank-line separated paragraphs of `prose`, each joined onto one line."""
    current: list[str] = []
    for line in prose:
        if line.strip():
            current.append(line.strip())
        elif current:
            yield " ".join(current)
            current = []
    if current:
        yield " ".join(current)


def body_text(prose: Sequence[str], *leave_out: str) -> str:
    """The plain text of `prose`, paragraph by paragraph, without the paragraphs whose
    plain text is one of `leave_out` (a title line), at most `BODY_LIMIT` characters."""
    kept = (
        text
        for text in (
            plain(_HEADING_MARK.sub("", paragraph, count=1)) for paragraph in paragraphs(prose)
        )
        if text and text not in leave_out and short_title(text) not in leave_out
    )
    return clamp("\n\n".join(kept), BODY_LIMIT)


def suggestion(fences: Sequence[Fence], *fix_words: str) -> str:
    """The proposed change: a ```suggestion fence, else a fence introduced by a fix word."""
    for fence in fences:
        if fence.info == "suggestion":
            return fence.body[:SNIPPET_LIMIT]
    for fence in fences:
        context = fence.context.lower()
        if any(word in context for word in fix_words) and "prompt" not in context:
            return fence.body[:SNIPPET_LIMIT]
    return ""


@functools.cache
def _diff_anchor() -> re.Pattern[str]:
    """A link to a line of the pull request's diff (compiled for the first body read)."""
    return re.compile(r"#diff-([0-9a-f]{64})R(\d{1,9})(?:-R(\d{1,9}))?")


def diff_anchor(text: str) -> tuple[str, int | None, int | None] | None:
    """A ``#diff-<sha256 of the path>Ra-Rb`` link target in `text`: (hash, line, end line)."""
    anchor = _diff_anchor().search(text)
    if anchor is None:
        return None
    return (anchor.group(1), *line_span(anchor.group(2), anchor.group(3)))


def bare_label(segment: str) -> str:
    """A header segment without its emphasis, emoji or ``:shortcode:``, lower-cased."""
    text = segment.strip().strip("_*").strip()
    if text.startswith(":"):
        close = text.find(":", 1)
        if 1 < close <= 40:
            text = text[close + 1 :]
    start = 0
    while start < len(text) and not text[start].isalnum():
        start += 1
    return " ".join(text[start:].split()).lower()
