"""Finding titles from tool messages: the first sentence, without SARIF embedded links.

Tools write paragraphs ("Detected X. This bypasses Y. Instead, use Z."); a finding's title
is the first sentence of its message, on one line and at most `TITLE_LIMIT` characters.
Messages repeat (one text per rule), so results are cached.
"""

from __future__ import annotations

import re
from functools import lru_cache

TITLE_LIMIT = 200

# A sentence ends at . ! or ? followed by whitespace or the end, except after "e.g"/"i.e".
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?](?=\s|$)")
# SARIF embedded links: [text](3) or [text](https://...); \[ and \] are literal brackets.
_EMBEDDED_LINK = re.compile(r"(?<!\\)\[((?:[^\]\\]|\\.)*)\]\([^)\s]*\)")


@lru_cache(maxsize=4096)
def first_sentence(text: str) -> str:
    """The first sentence of `text`, stripped, on one line, at most `TITLE_LIMIT` characters."""
    if "[" in text:
        text = _EMBEDDED_LINK.sub(r"\1", text).replace("\\[", "[").replace("\\]", "]")
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    end = _SENTENCE_END.search(line)
    if end is not None:  # keep a question or exclamation mark, drop a full stop
        line = line[: end.start() + (line[end.start()] != ".")]
    if len(line) > TITLE_LIMIT:
        line = line[: TITLE_LIMIT - 1].rstrip() + "\u2026"
    return line
