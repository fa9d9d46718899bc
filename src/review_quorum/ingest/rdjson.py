"""reviewdog Diagnostic Format input: rdjson (one object) and rdjsonl (one diagnostic a line).

rdjson is ``{"source": {...}, "severity": ..., "diagnostics": [Diagnostic, ...]}``; rdjsonl
holds one Diagnostic per line. A Diagnostic is ``{"message", "location": {"path", "range":
{"start": {"line"}, "end": {"line"}}}, "severity", "source": {"name"}, "code": {"value"}}``.

- bot: ``--bot``, else the diagnostic's ``source.name``, else the result's, else
  "reviewdog" (the format leaves the tool optional).
- severity: ERROR -> high, WARNING -> medium, INFO -> low; UNKNOWN_SEVERITY or none falls
  back to the result's severity, then medium (SARIF's default level, for consistency).
  The enum's numbers (1, 2, 3, 0), which protobuf's JSON mapping allows, mean the same.
- rule id: ``code.value``; category from it via `categories.Categorizer`.
"""

from __future__ import annotations

import orjson

from review_quorum.errors import FindingError, InputError, Skipped, shown
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.categories import Categorizer, tool_name
from review_quorum.ingest.duplicates import EACH, Shape, check, check_lines, held
from review_quorum.ingest.paths import PathResolver
from review_quorum.ingest.titles import first_sentence
from review_quorum.model import Evidence, NormalizedFinding, Severity

DEFAULT_BOT = "reviewdog"
SEVERITIES = {
    "ERROR": Severity.HIGH,
    "WARNING": Severity.MEDIUM,
    "INFO": Severity.LOW,
    "UNKNOWN_SEVERITY": None,
}
# The same enum by number, as protobuf's JSON mapping also writes it (reviewdog's proto).
SEVERITY_NUMBERS = {0: None, 1: Severity.HIGH, 2: Severity.MEDIUM, 3: Severity.LOW}
# Repeated keys refused: the result's diagnostics, and each diagnostic's severity and
# location (the result's severity is every diagnostic's default).
CHECKED = ("severity", "location")
_RESULT_AND_DIAGNOSTICS = Shape((), ("diagnostics", EACH), keys=("diagnostics", *CHECKED))


class _Diagnostics:
    """Turns diagnostics into findings with the settings of one input."""

    def __init__(self, source: Source, default_bot: str, default_severity: Severity) -> None:
        self.name = source.name
        self.bot = source.options.bot
        self.default_bot = default_bot
        self.default_severity = default_severity
        self.paths = PathResolver(source.options.root)
        self.categorizer = Categorizer(source.options.categories)

    def add(self, batch: Batch, record: object, where: str) -> None:
        try:
            batch.findings.append(self.finding(record, where))
        except FindingError as err:
            batch.skipped.append(Skipped(self.name, where, str(err)))

    def finding(self, record: object, where: str) -> NormalizedFinding:
        if not isinstance(record, dict):
            raise FindingError(f"a diagnostic must be an object, not {type(record).__name__}")
        tool = _source_name(record.get("source")) or self.default_bot
        code = _code(record.get("code"))
        message = record.get("message")
        if not isinstance(message, str):
            raise FindingError("field 'message' must be a string")
        title = first_sentence(message) or code
        if not title:
            raise FindingError("the diagnostic has no message and no code to title it")
        return NormalizedFinding(
            self.bot or tool,
            code or where,
            _severity(record.get("severity"), self.default_severity),
            self.categorizer.category(tool, code),
            title,
            self.evidence(record.get("location")),
            rule_id=code,
            body=message,
        )

    def evidence(self, location: object) -> Evidence:
        if location is None:
            return Evidence()
        if not isinstance(location, dict):
            raise FindingError("field 'location' must be an object")
        path = location.get("path", "")
        if not isinstance(path, str):
            raise FindingError("field 'location.path' must be a string")
        span = location.get("range")
        if span is None:
            return Evidence(self.paths.path(path))
        if not isinstance(span, dict):
            raise FindingError("field 'location.range' must be an object")
        line = _line(span.get("start"), "start")
        end_line = _line(span.get("end"), "end") if line is not None else None
        return Evidence(self.paths.path(path), line, end_line=end_line)


def _source_name(source: object) -> str:
    name = source.get("name") if isinstance(source, dict) else None
    return tool_name(name) if isinstance(name, str) and name.strip() else ""


def _code(code: object) -> str:
    if code is None:
        return ""
    value = code.get("value") if isinstance(code, dict) else None
    if value is not None and not isinstance(value, str):
        raise FindingError("field 'code.value' must be a string")
    return value or ""


def _severity(value: object, default: Severity) -> Severity:
    if value is None:
        return default
    if type(value) is int and value in SEVERITY_NUMBERS:
        return SEVERITY_NUMBERS[value] or default
    if not isinstance(value, str) or value.upper() not in SEVERITIES:
        raise FindingError(
            f"unknown severity {shown(value)} (expected ERROR, WARNING, INFO or UNKNOWN_SEVERITY,"
            " or their numbers 1, 2, 3 and 0)"
        )
    return SEVERITIES[value.upper()] or default


def _line(position: object, which: str) -> int | None:
    if position is None:
        return None
    if not isinstance(position, dict):
        raise FindingError(f"field 'location.range.{which}' must be an object")
    line = position.get("line")
    if line is None:
        return None
    if type(line) is not int or line < 1:
        raise FindingError(f"field 'location.range.{which}.line' must be a positive integer")
    return line


_RESULT_KEYS = frozenset(["source", "severity", "diagnostics"])


class RdjsonReader:
    name = "rdjson"

    def detect(self, source: Source) -> bool:
        document = source.json_or_none() if source.head(64).startswith("{") else None
        return isinstance(document, dict) and isinstance(document.get("diagnostics"), list)

    def read(self, source: Source) -> Batch:
        document = source.json()
        if not isinstance(document, dict):
            raise InputError(source.name, "/", "expected an rdjson object with 'diagnostics'")
        if "diagnostics" not in document and not set(document) <= _RESULT_KEYS:
            # reviewdog leaves an empty result's diagnostics out; any other object is no rdjson
            raise InputError(source.name, "/", "expected an rdjson object with 'diagnostics'")
        diagnostics = document.get("diagnostics", [])
        if not isinstance(diagnostics, list):
            raise InputError(source.name, "/diagnostics", "expected an array of diagnostics")
        try:
            default = _severity(document.get("severity"), Severity.MEDIUM)
        except FindingError as err:
            raise InputError(source.name, "/severity", str(err)) from err
        most = held(diagnostics, CHECKED)
        most["severity"] += "severity" in document
        most["diagnostics"] = int("diagnostics" in document)
        check(source.name, source.data, _RESULT_AND_DIAGNOSTICS, most)
        bot = _source_name(document.get("source")) or DEFAULT_BOT
        diagnostics_reader = _Diagnostics(source, bot, default)
        batch = Batch()
        for index, diagnostic in enumerate(diagnostics):
            diagnostics_reader.add(batch, diagnostic, pointer("diagnostics", index))
        return batch


class RdjsonlReader:
    name = "rdjsonl"

    def detect(self, source: Source) -> bool:
        first = source.head().split("\n", 1)[0].strip()
        if not first.startswith("{"):
            return False
        try:
            record = orjson.loads(first)
        except orjson.JSONDecodeError:
            return False
        return isinstance(record, dict) and "message" in record and "diagnostics" not in record

    def read(self, source: Source) -> Batch:
        diagnostics = _Diagnostics(source, DEFAULT_BOT, Severity.MEDIUM)
        batch = Batch()
        most = dict.fromkeys(CHECKED, 0)
        for number, raw in enumerate(source.data.splitlines(), start=1):
            if not raw.strip():
                continue
            where = f"line {number}"
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError as err:
                batch.skipped.append(Skipped(source.name, where, f"invalid JSON: {err.msg}"))
                continue
            for key, count in held((record,), CHECKED).items():
                most[key] += count
            diagnostics.add(batch, record, where)
        check_lines(source.name, source.data, most)
        return batch


RDJSON = RdjsonReader()
RDJSONL = RdjsonlReader()
