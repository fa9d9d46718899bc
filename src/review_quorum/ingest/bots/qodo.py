"""Qodo: "Code Review by Qodo" (`qodo-code-review[bot]`) and Qodo Merge (`qodo-merge-pro[bot]`).

Code Review by Qodo is one issue comment edited in place: banner images ("Action
required", "Remediation recommended") group numbered ``<summary>  N.  title <code>...``
items whose ``<code>`` tags give the status (resolved, dismissed), the kind and the
category (``☼ Reliability``, ``≡ Correctness``, ``⛨ Security``, ``⚙ Maintainability``); the
nested "Code" section links ``path[R74-79]``. Resolved and dismissed items are reported as
skipped, not findings. Qodo Merge's "PR Code Suggestions" table gives a category column, a
``path [a-b]`` link, a diff and an importance score; its "PR Reviewer Guide" focus areas
carry only a ``#diff-<sha256 of path>Ra-Rb`` anchor, which the reader resolves against
the paths it has seen.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    comment_span,
    skip,
)
from review_quorum.ingest.bots.keywords import Guess, guess_finding
from review_quorum.ingest.bots.text import (
    BODY_LIMIT,
    SNIPPET_LIMIT,
    bare_label,
    clamp,
    diff_anchor,
    layout,
    line_span,
    lines_of,
    plain,
    short_title,
    summary_raw,
    unquote,
)
from review_quorum.model import Severity

BANNERS = {
    "action required": Severity.HIGH,
    "remediation recommended": Severity.MEDIUM,
    "review recommended": Severity.MEDIUM,
}
BADGE_LEVELS = {
    "critical": Severity.CRITICAL,
    "high": Severity.HIGH,
    "medium": Severity.MEDIUM,
    "low": Severity.LOW,
}
REVIEW_CATEGORIES = {
    "security": "security",
    "correctness": "logic_error",
    "reliability": "error_handling",
    "maintainability": "maintainability",
    "performance": "performance",
}
MERGE_CATEGORIES = {
    "possible issue": "logic_error",
    "possible bug": "logic_error",
    "bug": "logic_error",
    "security": "security",
    "performance": "performance",
    "error handling": "error_handling",
    "concurrency": "concurrency",
    "best practice": "maintainability",
    "general": "maintainability",
    "high-level": "maintainability",
    "enhancement": "maintainability",
    "maintainability": "maintainability",
    "documentation": "documentation",
    "typo": "documentation",
    "tests": "testing",
    "testing": "testing",
}
CLOSED_STATUSES = ("resolved", "dismissed")

_ALT = re.compile(r"\balt=\"([^\"\n]{0,100})\"")
_BADGE = re.compile(r"/badge/([A-Za-z]{1,20})-")
_ITEM = re.compile(r"\s*(\d{1,4})\.\s+(.*)")
_CODE_TAG = re.compile(r"<code>([^<\n]{0,200})</code>")
_CODE_LINK = re.compile(r"\[([^\[\]\s]{1,1024})\[R?(\d{1,9})(?:-R?(\d{1,9}))?\]\]")
_LINK_TEXT = re.compile(r"[\[>]([^\[\]<>\s]{1,1024}) \[(\d{1,9})(?:-(\d{1,9}))?\]")
_CATEGORY_CELL = re.compile(r"<td rowspan=\"?\d{1,4}\"?>([^<\n]{1,100})</td>")
_IMPORTANCE = re.compile(r"Suggestion importance\[1-10\]: (\d{1,2})")
_IMPACT = re.compile(r"<td align=center>\s*(High|Medium|Low)\b")
_FOCUS = re.compile(r"<summary><a href=['\"][^'\"\n]{0,2000}['\"]><strong>([^<\n]{1,300})</strong>")


class QodoParser:
    name = "qodo"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if "Code Review by Qodo" in body or comment.kind is CommentKind.INLINE:
            parsed = _code_review(comment)
            if parsed.findings or parsed.skipped:
                return parsed
        if "PR Code Suggestions" in body:
            return _code_suggestions(body)
        if "PR Reviewer Guide" in body:
            return _reviewer_guide(body)
        return skip("Qodo comment with no findings (description, compliance or status)")


class _Item(msgspec.Struct):
    number: str
    summary: str
    severity: Severity
    lines: list[str] = msgspec.field(default_factory=list)


def _code_review(comment: Comment) -> Parsed:
    items: list[_Item] = []
    severity = Severity.MEDIUM
    for line in (unquote(text) for text in lines_of(comment.body)):
        banner = _banner(line)
        raw = summary_raw(line)
        item = _ITEM.match(raw) if raw is not None else None
        if banner is not None:
            severity = banner
        elif item is not None:
            items.append(_Item(item.group(1), item.group(2), severity))
        elif items:
            items[-1].lines.append(line)
    outcomes = [_review_item(item, comment) for item in items]
    return Parsed(
        findings=tuple(outcome for outcome in outcomes if isinstance(outcome, ParsedFinding)),
        skipped=tuple(outcome for outcome in outcomes if isinstance(outcome, str)),
    )


def _banner(line: str) -> Severity | None:
    if "<img" not in line:
        return None
    alt = _ALT.search(line)
    if alt is not None and alt.group(1).strip().lower() in BANNERS:
        return BANNERS[alt.group(1).strip().lower()]
    badge = _BADGE.search(line)
    return BADGE_LEVELS.get(badge.group(1).lower()) if badge is not None else None


def _review_item(item: _Item, comment: Comment) -> ParsedFinding | str:
    codes = [bare_label(code) for code in _CODE_TAG.findall(item.summary)]
    title = short_title(plain(item.summary.split("<code>", 1)[0]))
    if not title:
        return f"Qodo finding {item.number} has no title"
    closed = next((status for status in CLOSED_STATUSES if status in codes), None)
    if closed is not None:
        return f"Qodo finding {item.number} {title!r} is marked {closed}"
    category = next((REVIEW_CATEGORIES[code] for code in codes if code in REVIEW_CATEGORIES), None)
    text = "\n".join(item.lines)
    link = _CODE_LINK.search(text)
    path, (line, end_line) = comment.path, comment_span(comment)
    if link is not None:
        path, (line, end_line) = link.group(1), line_span(link.group(2), link.group(3))
    body = _between(text, "<pre>", "</pre>")
    words = Guess(category, 1.0) if category else guess_finding(title, body)
    return ParsedFinding(
        severity=item.severity,
        category=words.category,
        title=title,
        file=path,
        line=line,
        end_line=end_line,
        from_summary=comment.kind is not CommentKind.INLINE,
        key=item.number,
        body=body,
        category_certainty=words.certainty,
    )


def _between(text: str, opening: str, closing: str) -> str:
    """The plain text between the first `opening` and the `closing` after it, if any."""
    start = text.find(opening)
    if start < 0:
        return ""
    end = text.find(closing, start)
    return clamp(plain(text[start + len(opening) : end if end > start else None]), BODY_LIMIT)


def _code_suggestions(body: str) -> Parsed:
    findings: list[ParsedFinding] = []
    category = "other"
    for row in body.split("<tr>")[1:]:
        cell = _CATEGORY_CELL.search(row)
        if cell is not None:
            category = MERGE_CATEGORIES.get(cell.group(1).strip().lower(), "other")
        draft = _suggestion(row, category, str(len(findings) + 1))
        if draft is not None:
            findings.append(draft)
    if not findings:
        return skip("Qodo code suggestions table with no suggestions")
    return Parsed(findings=tuple(findings))


def _suggestion(row: str, category: str, key: str) -> ParsedFinding | None:
    lines = lines_of(row)
    titles = (raw for raw in map(summary_raw, lines) if raw is not None)
    title = next((plain(raw) for raw in titles if not raw.startswith("Suggestion importance")), "")
    if not title:
        return None
    path, line, end_line, anchor = _location(row)
    fences = [fence for fence in layout(lines).fences if fence.info == "diff"]
    body = _between(row[row.find("___") :], "**", "**") if "___" in row else ""
    words = Guess(category, 1.0) if category != "other" else guess_finding(title, body)
    return ParsedFinding(
        severity=_merge_severity(row),
        category=words.category,
        title=short_title(title),
        file=path,
        line=line,
        end_line=end_line,
        from_summary=True,
        diff_anchor=anchor,
        key=key,
        body=body,
        suggestion=fences[0].body[:SNIPPET_LIMIT] if fences else "",
        category_certainty=words.certainty,
    )


def _location(text: str) -> tuple[str, int | None, int | None, str]:
    link = _LINK_TEXT.search(text)
    if link is not None:
        return (link.group(1), *line_span(link.group(2), link.group(3)), "")
    anchor = diff_anchor(text)
    if anchor is not None:
        return "", anchor[1], anchor[2], anchor[0]
    return "", None, None, ""


def _merge_severity(row: str) -> Severity:
    """Importance 9-10 high, 7-8 medium, below low; else the Impact cell; else medium."""
    importance = _IMPORTANCE.search(row)
    if importance is not None:
        score = int(importance.group(1))
        return Severity.HIGH if score >= 9 else Severity.MEDIUM if score >= 7 else Severity.LOW
    impact = _IMPACT.search(row)
    return BADGE_LEVELS[impact.group(1).lower()] if impact is not None else Severity.MEDIUM


def _reviewer_guide(body: str) -> Parsed:
    findings = [_focus_area(chunk) for chunk in body.split("<details>")[1:]]
    drafts = tuple(draft for draft in findings if draft is not None)
    if not drafts:
        return skip("Qodo reviewer guide with no focus areas, not a finding")
    return Parsed(findings=drafts)


def _focus_area(chunk: str) -> ParsedFinding | None:
    focus = _FOCUS.search(chunk[:4000])
    if focus is None:
        return None
    close = chunk.find("</summary>", focus.end())
    description = chunk[focus.end() : close if close >= 0 else focus.end() + 2000]
    title = short_title(plain(focus.group(1)))
    path, line, end_line, anchor = _location(chunk[: focus.end()])
    body = clamp(plain(description), BODY_LIMIT)
    words = guess_finding(title, body)
    return ParsedFinding(
        severity=Severity.MEDIUM,
        category=words.category,
        title=title,
        file=path,
        line=line,
        end_line=end_line,
        from_summary=True,
        diff_anchor=anchor,
        body=body,
        category_certainty=words.certainty,
    )


PARSER = QodoParser()
