"""CodeRabbit (`coderabbitai[bot]`): inline findings in all four header eras, and review bodies.

An inline comment starts with an italic header (``_⚠️ Potential issue_ | _🟠 Major_``,
later with an effort segment, from 2026-07 with the category in place of the type), then
a bold title, explanation, optional fix and a "Prompt for AI Agents" block whose
``In `@path` around lines A - B`` gives the range. A review body repeats findings that
could not be posted inline (outside the diff), nitpicks and duplicates as `` `A-B`: ``
entries in per-file ``<details>``; those are read too. Walkthroughs, status callouts and
chat replies are not findings. Mapping tables: docs/bot-comments.md.
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
from review_quorum.ingest.bots.keywords import Guess, refine
from review_quorum.ingest.bots.text import (
    Layout,
    bare_label,
    body_text,
    bold_title,
    fence_end,
    layout,
    line_span,
    lines_of,
    outside_code,
    paragraphs,
    plain,
    suggestion,
    summary_raw,
    title_from,
    unescape,
    unquote,
)
from review_quorum.model import Severity

SEVERITIES = {
    "critical": Severity.CRITICAL,
    "major": Severity.HIGH,
    "minor": Severity.MEDIUM,
    "trivial": Severity.LOW,
}
# A category read from the finding type, not stated: "a bug", "a refactoring".
TYPE_CERTAINTY = 0.5
EFFORTS = frozenset({"quick win", "heavy lift", "low value", "poor tradeoff"})
# Headers before mid-2025 name only the type; its severity is our assumption (FORMATS 1.2).
TYPES: dict[str, tuple[Severity, str]] = {
    "potential issue": (Severity.HIGH, "logic_error"),
    "refactor suggestion": (Severity.MEDIUM, "maintainability"),
    "nitpick": (Severity.LOW, "maintainability"),
}
CATEGORIES = {
    "functional correctness": "logic_error",
    "maintainability & code quality": "maintainability",
    "data integrity & integration": "data_integrity",
    "stability & availability": "error_handling",
    "security & privacy": "security",
    "performance & scalability": "performance",
}
INDICATOR_TYPES = {
    "potential_issue": "potential issue",
    "refactor_suggestion": "refactor suggestion",
    "nitpick": "nitpick",
}
# Review-body sections; an entry with no header of its own takes the section's verdict.
SECTION_DEFAULTS: dict[str, tuple[Severity, str] | None] = {
    "outside diff range": (Severity.MEDIUM, "other"),
    "duplicate": (Severity.MEDIUM, "other"),
    "nitpick": (Severity.LOW, "maintainability"),
    "critical": (Severity.CRITICAL, "other"),
    "major": (Severity.HIGH, "other"),
    "minor": (Severity.MEDIUM, "other"),
    "trivial": (Severity.LOW, "other"),
    "additional": None,  # "Additional comments" hold LGTM notes, not findings
}
FIX_WORDS = ("fix", "change", "suggest", "apply")

_SECTION = re.compile(r"([a-z ]{3,30}) comments \(\d{1,6}\)")
_FILE_SUMMARY = re.compile(r"(\S[^<>\n]{0,1000}) \(\d{1,6}\)")
_ENTRY = re.compile(r"`(\d{1,9})(?:-(\d{1,9}))?`:\s?(.*)")
_PROMPT = re.compile(
    r"\bIn `?@?([^\s`]{1,1024})`?,? (?:[Aa]round lines? (\d{1,9})(?:\s?[-–]\s?(\d{1,9}))?"
    r"|at lines? (\d{1,9}))"
)
_REPLY_MARKER = "auto-generated reply by CodeRabbit"
_STATUS_REASONS = (
    ("Review skipped", "CodeRabbit status notice (review skipped), not a finding"),
    ("Rate limit exceeded", "CodeRabbit status notice (rate limit), not a finding"),
    ("Reviews paused", "CodeRabbit status notice (reviews paused), not a finding"),
    ("walkthrough_start", "CodeRabbit walkthrough, not a finding"),
    ("summarize by coderabbit.ai", "CodeRabbit walkthrough, not a finding"),
    ("Actionable comments posted", "CodeRabbit review summary with no findings of its own"),
    ("for review status", "CodeRabbit review summary with no findings of its own"),
)


class Header(msgspec.Struct, frozen=True):
    """The italic first line of a finding, split into what it says."""

    severity: Severity | None
    kind: str | None
    category: str | None


def parse_header(line: str) -> Header | None:
    """The header segments of `line`, or None when it is not a CodeRabbit header."""
    stripped = line.strip()
    if len(stripped) < 3 or not (stripped.startswith("_") and stripped.endswith("_")):
        return None
    severity = kind = category = None
    known = False
    for segment in stripped.split("|"):
        label = _label(segment)
        if label in SEVERITIES:
            severity = SEVERITIES[label]
        elif label in TYPES:
            kind = label
        elif label in CATEGORIES:
            category = CATEGORIES[label]
        elif label not in EFFORTS:
            continue
        known = True
    return Header(severity, kind, category) if known else None


def _label(segment: str) -> str:
    label = bare_label(segment.replace("&amp;", "&"))
    if label.endswith(")") and " (" in label:
        label = label[: label.rfind(" (")]  # "nitpick (assertive)": the review profile
    return label


class CodeRabbitParser:
    name = "coderabbit"

    def parse(self, comment: Comment) -> Parsed:
        if _REPLY_MARKER in comment.body:
            return skip("CodeRabbit chat reply, not a finding")
        if comment.kind is CommentKind.INLINE:
            return _inline(comment)
        return _summary(comment)


def _inline(comment: Comment) -> Parsed:
    lines = lines_of(comment.body)
    first = next((index for index, line in enumerate(lines) if line.strip()), 0)
    header = parse_header(lines[first]) if lines else None
    if header is None:
        return skip("no CodeRabbit finding header (_type_ | _severity_) on the first line")
    body = lines[first + 1 :]
    shape = layout(body)
    title = _title(shape)
    if not title:
        return skip("CodeRabbit comment with a header but no title")
    line, end_line = comment_span(comment)
    prompt = _prompt_location(shape)
    if prompt is not None and comment.start_line is None and _same_path(prompt[0], comment.path):
        line, end_line = prompt[1], prompt[2]
    severity, category = _grade(header, _indicator(comment.body), shape, None)
    return Parsed(
        findings=(
            ParsedFinding(
                severity=severity,
                category=category.category,
                title=title,
                file=comment.path,
                line=line,
                end_line=end_line,
                body=body_text(shape.prose, title),
                suggestion=suggestion(shape.fences, *FIX_WORDS),
                category_certainty=category.certainty,
            ),
        )
    )


def _grade(
    header: Header | None,
    indicator: str | None,
    shape: Layout,
    default: tuple[Severity, str] | None,
) -> tuple[Severity, Guess]:
    """Severity and category from the header, else the type, else the section default.

    A header category and a CWE label are stated (certainty 1.0); a category derived from
    the type ("Potential issue" is a bug) is `TYPE_CERTAINTY` unless the words name a
    sharper one; a section default of "other" is whatever the words say.
    """
    kind = (header.kind if header else None) or indicator
    fallback = TYPES[kind] if kind else (default or (Severity.MEDIUM, "other"))
    severity = (header.severity if header else None) or fallback[0]
    if any(line.lstrip().startswith("**") and "(CWE-" in line for line in shape.prose):
        return severity, Guess("security", 1.0)  # "**... (CWE-n):**" opens the security variant
    if header is not None and header.category is not None:
        return severity, Guess(header.category, 1.0)
    words = refine(fallback[1], plain(" ".join(shape.prose)))
    if words.category == fallback[1] and words.certainty == 1.0:
        return severity, Guess(words.category, TYPE_CERTAINTY)
    return severity, words


def _title(shape: Layout) -> str:
    for line in shape.prose:
        title = bold_title(line)
        if title:
            return title
    for paragraph in paragraphs(shape.prose):
        title = title_from(paragraph)
        if title:
            return title
    return ""


def _indicator(body: str) -> str | None:
    start = body.find("cr-indicator-types:")
    if start < 0:
        return None
    value = body[start + 19 : start + 120].split("-->", 1)[0].strip()
    for name in value.split("|"):
        if name.strip() in INDICATOR_TYPES:
            return INDICATOR_TYPES[name.strip()]
    return None


def _prompt_location(shape: Layout) -> tuple[str, int | None, int | None] | None:
    for fence in shape.fences:
        if "prompt" not in fence.context.lower():
            continue
        match = _PROMPT.search(fence.body)
        if match is not None:
            start = match.group(2) or match.group(4)
            line, end_line = line_span(start, match.group(3))
            return match.group(1).rstrip(","), line, end_line
    return None


def _same_path(prompt_path: str, path: str) -> bool:
    return not path or prompt_path.lstrip("@").removeprefix("./") == path.removeprefix("./")


def _summary(comment: Comment) -> Parsed:
    scanner = _SectionScanner()
    scanner.feed([unquote(line) for line in lines_of(comment.body)])
    if scanner.drafts or scanner.skipped:
        return Parsed(tuple(scanner.drafts), tuple(scanner.skipped))
    body = comment.body
    if not body.strip():
        return skip("empty CodeRabbit review body")
    for marker, reason in _STATUS_REASONS:
        if marker in body:
            return skip(reason)
    return skip("CodeRabbit comment with no recognised finding layout")


class _Entry(msgspec.Struct):
    file: str
    line: int | None
    end_line: int | None
    default: tuple[Severity, str]
    lines: list[str] = msgspec.field(default_factory=list)


class _SectionScanner(msgspec.Struct):
    """Walks a review body once, tracking ``<details>`` depth, section, file and entry."""

    drafts: list[ParsedFinding] = msgspec.field(default_factory=list)
    skipped: list[str] = msgspec.field(default_factory=list)
    depth: int = 0
    section: str | None = None
    section_depth: int = 0
    file: str = ""
    file_depth: int = 0
    entry: _Entry | None = None

    def feed(self, lines: Sequence[str]) -> None:
        index = 0
        while index < len(lines):
            after_fence = fence_end(lines, index)
            if after_fence is not None:
                if self.entry is not None:
                    self.entry.lines.extend(lines[index:after_fence])
                index = after_fence
                continue
            self._line(lines[index])
            index += 1
        self._flush()

    def _line(self, line: str) -> None:
        markup = outside_code(line)
        self.depth += markup.count("<details")
        raw = summary_raw(markup)
        structural = raw is not None and self._structure(raw)
        if not structural and not self._entry_start(line) and self.entry is not None:
            self.entry.lines.append(line)
        self.depth = max(self.depth - markup.count("</details>"), 0)
        if self.file and self.depth < self.file_depth:
            self._flush()
            self.file = ""
        if self.section is not None and self.depth < self.section_depth:
            self.section = None

    def _structure(self, raw: str) -> bool:
        """Open a section or a per-file block if `raw` names one; True when it did."""
        if self.file and self.depth > self.file_depth:
            return False  # a <details> inside an entry (fix, prompt, tools)
        section = _SECTION.fullmatch(bare_label(raw))
        if section is not None and section.group(1).strip() in SECTION_DEFAULTS:
            self._flush()
            self.section, self.section_depth, self.file = section.group(1).strip(), self.depth, ""
            return True
        file_match = _FILE_SUMMARY.fullmatch(raw.strip())
        if self.section is not None and file_match is not None:
            self._flush()
            self.file, self.file_depth = unescape(file_match.group(1).strip()), self.depth
            return True
        return False

    def _entry_start(self, line: str) -> bool:
        if not self.file or self.depth != self.file_depth or self.section is None:
            return False
        stripped = line.strip()
        if stripped == "---":
            self._flush()
            return True
        match = _ENTRY.match(stripped)
        default = SECTION_DEFAULTS.get(self.section)
        if match is None:
            return False
        self._flush()
        if default is not None:
            line_number, end_line = line_span(match.group(1), match.group(2))
            self.entry = _Entry(self.file, line_number, end_line, default, [match.group(3)])
        return True

    def _flush(self) -> None:
        entry, self.entry = self.entry, None
        if entry is not None:
            draft = _entry_draft(entry)
            if isinstance(draft, ParsedFinding):
                self.drafts.append(draft)
            else:
                self.skipped.append(draft)


def _entry_draft(entry: _Entry) -> ParsedFinding | str:
    header = parse_header(entry.lines[0]) if entry.lines else None
    shape = layout(entry.lines[1:] if header else entry.lines)
    title = _title(shape)
    if not title:
        return f"CodeRabbit review-body entry for {entry.file!r} has no title"
    severity, category = _grade(header, None, shape, entry.default)
    line, end_line = entry.line, entry.end_line
    prompt = _prompt_location(shape)
    if line is None and prompt is not None and _same_path(prompt[0], entry.file):
        line, end_line = prompt[1], prompt[2]
    return ParsedFinding(
        severity=severity,
        category=category.category,
        title=title,
        file=entry.file,
        line=line,
        end_line=end_line,
        from_summary=True,
        body=body_text(shape.prose, title),
        suggestion=suggestion(shape.fences, *FIX_WORDS),
        category_certainty=category.certainty,
    )


PARSER = CodeRabbitParser()
