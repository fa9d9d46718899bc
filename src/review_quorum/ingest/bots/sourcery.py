"""Sourcery (`sourcery-ai[bot]`): labelled inline findings, and the review's prompt block.

An inline finding opens with a bold label, ``**issue (bug_risk):** <title>`` (optionally
``🚨``; ``**security (<rule id>):**`` for static-analysis results; plain
``**suggestion:**`` too), then explanation and an optional ```suggestion fence or
"Suggested implementation:" block. A review body is high-level feedback plus a "Prompt for
AI Agents" block whose "Individual Comments" repeat every inline finding with
``<location path="..." line_range="a-b" />`` (older: ``<location> `path:38-44` </location>``);
those are read as findings too, and the reader drops the ones an inline comment in the
same input repeats. The reviewer's guide and high-level feedback are not findings.
"""

from __future__ import annotations

import functools
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
from review_quorum.ingest.bots.keywords import refine
from review_quorum.ingest.bots.text import (
    body_text,
    first_sentence,
    layout,
    line_span,
    lines_of,
    paragraphs,
    plain,
    short_title,
    suggestion,
)
from review_quorum.ingest.categories import family_category, hint_category
from review_quorum.model import Severity

TYPES = {
    "issue": Severity.HIGH,
    "suggestion": Severity.MEDIUM,
    "nitpick": Severity.LOW,
    "security": Severity.HIGH,
}
NOT_FINDINGS = frozenset({"praise", "question", "thought", "note", "chore"})
CATEGORIES = {
    "bug_risk": "logic_error",
    "security": "security",
    "testing": "testing",
    "typo": "documentation",
    "documentation": "documentation",
    "code_refinement": "maintainability",
    "code_quality": "maintainability",
    "complexity": "maintainability",
    "performance": "performance",
}
FIX_WORDS = ("suggested implementation",)

_LABEL = re.compile(
    r"\*\*(?:[^\w\s*]{1,8}\s*)?([A-Za-z_]{2,20})(?:\s*\(([^()\n]{1,200})\))?:\*\*\s?(.*)"
)
_LOCATION = re.compile(
    r"<location\s+path=\"([^\"\n]{1,1024})\"(?:\s+line_range=\"(\d{1,9})(?:-(\d{1,9}))?\")?"
)
_COMMENT_HEADING = "### Comment "


class SourceryParser:
    name = "sourcery"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is CommentKind.INLINE:
            return _inline(comment)
        body = comment.body
        if "## Individual Comments" in body:
            return _prompt_block(body)
        if "review_guide" in body or "## Reviewer's Guide" in body:
            return skip("Sourcery reviewer's guide, not a finding")
        if "larger than the review limit" in body:
            return skip("Sourcery did not review: the pull request is over its size limit")
        return skip("Sourcery review overview (high-level feedback has no location)")


def _inline(comment: Comment) -> Parsed:
    line, end_line = comment_span(comment)
    outcome = parse_finding(lines_of(comment.body), comment.path, line, end_line)
    return skip(outcome) if isinstance(outcome, str) else Parsed(findings=(outcome,))


def parse_finding(
    lines: Sequence[str], path: str, line: int | None, end_line: int | None
) -> ParsedFinding | str:
    """One labelled Sourcery finding, or the reason it is not one."""
    first = next((index for index, text in enumerate(lines) if text.strip()), None)
    label = _LABEL.match(lines[first].strip()) if first is not None else None
    if first is None or label is None:
        return "no Sourcery label (**type (category):**) on the first line"
    kind = label.group(1).lower()
    if kind in NOT_FINDINGS or kind not in TYPES:
        return f"Sourcery {kind!r} comment, not a finding"
    shape = layout([label.group(3), *lines[first + 1 :]])
    title = short_title(first_sentence(plain(next(paragraphs(shape.prose), ""))))
    if not title:
        return "Sourcery label with no title text"
    severity, category = _grade(kind, (label.group(2) or "").strip().lower())
    body = body_text(shape.prose)
    words = refine(category, body)
    return ParsedFinding(
        severity=severity,
        category=words.category,
        title=title,
        file=path,
        line=line,
        end_line=end_line,
        body=body,
        suggestion=suggestion(shape.fences, *FIX_WORDS),
        category_certainty=words.certainty,
        rule_id=label.group(2).strip() if label.group(2) and "." in label.group(2) else "",
    )


def _grade(kind: str, category: str) -> tuple[Severity, str]:
    """Severity from the label type; a security type or category is at least high.

    Static-analysis labels carry an opengrep rule id (``python.lang.security.x``) where the
    category goes; it is categorised like the same rule in SARIF input.
    """
    severity = TYPES[kind]
    mapped = CATEGORIES.get(category)
    if mapped is None and "." in category:
        mapped = family_category("opengrep", category) or hint_category("opengrep", category)
    if kind == "security" or mapped == "security":
        return max(severity, Severity.HIGH), "security"
    return severity, mapped or "other"


def _prompt_block(body: str) -> Parsed:
    """The "Individual Comments" of a review body's prompt block, each with its location."""
    section = body[body.find("## Individual Comments") :]
    findings: list[ParsedFinding] = []
    skipped: list[str] = []
    for chunk in section.split(_COMMENT_HEADING)[1:]:
        outcome = _individual(chunk)
        if isinstance(outcome, ParsedFinding):
            findings.append(outcome)
        else:
            skipped.append(outcome)
    return Parsed(tuple(findings), tuple(skipped))


def _individual(chunk: str) -> ParsedFinding | str:
    start = chunk.find("<issue_to_address>")
    end = chunk.find("</issue_to_address>", start + 1)
    if start < 0:
        return "Sourcery individual comment without <issue_to_address>"
    text = chunk[start + 18 : end if end > start else len(chunk)]
    path, line, end_line = _location(chunk[:start])
    outcome = parse_finding(lines_of(text), path, line, end_line)
    if isinstance(outcome, str):
        return outcome
    if not path:
        return f"Sourcery individual comment {outcome.title!r} without a <location>"
    return msgspec.structs.replace(outcome, from_summary=True)


@functools.cache
def _old_location() -> re.Pattern[str]:
    """The location tag of older comments (compiled for the first one met)."""
    return re.compile(r"<location>\s*`?([^`<\n]{1,1024}?)`?\s*</location>")


def _location(text: str) -> tuple[str, int | None, int | None]:
    match = _LOCATION.search(text)
    if match is not None:
        return (match.group(1).strip(), *line_span(match.group(2), match.group(3)))
    old = _old_location().search(text)
    if old is None:
        return "", None, None
    path, _, numbers = old.group(1).strip().rpartition(":")
    if not path:
        return old.group(1).strip(), None, None
    start, _, end = numbers.partition("-")
    return (path, *line_span(start, end or None))


PARSER = SourceryParser()
