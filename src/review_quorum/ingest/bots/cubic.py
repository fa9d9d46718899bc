"""cubic (`cubic-dev-ai[bot]`): a ``P0``-``P3`` prefix, a confidence, and a prompt block.

An inline finding opens with ``<!-- metadata:{"confidence":9} -->`` (0-10: the finding's
confidence, divided by ten), then ``P1: <text>`` (P0 critical, P1 high, P2 medium, P3 low;
the first sentence is the title), a "Prompt for AI agents" block whose ``At <path>, line
<n>:`` gives the location at posting time (used when the comment has none), an optional
```suggestion, and a "Fix with Cubic" link whose violation id is the finding's key. When
the finding is fixed, cubic edits the comment to end with ``✅ Addressed in <sha>``: such a
comment is reported as skipped, not as an open finding. cubic states no category (a
keyword guess). Review summaries are not findings.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, skip, stated_span
from review_quorum.ingest.locations import line_span

_CONFIDENCE = re.compile(r"<!-- metadata:\{\"confidence\":\s?(\d{1,2})\}")
_PROMPT_AT = re.compile(r"\bAt ([^\s,]{1,1024}), line (\d{1,9}):")
_VIOLATION = re.compile(r"cubic\.dev/action/fix/violation/([0-9a-f-]{36})")
_ADDRESSED = re.compile(r"✅ Addressed in \[`?([0-9a-f]{7,40})")


class CubicParser:
    name = "cubic"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if comment.kind is not CommentKind.INLINE:
            return generic.read_body(comment, self.name)
        addressed = _ADDRESSED.search(body)
        if addressed is not None:
            return skip(f"cubic finding addressed in {addressed.group(1)}, not an open finding")
        at = _PROMPT_AT.search(body)
        place = (at.group(1), *line_span(at.group(2))) if at else None
        line, end_line = stated_span(comment, place)
        prompt = body.find("<summary>Prompt for AI agents</summary>")
        own = body[: body.rfind("<details", 0, prompt)] if prompt >= 0 else body
        draft = generic.prose_draft(own + _after_prompt(body, prompt), comment.path, line, end_line)
        if draft is None:
            return skip("cubic comment with no text")
        confidence = _CONFIDENCE.search(body[:200])
        violation = _VIOLATION.search(body)
        found = msgspec.structs.replace(
            draft,
            file=comment.path or (place[0] if place else ""),
            confidence=int(confidence.group(1)) / 10 if confidence else 1.0,
            key=violation.group(1) if violation else "",
        )
        return Parsed(findings=(found,))


def _after_prompt(body: str, prompt: int) -> str:
    """What follows the prompt block (a suggestion), without the Fix with Cubic link."""
    if prompt < 0:
        return ""
    end = body.find("</details>", prompt)
    rest = body[end + len("</details>") :] if end >= 0 else ""
    link = rest.find("<a href=")
    return "\n" + (rest[:link] if link >= 0 else rest)


PARSER = CubicParser()
