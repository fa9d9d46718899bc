"""OpenAI Codex (`chatgpt-codex-connector[bot]`): priority badges, and findings in review bodies.

An inline finding opens with ``**<sub><sub>![P1 Badge](...)</sub></sub>  <Title>**`` (P0
critical, P1 high, P2 medium, P3 low), then prose and ``Useful? React with 👍 / 👎.``.
A "💡 Codex Review" review body either only introduces the review's inline comments
(``**Reviewed commit:**``) or carries findings that could not be posted inline: a blob
permalink line (``https://github.com/o/r/blob/<sha>/<path>#L<a>-L<b>``, the only place
the file and lines are given) followed by the badge title line and prose; each becomes a
finding. Codex states no category (a keyword guess) and no suggestion. Usage-limit
notices and cloud-task reports ("**Summary**" of work done, with "Testing") are not
findings.
"""

from __future__ import annotations

import re
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
from review_quorum.ingest.bots.keywords import guess_finding
from review_quorum.ingest.bots.labels import PRIORITIES
from review_quorum.ingest.bots.text import body_text, layout, lines_of, plain, short_title
from review_quorum.ingest.locations import line_span
from review_quorum.model import Severity

DEFAULT_SEVERITY = Severity.MEDIUM

_BADGE = re.compile(r"!\[([Pp][0-3]) Badge\]\([^()\s]{0,500}\)")
_PERMALINK = re.compile(
    r"https://[^\s/]{1,200}/[^\s/]{1,100}/[^\s/]{1,100}/blob/[0-9a-f]{7,40}/"
    r"([^\s#]{1,1024})(?:#L(\d{1,9})(?:-L(\d{1,9}))?)?"
)
_USEFUL = "Useful? React with"


class CodexParser:
    name = "codex"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if comment.kind is CommentKind.INLINE:
            line, end_line = comment_span(comment)
            draft = _finding(lines_of(body), comment.path, line, end_line)
            return Parsed(findings=(draft,)) if draft else skip("Codex comment without a badge")
        if "usage limits" in body:
            return skip("Codex usage-limit notice, not a finding")
        if "Codex Review" in body:
            return _review(body)
        if "**Summary**" in body and ("**Testing**" in body or "Comment Responses" in body):
            return skip("Codex task report (work done), not a finding")
        return skip("Codex comment with no finding layout")


def _finding(
    lines: Sequence[str], path: str, line: int | None, end_line: int | None
) -> ParsedFinding | None:
    """The badge-titled finding in `lines`, or None when no line carries a badge."""
    start = next((index for index, text in enumerate(lines) if _BADGE.search(text)), None)
    if start is None:
        return None
    badge = _BADGE.search(lines[start])
    assert badge is not None
    title = short_title(plain(_BADGE.sub("", lines[start])))
    if not title:
        return None
    rest = [text for text in lines[start + 1 :] if not text.startswith(_USEFUL)]
    text = body_text(layout(rest).prose)
    words = guess_finding(title, text)
    return ParsedFinding(
        severity=PRIORITIES.get(badge.group(1).lower(), DEFAULT_SEVERITY),
        category=words.category,
        title=title,
        file=path,
        line=line,
        end_line=end_line,
        body=text,
        category_certainty=words.certainty,
    )


def _review(body: str) -> Parsed:
    """The permalinked findings of a review body, else a note that it has none."""
    lines = lines_of(body)
    starts = [index for index, text in enumerate(lines) if _PERMALINK.fullmatch(text.strip())]
    findings = []
    last = _end(lines)
    for number, start in enumerate(starts, start=1):
        end = starts[number] if number < len(starts) else last
        link = _PERMALINK.fullmatch(lines[start].strip())
        assert link is not None
        line, end_line = line_span(link.group(2), link.group(3))
        draft = _finding(lines[start + 1 : end], link.group(1), line, end_line)
        if draft is not None:
            findings.append(msgspec.structs.replace(draft, from_summary=True, key=str(number)))
    if not findings:
        return skip("Codex review summary, not a finding (its inline comments are read)")
    return Parsed(findings=tuple(findings))


def _end(lines: Sequence[str]) -> int:
    """Where the findings of a review body end: at the "About Codex" block."""
    return next(
        (index for index, text in enumerate(lines) if "About Codex in GitHub" in text), len(lines)
    )


PARSER = CodexParser()
