"""Escaping untrusted text (bot titles, paths, messages) for GitHub-flavoured markdown.

Bot output is data, never markup. Everything a bot wrote passes through one of these
functions before it reaches a rendered body, so that it cannot break our markdown, inject
HTML, close a code span, fake one of our hidden markers, or @-mention people. Control
characters and bidirectional overrides (Trojan Source) are removed outright.

Bot text can be huge (a 200 MB title). Where a limit cuts the result, only the head of
the text that can show is escaped: folding is local (characters are dropped one by one,
and a run of white space with a line break becomes one space), so folding a head of the
text gives a head of the folded whole, exact up to its trailing white space.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")
# ASCII punctuation that means something to CommonMark or GFM (or GitHub's math) inline.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~$])")
# What turns a line into a heading, list item, quote or rule when it starts a line.
_BLOCK_START = re.compile(r"^(\d*)([#>=+.)-])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_WORD_JOINER = "\u2060"


def clean(text: str) -> str:
    """Remove control and invisible direction characters; keep ordinary text intact."""
    return _INVISIBLE.sub("", text)


def one_line(text: str) -> str:
    """Untrusted text folded onto a single line."""
    text = clean(text)
    if "\n" in text or "\r" in text:  # the regular expression alone would try every space
        text = _LINE_BREAKS.sub(" ", text)
    return text.strip()


def _folded_head(text: str, needed: int) -> str:
    """`one_line(text)`, or a head of it longer than `needed` when only that can show."""
    if len(text) > 2 * needed + _SLACK:
        head = one_line(text[: 2 * needed + _SLACK])
        if len(head) > needed:
            return head
    return one_line(text)


_SLACK = 64


def inline(text: str, *, limit: int | None = None) -> str:
    """Untrusted text as inert inline markdown: no HTML, links, emphasis or mentions."""
    folded = one_line(text) if limit is None else _folded_head(text, limit)
    if limit is not None and len(folded) > limit:
        folded = folded[: max(limit - 1, 0)].rstrip() + "…"
    return _escape_folded(folded)


def _escape_folded(folded: str) -> str:
    escaped = folded.replace("&", "&amp;").replace("<", "&lt;")
    escaped = _MARKDOWN_PUNCTUATION.sub(r"\\\1", escaped)
    return _MENTION.sub("@" + _WORD_JOINER, escaped)


def block(text: str, *, limit: int | None = None) -> str:
    """Untrusted multi-line text as inert markdown, keeping its line breaks."""
    lines = clean(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    pieces: list[str] = []
    size = -2  # the separators between lines
    for line in lines:
        if limit is not None and size > limit:
            break  # what follows is cut off anyway
        # One character more than can show, and one more for a mention cut at the end.
        folded = one_line(line) if limit is None else _folded_head(line, limit - size + 2)
        pieces.append(_neutralise_line_start(_escape_folded(folded)))
        size += len(pieces[-1]) + 2
    rendered = "  \n".join(pieces)
    if limit is not None and len(rendered) > limit:
        rendered = rendered[: max(limit - 1, 0)].rstrip("\\ \n") + "…"
    return rendered


def _neutralise_line_start(line: str) -> str:
    match = _BLOCK_START.match(line)
    if match is None or (match.group(1) and match.group(2) not in ".)"):
        return line
    return f"{match.group(1)}\\{line[match.end(1) :]}"


def plain(text: str, *, limit: int) -> str:
    """Untrusted text for a plain-text field (a check-run annotation): no control or
    direction characters, no @-mentions, at most `limit` characters, line breaks kept."""
    kept = clean(text[: limit + _SLACK]).replace("\r\n", "\n").replace("\r", "\n")
    kept = _MENTION.sub("@" + _WORD_JOINER, kept)
    if len(kept) > limit:
        kept = kept[: max(limit - 1, 0)].rstrip() + "…"
    return kept


def code(text: str) -> str:
    """Untrusted text as one code span that nothing inside it can close or escape."""
    folded = one_line(text).replace("<!--", "<!\u200b--").replace("-->", "--\u200b>")
    longest = max((len(run) for run in re.findall(r"`+", folded)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {folded} " if folded.startswith("`") or folded.endswith("`") else folded
    return f"{fence}{padded}{fence}" if folded else ""


def attribute(text: str) -> str:
    """Untrusted text for an HTML attribute value or hidden-marker payload."""
    return (
        one_line(text)
        .replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("--", "&#45;&#45;")
    )
