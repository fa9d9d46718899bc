"""Finding titles from tool messages: the first sentence, without SARIF embedded links.

Tools write paragraphs ("Detected X. This bypasses Y. Instead, use Z."); a finding's title
is the first sentence of its message, on one line and at most `TITLE_LIMIT` characters.
`first_sentence` caches its results; bulk readers keep their own cache over `sentence`.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

TITLE_LIMIT = 200

# A sentence ends at . ! or ? before a space, a tab or the end of the line, except in the
# abbreviations "e.g." and "i.e.".
_SENTENCE_END = re.compile(r"[.!?](?=[ \t]|$)")
_ABBREVIATIONS = ("e.g", "i.e")


@cache
def _embedded_link() -> re.Pattern[str]:
    """SARIF embedded links: [text](3) or [text](https://...); \\[ and \\] are literal
    brackets (compiled for the first message holding a bracket)."""
    return re.compile(r"(?<!\\)\[((?:[^\]\\]|\\.)*)\]\([^)\s]*\)")


def sentence(text: str) -> str:
    """The first sentence of `text`, stripped, on one line, at most `TITLE_LIMIT` characters."""
    if "[" in text:
        text = _embedded_link().sub(r"\1", text).replace("\\[", "[").replace("\\]", "]")
    line = text.strip()
    if "\n" in line or "\r" in line:
        parts = line.replace("\r", "\n").split("\n")
        line = next((part.strip() for part in parts if part.strip()), "")
    end = _SENTENCE_END.search(line)
    if end is not None and ("e.g" in line or "i.e" in line):
        while end is not None and _is_abbreviation(line, end.start()):
            end = _SENTENCE_END.search(line, end.end())
    if end is not None:  # keep a question or exclamation mark, drop a full stop
        line = line[: end.start() + (line[end.start()] != ".")]
    if len(line) > TITLE_LIMIT:
        line = line[: TITLE_LIMIT - 1].rstrip() + "\u2026"
    return line


# Messages repeat (one text per rule), so callers without their own cache share this one.
first_sentence = lru_cache(maxsize=4096)(sentence)


def _is_abbreviation(line: str, stop: int) -> bool:
    """Whether the full stop at `stop` ends "e.g." or "i.e." (as a word of its own)."""
    return line.endswith(_ABBREVIATIONS, 0, stop) and (stop < 4 or not line[stop - 4].isalnum())
