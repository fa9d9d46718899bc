"""CodeAnt (`codeant-ai[bot]`): "Nitpicks" tables of review areas, and status comments.

CodeAnt posts issue comments. ``## Nitpicks 🔍`` is an HTML table whose "Recommended areas
for review" row lists one finding per item, ``- [ ] <a href='.../files#diff-<sha256 of
path>R111-R111'><strong>Title</strong></a><br>text``: the path is known only through the
hash in the diff anchor (resolved against the paths the other comments name) and the lines
through its ``R<a>-R<b>`` suffix. These are low-severity review notes; the category is a
keyword guess. The "is reviewing your PR" notice and the "Sequence Diagram" summary are
not findings; inline comments and anything else are read like any bot's.
"""

from __future__ import annotations

import re

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, ParsedFinding, skip
from review_quorum.ingest.bots.keywords import guess_finding
from review_quorum.ingest.bots.text import BODY_LIMIT, clamp, diff_anchor, plain, short_title
from review_quorum.model import Severity

SEVERITY = Severity.LOW

_ITEM = re.compile(
    r"^[ \t]{0,3}- \[[ xX]\] <a href='([^'\n]{1,2000})'><strong>([^<\n]{1,300})</strong></a>"
    r"([^\n]{0,4000})",
    re.MULTILINE,
)


class CodeAntParser:
    name = "codeant"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if comment.kind is CommentKind.INLINE:
            return generic.read_inline(comment, self.name)
        if "## Nitpicks" in body:
            return _nitpicks(body)
        if "is reviewing your PR" in body:
            return skip("CodeAnt review-started notice, not a finding")
        if "Sequence Diagram" in body:
            return skip("CodeAnt pull-request summary, not a finding")
        return generic.read_body(comment, self.name)


def _nitpicks(body: str) -> Parsed:
    findings = []
    for number, item in enumerate(_ITEM.finditer(body), start=1):
        anchor = diff_anchor(item.group(1))
        title = short_title(plain(item.group(2)))
        text = clamp(plain(item.group(3)), BODY_LIMIT)
        words = guess_finding(title, text)
        findings.append(
            ParsedFinding(
                severity=SEVERITY,
                category=words.category,
                title=title,
                line=anchor[1] if anchor else None,
                end_line=anchor[2] if anchor else None,
                from_summary=True,
                diff_anchor=anchor[0] if anchor else "",
                key=str(number),
                body=text,
                category_certainty=words.certainty,
            )
        )
    if not findings:
        return skip("CodeAnt nitpicks with no areas for review, not a finding")
    return Parsed(findings=tuple(findings))


PARSER = CodeAntParser()
