"""Checkstyle XML input: ``<checkstyle><file name><error line severity message source/>``.

Many tools write this format (Checkstyle, ESLint ``-f checkstyle``, ktlint, PHP_CodeSniffer).
It is parsed with defusedxml, so entity declarations (billion laughs, external entities)
and external references are refused with an `InputError` naming the file and line, like
any malformed XML. Each ``<error>`` becomes one finding; its position is its line in the
XML file.

- bot: ``--bot``, else the tool a ``source`` prefix names (`SOURCE_TOOLS`), else
  "checkstyle".
- severity: error -> high, warning -> medium, info -> low, absent -> medium; ``ignore``
  means the tool was told not to report it: Skipped.
- line: ``line`` (1-based); ``0`` or absent means the whole file.
- rule id: ``source`` without the tool prefix; category from it via `Categorizer`.
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import ParseError
from xml.parsers.expat import ErrorString

from defusedxml import DefusedXmlException, EntitiesForbidden  # type: ignore[import-untyped]
from defusedxml.ElementTree import DefusedXMLParser  # type: ignore[import-untyped]

from review_quorum.errors import FindingError, InputError, NotAFinding, Skipped, shown
from review_quorum.ingest.base import Batch, Source
from review_quorum.ingest.categories import Categorizer
from review_quorum.ingest.paths import PathResolver
from review_quorum.ingest.titles import first_sentence
from review_quorum.model import MAX_LINE, Evidence, NormalizedFinding, Severity

DEFAULT_BOT = "checkstyle"
SOURCE_TOOLS = {"eslint.rules.": "eslint", "com.puppycrawl.tools.checkstyle.": "checkstyle"}
SEVERITIES = {
    "error": Severity.HIGH,
    "warning": Severity.MEDIUM,
    "info": Severity.LOW,
}

_ROOT = re.compile(r"<checkstyle[\s>/]")
_DECLARED_ENCODING = re.compile(r"<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")
_LINE_DIGITS = len(str(MAX_LINE))
_Record = tuple[int, str | None, dict[str, str]]


class _Collector:
    """An ElementTree parser target that keeps each ``<error>`` with its line and file."""

    def __init__(self, source_name: str) -> None:
        self.source_name = source_name
        self.parser: DefusedXMLParser | None = None
        self.records: list[_Record] = []
        self.file: str | None = None
        self.root_seen = False

    def line(self) -> int:
        assert self.parser is not None
        return int(self.parser.parser.CurrentLineNumber)

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if not self.root_seen:
            self.root_seen = True
            if tag != "checkstyle":
                raise InputError(
                    self.source_name,
                    f"line {self.line()}",
                    f"root element is <{tag}>, not <checkstyle>",
                )
        elif tag == "file":
            self.file = attributes.get("name", "")
        elif tag == "error":
            self.records.append((self.line(), self.file, attributes))

    def end(self, tag: str) -> None:
        if tag == "file":
            self.file = None

    def data(self, text: str) -> None:
        """Text between elements carries nothing in this format."""

    def close(self) -> None:
        """Nothing to build: the records are collected as the parser goes."""


def parse(source: Source) -> list[_Record]:
    """Every ``<error>`` of a Checkstyle document, or `InputError` naming where it breaks."""
    collector = _Collector(source.name)
    parser = DefusedXMLParser(target=collector)
    collector.parser = parser
    # Text re-encoded from UTF-16 goes in as str, so expat ignores the declaration's
    # encoding="UTF-16"; other bytes go in as written, read as the declaration says.
    utf16 = source.encoding.startswith("UTF-16")
    try:
        parser.feed(source.data.decode("utf-8") if utf16 else source.data)
        parser.close()
    except ParseError as err:
        if not utf16 and _declared_utf8(source):
            source.text()  # raises naming the line and column where the file is not UTF-8
        line, column = err.position
        where = f"line {line} column {column + 1}"
        raise InputError(source.name, where, f"invalid XML: {ErrorString(err.code)}") from err
    except EntitiesForbidden as err:
        reason = "entities can expand without bound or read other files"
        message = f"refused the XML entity declaration {shown(err.name)}: {reason}"
        raise InputError(source.name, f"line {collector.line()}", message) from err
    except (LookupError, UnicodeError) as err:  # an encoding declaration Python cannot use
        raise InputError(source.name, "line 1", f"unusable XML encoding: {err}") from err
    except DefusedXmlException as err:
        message = f"refused unsafe XML ({type(err).__name__}): no external references are read"
        raise InputError(source.name, f"line {collector.line()}", message) from err
    return collector.records


def _declared_utf8(source: Source) -> bool:
    declared = _DECLARED_ENCODING.match(source.head(200))
    return declared is None or declared.group(1).lower().replace("-", "") == "utf8"


class CheckstyleReader:
    name = "checkstyle"

    def detect(self, source: Source) -> bool:
        head = source.head()
        return head.startswith("<") and _ROOT.search(head) is not None

    def read(self, source: Source) -> Batch:
        records = parse(source)
        paths = PathResolver(source.options.root)
        categorizer = Categorizer(source.options.categories)
        batch = Batch()
        for line, file, attributes in records:
            try:
                batch.findings.append(_finding(source, file, attributes, paths, categorizer))
            except FindingError as err:
                deliberate = isinstance(err, NotAFinding)
                batch.skipped.append(Skipped(source.name, f"line {line}", str(err), deliberate))
        return batch


def _finding(
    source: Source,
    file: str | None,
    attributes: dict[str, str],
    paths: PathResolver,
    categorizer: Categorizer,
) -> NormalizedFinding:
    if file is None:
        raise FindingError("an <error> outside any <file> has no file to point at")
    tool, rule_id = _tool_and_rule(attributes.get("source", ""))
    title = first_sentence(attributes.get("message", "")) or rule_id
    if not title:
        raise FindingError("the <error> has no message and no source to title it")
    return NormalizedFinding(
        source.options.bot or tool,
        rule_id,
        _severity(attributes.get("severity")),
        categorizer.category(tool, rule_id),
        title,
        Evidence(paths.path(file), _line(attributes.get("line"))),
        rule_id=rule_id,
        body=attributes.get("message", ""),
    )


def _tool_and_rule(source: str) -> tuple[str, str]:
    for prefix, tool in SOURCE_TOOLS.items():
        if source.startswith(prefix):
            return tool, source[len(prefix) :] if tool == "eslint" else source
    return DEFAULT_BOT, source


def _severity(value: str | None) -> Severity:
    if value is None:
        return Severity.MEDIUM
    severity = SEVERITIES.get(value.strip().lower())
    if severity is None:
        if value.strip().lower() == "ignore":
            raise NotAFinding("severity 'ignore': the tool was told not to report it")
        raise FindingError(f"unknown severity {shown(value)} (expected error, warning or info)")
    return severity


def _line(value: str | None) -> int | None:
    if value is None:
        return None
    text = value.strip()
    if not text.isascii() or not text.isdigit():
        raise FindingError(f"line must be a whole number, not {shown(value)}")
    if len(text.lstrip("0")) > _LINE_DIGITS:  # int() refuses thousands of digits
        raise FindingError(f"line must be at most {MAX_LINE}, not {shown(value)}")
    return int(text) or None


READER = CheckstyleReader()
