"""Free-text reviewer output (the seed's finding-level aggregator path): one finding per line.

An LLM reviewer writes lines such as ``[high] src/a.py:42 message``,
``HIGH: src/a.py:42: message``, ``- **[medium]** `src/a.py:42-48` message`` or
``src/a.py:42: [low] message``. A line is a finding when it carries a severity tag (a
whole word: ``[highlight]`` is no tag) before its text, or a location followed by a tag;
under a markdown heading that names a severity (``## High``), a list item that starts
with a location needs no tag of its own. A location is a token with a ``/`` or a known
source extension (so ``os.path`` is not a file), optionally with ``:line``, ``:a-b`` or
``#La-Lb``. Other lines are prose and ignored; a tagged line with no finding text after
the tag is Skipped. The category is an optional ``[security]``-style tag, else a keyword
guess. This is the fallback format: it claims only content that is not JSON or XML and
has at least one finding line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from review_quorum.errors import FindingError, InputError, Skipped
from review_quorum.ingest.base import Batch, Source
from review_quorum.ingest.bots.base import ParsedFinding
from review_quorum.ingest.bots.keywords import guess
from review_quorum.ingest.bots.labels import SEVERITY_WORDS
from review_quorum.ingest.bots.text import (
    fence_end,
    first_sentence,
    plain,
    short_title,
)
from review_quorum.ingest.categories import CATEGORIES
from review_quorum.ingest.locations import source_location
from review_quorum.ingest.paths import PathResolver
from review_quorum.model import NormalizedFinding, Severity

DEFAULT_BOT = "reviewer"
DETECT_LIMIT = 1 << 20


_LIST_MARKER = re.compile(r"\s{0,12}(?:(?:[-*+]|\d{1,4}[.)])\s+)?(?:\[[ xX]\]\s+)?")
_TAG = re.compile(
    r"(?:\*\*|__)?(?:\[([A-Za-z]{2,15})\]|\(([A-Za-z]{2,15})\)|([A-Za-z]{2,15})(?=\*\*|__|:))"
    r"(?:\*\*|__)?:?(?:\*\*|__)?(?=\s|$)\s*"
)
_CATEGORY_TAG = re.compile(r"[\[(]([A-Za-z_ -]{2,30})[\])]:?(?=\s|$)\s*")
_SEPARATORS = " \t:-–—|"
_HEADING = re.compile(r"\s{0,3}(#{1,6})\s")
_WORDS = re.compile(r"[A-Za-z]+")
_LETTERS = re.compile(r"[^\W\d_]{2}")
_CATEGORY_NAMES = {name.replace("_", " "): name for name in CATEGORIES}


class FreeTextReader:
    name = "freetext"

    def detect(self, source: Source) -> bool:
        head = source.head()
        if not head or head.startswith(("<", "{")) or source.json_or_none() is not None:
            return False
        text = source.data[:DETECT_LIMIT].decode("utf-8", "replace")
        return any(
            isinstance(outcome, ParsedFinding) for _, outcome in parse_lines(text.splitlines())
        )

    def read(self, source: Source) -> Batch:
        if source.json_or_none() is not None or source.head().startswith("<?xml"):
            kind = "XML" if source.head().startswith("<") else "JSON"
            message = f"the file is {kind}, not free text; drop --input-format to detect it"
            raise InputError(source.name, "line 1", message)
        text = source.text()
        batch = Batch()
        bot = source.options.bot or DEFAULT_BOT
        paths = PathResolver(source.options.root)
        for number, outcome in parse_lines(text.splitlines()):
            where = f"line {number}"
            if isinstance(outcome, str):
                batch.skipped.append(Skipped(source.name, where, outcome))
                continue
            try:
                batch.findings.append(_finding(outcome, bot, where, paths))
            except FindingError as err:
                batch.skipped.append(Skipped(source.name, where, str(err)))
        return batch


def _finding(draft: ParsedFinding, bot: str, where: str, paths: PathResolver) -> NormalizedFinding:
    return NormalizedFinding.create(
        bot=bot,
        finding_id=where,
        severity=draft.severity,
        category=draft.category,
        title=draft.title,
        file=paths.path(draft.file) if draft.file else "",
        line=draft.line,
        end_line=draft.end_line,
        body=draft.body,
        category_certainty=draft.category_certainty,
    )


def parse_lines(lines: Sequence[str]) -> Iterator[tuple[int, ParsedFinding | str]]:
    """(line number, finding or skip reason) for each line that is a finding or tries to be.

    Fenced code blocks are skipped: a ``high: 5`` in quoted YAML is not a finding.
    """
    section: Severity | None = None
    index = 0
    while index < len(lines):
        after_fence = fence_end(lines, index)
        if after_fence is not None:
            index = after_fence
            continue
        line = lines[index]
        index += 1
        heading = _HEADING.match(line)
        if heading is not None:
            section = _heading_severity(line[heading.end() :])
            continue
        outcome = parse_line(line, section)
        if outcome is not None:
            yield index, outcome


def _heading_severity(text: str) -> Severity | None:
    words = (SEVERITY_WORDS.get(word.lower()) for word in _WORDS.findall(text[:200]))
    return next((severity for severity in words if severity is not None), None)


def parse_line(line: str, section: Severity | None = None) -> ParsedFinding | str | None:
    """The finding on `line`, a reason when a tagged line has no finding, or None for prose."""
    text = _strip_lead(line)
    severity, text = _tag(text)
    if severity is not None:
        category, text = _category_tag(text)
        return _tagged(severity, category, text)
    location = source_location(text.split(None, 1)[0]) if text.strip() else None
    if location is None:
        return None
    rest = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    severity, rest = _tag(rest.lstrip(_SEPARATORS))
    if severity is None and section is None:
        return None
    category, rest = _category_tag(rest)
    return _draft(severity or section or Severity.MEDIUM, category, location, rest)


def _strip_lead(line: str) -> str:
    marker = _LIST_MARKER.match(line)
    text = line[marker.end() :] if marker else line
    start = 0
    while start < len(text) and not text[start].isascii() and not text[start].isalnum():
        start += 1  # emoji such as 🔴 or ⚠️ before the tag
    return text[start:].lstrip()


def _tag(text: str) -> tuple[Severity | None, str]:
    match = _TAG.match(text)
    if match is None:
        return None, text
    word = next(group for group in match.groups() if group is not None).lower()
    severity = SEVERITY_WORDS.get(word)
    return (severity, text[match.end() :]) if severity is not None else (None, text)


def _category_tag(text: str) -> tuple[str | None, str]:
    match = _CATEGORY_TAG.match(text)
    if match is None:
        return None, text
    name = _CATEGORY_NAMES.get(match.group(1).strip().lower().replace("_", " ").replace("-", " "))
    return (name, text[match.end() :]) if name is not None else (None, text)


def _tagged(severity: Severity, category: str | None, text: str) -> ParsedFinding | str:
    tokens = text.split(None, 1)
    location = source_location(tokens[0]) if tokens else None
    if location is not None:
        rest = tokens[1] if len(tokens) > 1 else ""
        inner, rest = _tag(rest.lstrip(_SEPARATORS))
        return _draft(inner or severity, category, location, rest)
    found = next(
        (loc for loc in map(source_location, text.split()[:64]) if loc is not None and loc[1]), None
    )
    return _draft(severity, category, found or ("", None, None), text)


def _draft(
    severity: Severity,
    category: str | None,
    location: tuple[str, int | None, int | None],
    message: str,
) -> ParsedFinding | str:
    message = plain(message.strip(_SEPARATORS))
    if not _LETTERS.search(message):
        return "severity tag without a finding message"
    file, line, end_line = location
    words = guess(message)
    return ParsedFinding(
        severity=severity,
        category=category or words.category,
        title=short_title(first_sentence(message)),
        file=file,
        line=line,
        end_line=end_line,
        body=message,
        category_certainty=1.0 if category else words.certainty,
    )


READER = FreeTextReader()
