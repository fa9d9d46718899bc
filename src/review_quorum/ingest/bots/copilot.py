"""GitHub Copilot: plain-prose inline comments (login `Copilot`) and review overviews.

Inline comments carry no header, severity or title markup: the first sentence is the
title, an optional ``[nitpick]`` prefix lowers the severity, and a ```suggestion fence is
the proposed change. Markers such as ``P1:`` come from repository instructions, not from
Copilot, and are left in the title. Review bodies (login
`copilot-pull-request-reviewer[bot]`) are overviews, except the "Comments suppressed due to
low confidence" block, whose ``**path:line**`` entries exist only there and are read as
low-severity, low-confidence findings. Copilot has no category markup, so the category is
a keyword guess with its certainty (docs/bot-comments.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    comment_span,
    skip,
)
from review_quorum.ingest.bots.keywords import guess
from review_quorum.ingest.bots.text import (
    body_text,
    fence_end,
    layout,
    line_span,
    lines_of,
    paragraphs,
    plain,
    suggestion,
    summary_text,
    title_from,
)
from review_quorum.model import Severity

NITPICK = "[nitpick]"
SUPPRESSED_CONFIDENCE = 0.3
_SUPPRESSED = "comments suppressed due to low confidence"


class CopilotParser:
    name = "copilot"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is CommentKind.INLINE:
            return _inline(comment)
        if comment.kind is CommentKind.ISSUE:
            return skip("Copilot conversation comment, not a review finding")
        parsed = _suppressed(lines_of(comment.body))
        if parsed.findings or parsed.skipped:
            return parsed
        if "wasn't able to review" in comment.body or "was not able to review" in comment.body:
            return skip("Copilot could not review any files")
        return skip("Copilot review overview, not a finding (its inline comments are read)")


def _inline(comment: Comment) -> Parsed:
    shape = layout(lines_of(comment.body))
    text = next(paragraphs(shape.prose), "")
    severity, text = _nitpick(text)
    title = title_from(text)
    if not title:
        return skip("Copilot comment with no text")
    line, end_line = comment_span(comment)
    body = body_text(shape.prose)
    words = guess(body)
    return Parsed(
        findings=(
            ParsedFinding(
                severity=severity,
                category=words.category,
                title=title,
                file=comment.path,
                line=line,
                end_line=end_line,
                body=body,
                suggestion=suggestion(shape.fences),
                category_certainty=words.certainty,
            ),
        )
    )


def _nitpick(text: str) -> tuple[Severity, str]:
    stripped = text.lstrip()
    if stripped.lower().startswith(NITPICK):
        return Severity.LOW, stripped[len(NITPICK) :].lstrip()
    return Severity.MEDIUM, text


class _Suppressed(msgspec.Struct):
    location: str
    text: list[str] = msgspec.field(default_factory=list)


def _suppressed(lines: Sequence[str]) -> Parsed:
    """The entries of the "Comments suppressed due to low confidence" block."""
    entries: list[_Suppressed] = []
    inside = False
    index = 0
    while index < len(lines):
        after_fence = fence_end(lines, index)
        if after_fence is not None:
            index = after_fence  # the fence shows the code line, not a proposed change
            continue
        line = lines[index].strip()
        index += 1
        label = summary_text(line)
        if label is not None:
            inside = label.lower().startswith(_SUPPRESSED)
        elif inside and line.startswith("</details>"):
            inside = False
        elif inside and line.startswith("**") and line.endswith("**") and len(line) > 4:
            entries.append(_Suppressed(line[2:-2]))
        elif inside and entries and line:
            entries[-1].text.append(line.removeprefix("* ").removeprefix("- "))
    outcomes = [_suppressed_draft(entry) for entry in entries]
    return Parsed(
        findings=tuple(outcome for outcome in outcomes if isinstance(outcome, ParsedFinding)),
        skipped=tuple(outcome for outcome in outcomes if isinstance(outcome, str)),
    )


def _suppressed_draft(entry: _Suppressed) -> ParsedFinding | str:
    path, _, numbers = entry.location.rpartition(":")
    start, _, end = numbers.partition("-")
    line, end_line = line_span(start, end or None)
    severity, text = _nitpick(" ".join(entry.text))
    title = title_from(text)
    if not path or line is None or not title:
        return "suppressed Copilot comment without a path:line location or text"
    words = guess(plain(text))
    return ParsedFinding(
        severity=min(severity, Severity.LOW),
        category=words.category,
        category_certainty=words.certainty,
        body=plain(text),
        title=title,
        file=path.strip(),
        line=line,
        end_line=end_line,
        confidence=SUPPRESSED_CONFIDENCE,
        from_summary=True,
    )


PARSER = CopilotParser()
