"""GitHub Advanced Security (`github-advanced-security[bot]`): code-scanning alerts inline.

CodeQL alerts read ``## CodeQL / <Rule name>``, the message, then ``[Show more details]``
linking ``.../security/code-scanning/<alert>``; third-party SARIF tools (zizmor) post no
header, only the rule description and the link. The rule name (or the first line) is the
title (and the rule id) and the alert number becomes the finding id. The body carries no
severity: it is medium until someone reads the alert API; the category is security, with
certainty 0.8 since the comment does not state it. The set-up notice and
the empty review bodies are not findings.
"""

from __future__ import annotations

import re

from review_quorum.ingest.bots.base import (
    Comment,
    CommentKind,
    Parsed,
    ParsedFinding,
    comment_span,
    skip,
)
from review_quorum.ingest.bots.text import (
    body_text,
    layout,
    lines_of,
    paragraphs,
    plain,
    short_title,
)
from review_quorum.model import Severity

SEVERITY = Severity.MEDIUM
CATEGORY = "security"
# Code scanning is a security feature, but the comment does not state the category.
CATEGORY_CERTAINTY = 0.8

_ALERT = re.compile(r"/code-scanning/(\d{1,12})\b")
_DETAILS_LINK = "[Show more details]"


class AdvancedSecurityParser:
    name = "github-advanced-security"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is not CommentKind.INLINE:
            if not comment.body.strip():
                return skip("empty code-scanning review body")
            return skip("code-scanning notice, not a finding")
        prose = layout(lines_of(comment.body)).prose
        title, rule = _title(prose)
        if not title:
            return skip("code-scanning comment with no rule or message")
        alert = _ALERT.search(comment.body[-4000:])
        line, end_line = comment_span(comment)
        kept = [text for text in prose if not text.strip().startswith(("## ", _DETAILS_LINK))]
        return Parsed(
            findings=(
                ParsedFinding(
                    severity=SEVERITY,
                    category=CATEGORY,
                    title=title,
                    file=comment.path,
                    line=line,
                    end_line=end_line,
                    key=f"code-scanning/{alert.group(1)}" if alert else "",
                    body=body_text(kept),
                    category_certainty=CATEGORY_CERTAINTY,
                    rule_id=rule,
                ),
            )
        )


def _title(prose: tuple[str, ...]) -> tuple[str, str]:
    """The rule from ``## Tool / Rule`` (or ``## Rule``) as title and rule, else the first
    paragraph as title (third-party tools name no rule)."""
    for line in prose:
        stripped = line.strip()
        if stripped.startswith("## "):
            rule = short_title(plain(stripped[3:].rpartition(" / ")[2]))
            return rule, rule
        if stripped:
            break
    for paragraph in paragraphs(prose):
        if not paragraph.startswith(_DETAILS_LINK):
            return short_title(plain(paragraph)), ""
    return "", ""


PARSER = AdvancedSecurityParser()
