"""Devin (`devin-ai-integration[bot]`): a JSON marker, an emoji severity and a bold title.

An inline finding opens with ``<!-- devin-review-comment {"id": ..., "file_path": ...,
"start_line": a, "end_line": b, "side": ...} -->``: the id is stable (the finding's key)
and its prefix is the kind (``BUG`` a bug, ``ANALYSIS`` a flag worth a look), the path and
lines are where the finding was first posted (the API's current line wins when the comment
has moved). Then ``<emoji> **<Title>**``: 🔴 high, 🟡 medium, 🚩 low, 📝 ``**Info: ...**``
info; prose, optional "Root Cause and Impact" and "Prompt for agents" blocks, an optional
```suggestion, and the "Open in Devin Review" badge. ``BUG`` findings are bugs
(`logic_error`, or a sharper category the words name); ``ANALYSIS`` findings are a keyword
guess. The ``✅ **Resolved**`` reply Devin posts in a finding's thread after a fix is not a
finding.
"""

from __future__ import annotations

import json
import re

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    Place,
    skip,
    stated_span,
)
from review_quorum.ingest.bots.keywords import guess_finding, refine
from review_quorum.ingest.bots.text import (
    body_text,
    bold_title,
    layout,
    lines_of,
    strip_html_comments,
    suggestion,
)
from review_quorum.ingest.locations import line_span
from review_quorum.model import Severity

EMOJI = {
    "\U0001f534": Severity.HIGH,  # red circle
    "\U0001f7e1": Severity.MEDIUM,  # yellow circle
    "\U0001f6a9": Severity.LOW,  # triangular flag
    "\U0001f4dd": Severity.INFO,  # memo ("Info:")
}
DEFAULT_SEVERITY = Severity.MEDIUM
INFO_PREFIX = "Info:"

_MARKER = re.compile(r"<!-- devin-review-comment (\{[^\n]{0,2000}?\}) -->")


class DevinParser:
    name = "devin"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        marker = _MARKER.search(body[:4000])
        if "**Resolved**" in body[:200] and marker is None:
            return skip("Devin resolution reply (the finding was fixed), not a finding")
        fields = _fields(marker.group(1)) if marker else {}
        shape = layout(lines_of(strip_html_comments(body)))
        severity, title = _headline(shape.prose)
        if not title:
            if comment.kind is not CommentKind.INLINE:
                return skip("Devin summary, not a finding (its inline comments are read)")
            return skip("Devin comment without an emoji and bold title")
        identifier = fields.get("id")
        kind = identifier.split("_")[0].split("-")[0].upper() if isinstance(identifier, str) else ""
        text = body_text(shape.prose, title, f"{INFO_PREFIX} {title}")
        words = refine("logic_error", text) if kind == "BUG" else guess_finding(title, text)
        line, end_line = stated_span(comment, _place(fields))
        draft = ParsedFinding(
            severity=severity,
            category=words.category,
            title=title,
            file=comment.path or str(fields.get("file_path") or ""),
            line=line,
            end_line=end_line,
            key=identifier if isinstance(identifier, str) else "",
            body=text,
            suggestion=suggestion(shape.fences),
            category_certainty=words.certainty,
        )
        return Parsed(findings=(draft,))


def _fields(text: str) -> dict[str, object]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _headline(prose: tuple[str, ...]) -> tuple[Severity, str]:
    """The emoji's severity and the bold title of the first line that has text."""
    for line in prose:
        stripped = line.strip()
        if not stripped:
            continue
        severity = EMOJI.get(stripped[:1])
        title = bold_title(stripped[1:] if severity is not None else stripped) or ""
        if title.startswith(INFO_PREFIX):
            title = title[len(INFO_PREFIX) :].strip()
        return DEFAULT_SEVERITY if severity is None else severity, title
    return DEFAULT_SEVERITY, ""


def _place(fields: dict[str, object]) -> Place | None:
    path = fields.get("file_path")
    if not isinstance(path, str) or not path:
        return None
    start, end = fields.get("start_line"), fields.get("end_line")
    line, end_line = line_span(
        start if isinstance(start, int) else None, end if isinstance(end, int) else None
    )
    return path, line, end_line


PARSER = DevinParser()
