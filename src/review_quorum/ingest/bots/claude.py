"""Claude (`claude[bot]`): whole reviews in one comment, each finding a numbered heading.

The Claude Code action posts a review as a conversation comment (a fresh one per run,
no marker, free-form markdown in the reviewer's language). Findings are numbered headings
under problem sections: ``### 1. **[Critical] <title>** `path:61-62` `` in one run,
``### 1. **<title>** (Low-Medium)`` in another (the first word of the tag is the
severity), some with no location in the heading (then the first ``path:line`` of the
text). A heading without a tag takes its section's coloured circle (red high, yellow
medium, green low), else low: untagged items are improvement notes. Numbered headings
under praise sections (a ✅ / 👍 / 💯 / 🎉 / ⭐ section, or one named "positive",
"strengths", "well done", ...) are not findings, nor are checklists and summaries. A
comment without numbered findings is read like any bot's (`generic.read_body`); the Claude
Code Review set-up notice is not a finding. Inline comments are prose, read like any
bot's. The category is a keyword guess (Claude states none).
"""

from __future__ import annotations

from review_quorum.ingest.bots import generic, sections
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, ParsedFinding, skip
from review_quorum.ingest.bots.labels import circle, severity_or
from review_quorum.ingest.bots.text import lines_of, strip_html_comments
from review_quorum.model import Severity

UNTAGGED = Severity.LOW
FIX_WORDS = ("fix", "solution", "suggest", "recommend", "해결", "개선", "권장", "수정")
PRAISE_MARKS = ("\u2705", "\U0001f44d", "\U0001f4af", "\U0001f389", "\u2b50", "\U0001f31f")
PRAISE_WORDS = (
    "positive",
    "strength",
    "well done",
    "what's good",
    "what works",
    "good practice",
    "praise",
    "긍정",
    "잘 구현",
    "좋은 점",
    "칭찬",
)


class ClaudeParser:
    name = "claude"

    def parse(self, comment: Comment) -> Parsed:
        if comment.kind is CommentKind.INLINE:
            return generic.read_inline(comment, self.name)
        body = comment.body
        if "configured for manual code reviews" in body:
            return skip("Claude Code Review set-up notice, not a finding")
        drafts = _numbered(body)
        if drafts:
            return Parsed(findings=tuple(drafts))
        parsed = generic.read_body(comment, self.name)
        if parsed.findings:
            return parsed
        return skip("Claude comment with no numbered findings (a summary, plan or status)")


def _numbered(body: str) -> list[ParsedFinding]:
    drafts = []
    for section in sections.sections(lines_of(strip_html_comments(body))):
        heading = sections.read_heading(section.text)
        if not heading.number or _praise(section.parent) or _praise(section.text):
            continue
        default = severity_or(UNTAGGED, circle(section.parent.lstrip("#* ")))
        draft = sections.section_draft(section, heading, default, *FIX_WORDS)
        if draft is not None:
            drafts.append(draft)
    return drafts


def _praise(heading: str) -> bool:
    text = heading.strip().lstrip("#* ")
    lowered = text.lower()
    return text.startswith(PRAISE_MARKS) or any(word in lowered for word in PRAISE_WORDS)


PARSER = ClaudeParser()
