"""Any review bot without a dedicated reader (and people, when asked): a comment read by its words.

An inline review comment is one finding at the comment's own path and lines. Its title is
the first heading, else a bold title line, else the first sentence; a severity tag it
opens with (``[high]``, ``P1:``, ``**Medium**:``, ``nit:``) or a label near its top
(``**High Severity**``, ``Severity: low``, a ``P1`` badge, also inside an HTML comment,
`labels.stated_severity`) or a leading coloured circle gives the severity, else medium;
the category is a keyword guess with its certainty; a ```suggestion fence (or a fence
after a fix word) is the suggestion. Review and conversation bodies hold findings as
headings that name a severity or a location (`sections`), or as free-text finding lines
(``[high] src/a.py:42 message``); a body with neither is a status or summary comment,
counted with what it looked like (`status.notice`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from review_quorum.ingest import freetext
from review_quorum.ingest.bots import sections, status
from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    comment_span,
    skip,
)
from review_quorum.ingest.bots.keywords import guess_finding
from review_quorum.ingest.bots.labels import (
    circle,
    first_of,
    leading_label,
    level,
    severity_or,
    stated_severity,
)
from review_quorum.ingest.bots.text import (
    Layout,
    body_text,
    bold_title,
    first_sentence,
    layout,
    lines_of,
    paragraphs,
    plain,
    short_title,
    strip_html_comments,
    suggestion,
)
from review_quorum.model import Severity

DEFAULT_SEVERITY = Severity.MEDIUM
_LEADING_TAGS = re.compile(r"(?:<[^<>\n]{0,600}>\s?)+")  # a badge image before the title
NO_FINDINGS = "comment with no finding layout (no located or severity-tagged lines)"
FIX_WORDS = ("fix", "suggest", "instead", "replace", "change", "should be")


class GenericParser:
    """Reads any bot's comments under `name` (its login, or the name the user gave)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is CommentKind.INLINE:
            return read_inline(comment, self.name)
        return read_body(comment, self.name)


def read_inline(comment: Comment, name: str) -> Parsed:
    """One finding from an inline comment's words, or the reason it has none."""
    line, end_line = comment_span(comment)
    draft = prose_draft(comment.body, comment.path, line, end_line)
    return Parsed(findings=(draft,)) if draft else skip(f"{name} comment with no text")


def prose_draft(
    body: str, path: str, line: int | None, end_line: int | None, default: Severity | None = None
) -> ParsedFinding | None:
    """The finding a prose comment describes, located at `path` and `line`."""
    shape = layout(lines_of(strip_html_comments(body)))
    title, severity, own_line = _title(shape)
    if not title:
        return None
    text = _body(shape.prose, title if own_line else "")
    words = guess_finding(title, text)
    return ParsedFinding(
        severity=severity_or(DEFAULT_SEVERITY, severity, stated_severity(body), default),
        category=words.category,
        title=title,
        file=path,
        line=line,
        end_line=end_line,
        body=text,
        suggestion=suggestion(shape.fences, *FIX_WORDS),
        category_certainty=words.certainty,
    )


def _title(shape: Layout) -> tuple[str, Severity | None, bool]:
    """The title, a severity tag it carried, and whether it stands on a line of its own
    (a heading or bold line, left out of the body) rather than opening the text."""
    for raw in shape.prose:
        stripped = raw.strip()
        if not stripped:
            continue
        severity, rest = leading_label(_after_tags(stripped.lstrip("#").strip()))
        severity = first_of(severity, circle(stripped))
        if stripped.startswith("#"):
            return short_title(plain(rest)), severity, True
        bold = bold_title(rest)
        if bold and not _only_label(bold):
            return bold, severity, True
        break
    for paragraph in paragraphs(shape.prose):
        severity, rest = leading_label(paragraph)
        title = short_title(first_sentence(plain(rest)))
        if title and not _only_label(title):
            return title, first_of(severity, circle(paragraph)), False
    return "", None, False


def _body(prose: Sequence[str], title: str) -> str:
    """The text beside the title: without a title line, label-only lines, or the severity
    tag the text opens with."""
    kept = [line for line in prose if not _only_label(plain(line))]
    for index, line in enumerate(kept):
        if line.strip():
            kept[index] = leading_label(line.strip().lstrip("#").strip())[1]
            break
    return body_text(kept, title) if title else body_text(kept)


def _after_tags(text: str) -> str:
    """`text` without the HTML tags it opens with (``<a href="#"><img alt="P1"></a> **T**``)."""
    tags = _LEADING_TAGS.match(text)
    return text[tags.end() :] if tags else text


def _only_label(text: str) -> bool:
    """Whether `text` is no more than a severity label (``High Severity``, ``Severity: low``)."""
    words = text.replace(":", " ").split()
    if len(words) > 3:
        return False
    return stated_severity(f"**{text}**") is not None or (
        len(words) <= 2 and level(text) is not None
    )


def read_body(comment: Comment, name: str) -> Parsed:
    """Findings in a review or conversation body, else why it holds none."""
    lines = lines_of(strip_html_comments(comment.body))
    parsed = _headed(lines) or _finding_lines(lines)
    if parsed.findings or parsed.skipped:
        return parsed
    kind = status.notice(comment.body)
    if kind is not None:
        return skip(f"{name} {kind}, not a finding")
    if not comment.body.strip():
        return skip(f"empty {name} comment")
    return skip(f"{name} {NO_FINDINGS}")


def _headed(lines: Sequence[str]) -> Parsed | None:
    drafts = []
    for section in sections.sections(lines):
        heading = sections.read_heading(section.text)
        if heading.severity is None and heading.place is None:
            continue
        draft = sections.section_draft(section, heading, DEFAULT_SEVERITY, *FIX_WORDS)
        if draft is not None:
            drafts.append(draft)
    return Parsed(findings=tuple(drafts)) if drafts else None


def _finding_lines(lines: Sequence[str]) -> Parsed:
    outcomes = [outcome for _, outcome in freetext.parse_lines(lines)]
    return Parsed(
        findings=tuple(
            msgspec.structs.replace(outcome, from_summary=True)
            for outcome in outcomes
            if isinstance(outcome, ParsedFinding)
        ),
        skipped=tuple(outcome for outcome in outcomes if isinstance(outcome, str)),
    )
