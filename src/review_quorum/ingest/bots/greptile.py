"""Greptile (`greptile-apps[bot]`): prose inline findings, priority badges, "Additional Comments".

Early-2026 inline comments are prose: a bold title line (``**Critical Bug: ...**``, where
"Critical Bug" belongs to the title, not a severity field) or a bold caps label
(``**HARDCODED NAME**: text``) or just a first sentence, an optional ```suggestion, and a
"Prompt To Fix With AI" block whose ``Path:`` / ``Line: a:b`` give the range. They carry no
severity (medium). From 2026-08 a badge image ``<img alt="P1" ...>`` opens the comment:
P0 critical, P1 high, P2 medium, P3 low, then the bold title. The "Additional Comments (N)"
issue comment holds findings outside the diff, one per bold `` **`path`** `` line, each
with its own prompt block for the line. The review summary ("N files reviewed, M
comments") and the "Greptile Overview" (whose "Issues Found" repeat the inline findings)
are not findings. Greptile states no category: a keyword guess.
"""

from __future__ import annotations

import re

import msgspec

from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, Place, skip, stated_span
from review_quorum.ingest.bots.generic import prose_draft
from review_quorum.ingest.bots.text import lines_of
from review_quorum.ingest.locations import line_span

_PROMPT_PATH = re.compile(r"^Path: (\S{1,1024})$", re.MULTILINE)
_PROMPT_LINE = re.compile(r"^Line: (\d{1,9})(?::(\d{1,9}))?$", re.MULTILINE)
_ENTRY = re.compile(r"\*\*`([^`\n]{1,1024})`\*\*\s*")
_ADDITIONAL = "Additional Comments"
_KNOWLEDGE = "**Knowledge Base Used:**"


class GreptileParser:
    name = "greptile"

    def parse(self, comment: Comment) -> Parsed:
        body = comment.body
        if comment.kind is CommentKind.INLINE:
            return _inline(comment)
        if _ADDITIONAL in body[:2000]:
            return _additional(body)
        if "Greptile Overview" in body or "Greptile Summary" in body:
            return skip("Greptile overview, not a finding (its issues are posted inline)")
        if "files reviewed" in body or "file reviewed" in body:
            return skip("Greptile review summary, not a finding (it counts the inline comments)")
        return skip("Greptile comment with no finding layout")


def _inline(comment: Comment) -> Parsed:
    line, end_line = stated_span(comment, _prompt_place(comment.body, comment.path))
    draft = prose_draft(_before_prompt(comment.body), comment.path, line, end_line)
    return Parsed(findings=(draft,)) if draft else skip("Greptile comment with no text")


def _prompt_place(text: str, path: str) -> Place | None:
    """``Path:`` and ``Line: a:b`` of a "Prompt To Fix With AI" block."""
    start = text.find("Prompt To Fix With AI")
    if start < 0:
        return None
    block = text[start : start + 3000]
    stated = _PROMPT_PATH.search(block)
    numbers = _PROMPT_LINE.search(block)
    line, end_line = line_span(numbers.group(1), numbers.group(2)) if numbers else (None, None)
    return (stated.group(1) if stated else path, line, end_line)


def _additional(body: str) -> Parsed:
    """One finding per bold path in the "Additional Comments" block."""
    entries = list(_ENTRY.finditer(body))
    findings = []
    for number, entry in enumerate(entries, start=1):
        end = entries[number].start() if number < len(entries) else len(body)
        chunk = body[entry.end() : end]
        path = entry.group(1).strip()
        place = _prompt_place(chunk, path)
        line, end_line = place[1:] if place else (None, None)
        draft = prose_draft(_before_prompt(chunk), path, line, end_line)
        if draft is not None:
            findings.append(msgspec.structs.replace(draft, from_summary=True, key=str(number)))
    if not findings:
        return skip("Greptile additional comments with no entries")
    return Parsed(findings=tuple(findings))


def _before_prompt(chunk: str) -> str:
    """The finding's own text: before the prompt block, without the knowledge-base line."""
    cut = chunk.find("Prompt To Fix With AI")
    cut = chunk.rfind("<details", 0, cut) if cut >= 0 else -1
    text = chunk[:cut] if cut >= 0 else chunk
    return "\n".join(line for line in lines_of(text) if not line.startswith(_KNOWLEDGE))


PARSER = GreptileParser()
