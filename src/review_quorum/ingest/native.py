"""The native finding format: a JSON array, or JSONL, of seed-001 shaped records.

Each record is ``{"bot", "finding_id", "severity", "category", "title", "evidence":
{"file", "line", "end_line", "snippet", "symbol"}, "confidence"}``; `bot`, `severity`,
`category` and `title` are required, the rest optional. The JSON Schema ships as
``review_quorum/schemas/native-findings.schema.json``.

Most files are well typed throughout: the whole array then decodes in one pass straight
into the `NormalizedFinding` structs, with no dict nor any other value per record:
msgspec decodes each record into a struct of the finding's fields, checking in C each
type and what the finding's own checks would (`_DecodedFinding`), and one pass makes it
the finding in place, checks what C cannot (a span, each distinct file) and shares the
bot, category and file strings (a million findings hold a few thousand).
A file whose records lack a `finding_id` or give it as a number, or that holds a field
findings have and native records do not, decodes into `_TypedRecord` structs instead,
which become findings. Otherwise records are read one at a time from raw JSON: each
well-typed one the same way, any other as plain JSON by `parse_record`, which words what
is wrong. All give the same finding for a record they accept
(tests/ingest/test_native_typed.py compares them).

Nesting deeper than JSON's depth limit (1,024, orjson's) in a record makes the file
invalid JSON, as for every reader, on every Python. One exception: msgspec skips a field
it does not read without decoding it, and how deep it goes follows the interpreter; so a
deeper value in such a field is ignored on Python 3.12 and later, and reported as too
deep on 3.11. Either way the outcome is a finding, a counted skip or an error naming the
line and column, never an exception.
"""

from __future__ import annotations

from sys import intern
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

import msgspec
import orjson

from review_quorum.errors import FindingError, InputError, Skipped
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.duplicates import EACH, Shape, check, check_lines
from review_quorum.ingest.paths import PathResolver
from review_quorum.model import (
    MAX_LINE,
    NO_PRIORITY,
    Evidence,
    NormalizedFinding,
    Severity,
    is_finite,
)

_REQUIRED_TEXT = ("bot", "category", "title")
_ARRAY_OF_RAW = msgspec.json.Decoder(list[msgspec.Raw])
_DECODE = msgspec.json.Decoder().decode
_DEPTH_EXCEEDED = "depth limit exceeded"  # orjson's message
_TOO_DEEP = f"invalid JSON: {_DEPTH_EXCEEDED}"
_EVIDENCE_TEXT = ("file", "snippet", "symbol")
_SEVERITIES = {severity.label: severity for severity in Severity}
# The key of a record whose repeat is an error: how severe the finding is (what the gate
# reads). Each key checked costs one count of the file's bytes, about 2% of the read: one
# key fits the 5% the check may cost (docs/inputs.md and benchmarks.md say why no more).
CHECKED = ("severity",)
_RECORDS = Shape((EACH,), keys=CHECKED)


class _TypedEvidence(msgspec.Struct, gc=False):
    file: str = ""
    line: int | None = None
    end_line: int | None = None
    snippet: str = ""
    symbol: str = ""


class _TypedRecord(msgspec.Struct, gc=False):
    """A native record whose every field has its expected JSON type."""

    bot: str
    severity: str
    category: str
    title: str
    finding_id: str | int | msgspec.UnsetType = msgspec.UNSET
    evidence: _TypedEvidence | None = None
    confidence: float = 1.0
    rule_id: str = ""
    body: str = ""
    category_certainty: float = 1.0


# The evidence of a record without one (a global finding): an `Evidence` already.
_NOWHERE = cast("_DecodedEvidence", Evidence())
_Line = Annotated[int, msgspec.Meta(ge=1, le=MAX_LINE)]
_Text = Annotated[str, msgspec.Meta(min_length=1)]
if TYPE_CHECKING:
    _Label = str | Severity
else:
    _Label = Literal[tuple(_SEVERITIES)]


class _DecodedEvidence(msgspec.Struct, gc=False):
    """An `Evidence` as decoded, checked by the decoder in C: the same fields in the same
    order, so that it becomes an `Evidence` in place (its file and span are then checked
    by `_decoded_findings`, which the decoder cannot do). Not frozen, so that the pass
    sets its file at the cost of a plain assignment; the `Evidence` it becomes is."""

    file: str = ""
    line: _Line | None = None
    snippet: str = ""
    symbol: str = ""
    end_line: _Line | None = None


class _DecodedFinding(msgspec.Struct, gc=False):
    """A `NormalizedFinding` as decoded from a native record: the same fields in the same
    order, so that it becomes one in place, each checked by the decoder in C as the
    finding's own checks would (a non-empty bot, a certainty in [0, 1], a finite
    confidence: msgspec refuses a number beyond a float's range), and as a native record's
    (a non-empty category and title). A record stating a field native records lack (any
    value but the default) is refused here: `_TypedRecord` reads it, ignoring the field.
    Not frozen, as `_DecodedEvidence`; a record without evidence holds `_NOWHERE`."""

    bot: _Text
    finding_id: str
    severity: _Label  # its exact label, which becomes its `Severity`
    category: _Text
    title: _Text
    evidence: _DecodedEvidence = _NOWHERE
    confidence: float = 1.0
    rule_id: str = ""
    body: str = ""
    category_certainty: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)] = 1.0
    suggestion: Annotated[str, msgspec.Meta(max_length=0)] = ""
    source: None = None
    related: Annotated[tuple[_DecodedEvidence, ...], msgspec.Meta(max_length=0)] = ()
    cwes: Annotated[tuple[int, ...], msgspec.Meta(max_length=0)] = ()
    use_only: Literal[False] = False
    priority: Annotated[float, msgspec.Meta(ge=NO_PRIORITY, le=NO_PRIORITY)] = NO_PRIORITY


_DECODE_TYPED = msgspec.json.Decoder(_TypedRecord).decode
_DECODE_TYPED_ARRAY = msgspec.json.Decoder(list[_TypedRecord]).decode
_DECODE_FINDINGS = msgspec.json.Decoder(list[_DecodedFinding]).decode


class NativeReader:
    name = "native"

    def detect(self, source: Source) -> bool:
        if source.blank():
            return True  # an empty file is an empty list (JSONL writers leave it empty)
        if source.head(8).startswith("["):
            items = source.first_items()  # never the whole array just to look at one record
            return items is not None and (not items or _looks_native(items[0]))
        document = source.json_or_none()
        if isinstance(document, dict):  # JSONL with a single line
            return _looks_native(document)
        if document is None:
            first_line = source.head().split("\n", 1)[0]
            try:
                return _looks_native(orjson.loads(first_line))
            except orjson.JSONDecodeError:
                return False
        return False

    def read(self, source: Source) -> Batch:
        if source.blank():
            return Batch()
        if not source.head().startswith("["):
            return _read_lines(source)
        document = source.parsed()
        if document is None:
            batch = _read_typed_array(source)
            if batch is not None:
                return batch
            return _read_records(source, _split_array(source))
        if not isinstance(document, list):
            raise InputError(source.name, "/", "expected a JSON array of findings")
        return _read_records(source, document)


def _read_typed_array(source: Source) -> Batch | None:
    """Every finding of an array of well-typed records, or None to read it record by record."""
    found = _decoded_findings(source)
    try:
        records: list[_TypedRecord | None] = [] if found else list(_DECODE_TYPED_ARRAY(source.data))
    except (msgspec.DecodeError, RecursionError):
        return None
    check(source.name, source.data, _RECORDS, {"severity": len(found or records)})
    if found:
        return Batch(found)
    batch = Batch()
    findings = batch.findings
    bot_override = source.options.bot
    paths = PathResolver(source.options.root)
    for index in range(len(records)):
        record, records[index] = records[index], None  # freed as soon as it is a finding
        assert record is not None
        finding = _typed_finding(record, index, bot_override, paths)
        if finding is None:
            return None
        findings.append(finding)
    return batch


def _decoded_findings(source: Source) -> list[NormalizedFinding] | None:
    """The findings of an array of native records decoded straight into findings, or None
    when a record is not read that way (see the module's docstring).

    The decoder checks each field in C (`_DecodedFinding`); one pass then makes each
    decoded value the finding and evidence it is (in place: no other value per record)
    and does what the decoder cannot: each severity label becomes its `Severity`, a span
    and each distinct file are checked, and the bot, category and file strings are shared.
    """
    try:
        findings = _DECODE_FINDINGS(source.data)
    except (msgspec.DecodeError, RecursionError):
        return None
    paths = PathResolver(source.options.root)
    # One string per bot, category and file for the run, where the decoder made one per
    # record: a million findings hold a few thousand.
    bots: dict[str, str] = {}
    categories: dict[str, str] = {}
    located: dict[str, str] = {}
    override = None if source.options.bot is None else intern(source.options.bot)
    severities: dict[Any, Severity] = _SEVERITIES
    for finding in findings:
        finding.severity = severities[finding.severity]
        bot = override or finding.bot
        try:
            bot = bots[bot]
        except KeyError:
            bot = bots[bot] = intern(bot)
        finding.bot = bot
        category = finding.category
        try:
            category = categories[category]
        except KeyError:
            category = categories[category] = intern(category)
        finding.category = category
        evidence = finding.evidence
        if evidence is not _NOWHERE:
            file = evidence.file
            try:
                place = located[file]
            except KeyError:
                place = located[file] = paths.location(file)
                if not _nameable(place):
                    return None
            evidence.file = place
            end_line = evidence.end_line
            if end_line is not None and not _nameable(place, evidence.line, end_line):
                return None
            # CPython checks that the two classes' fields agree (as a test does)
            evidence.__class__ = Evidence  # type: ignore[assignment]
        finding.__class__ = NormalizedFinding  # type: ignore[assignment]
    return cast(list[NormalizedFinding], findings)


def _nameable(path: str, line: int | None = None, end_line: int | None = None) -> bool:
    """Whether a path made repository-relative still names a file, and a span there is
    one (see `Evidence`)."""
    try:
        Evidence(path, line, end_line=end_line)
    except FindingError:
        return False
    return True


def _split_array(source: Source) -> list[object]:
    """The array's elements as raw JSON, each decoded only when its finding is built.

    Unlike parsing the whole document at once, this never holds a million parsed records
    (nor a parser's intermediate tree) in memory: a million findings fit in far less.
    """
    try:
        return list(_ARRAY_OF_RAW.decode(source.data))
    except msgspec.ValidationError:
        raise InputError(source.name, "/", "expected a JSON array of findings") from None
    except (msgspec.DecodeError, RecursionError):
        pass  # orjson words the error (line and column), or reads what msgspec would not
    document = source.json()
    if not isinstance(document, list):
        raise InputError(source.name, "/", "expected a JSON array of findings")
    return document


def _looks_native(record: object) -> bool:
    return isinstance(record, dict) and "bot" in record and "severity" in record


def _read_lines(source: Source) -> Batch:
    batch = Batch()
    bot_override = source.options.bot
    paths = PathResolver(source.options.root)
    held = dict.fromkeys(CHECKED, 0)
    for number, raw in enumerate(source.data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            finding = typed_record(raw, number, bot_override, paths, held)
            if finding is None:
                record = orjson.loads(raw)
                _hold(held, record)
                finding = parse_record(record, number, bot_override, paths)
            batch.findings.append(finding)
        except orjson.JSONDecodeError as err:
            reason = f"invalid JSON at column {err.colno}: {err.msg}"
            batch.skipped.append(Skipped(source.name, f"line {number}", reason))
        except FindingError as err:
            batch.skipped.append(Skipped(source.name, f"line {number}", str(err)))
    check_lines(source.name, source.data, held)
    return batch


def _hold(held: dict[str, int], record: object) -> None:
    """Count the checked keys `record` (a typed record or parsed JSON) holds."""
    if isinstance(record, _TypedRecord):
        held["severity"] += 1  # a typed record has every key of CHECKED
    elif isinstance(record, dict):
        for key in held:
            held[key] += key in record


def _read_records(source: Source, records: list[object]) -> Batch:
    batch = Batch()
    bot_override = source.options.bot
    paths = PathResolver(source.options.root)
    held = dict.fromkeys(CHECKED, 0)
    for index in range(len(records)):
        # Release each parsed record once it is a finding: a million parsed dicts and a
        # million findings need not be alive at the same time.
        record, records[index] = records[index], None
        try:
            finding = None
            if type(record) is msgspec.Raw:
                finding = typed_record(record, index, bot_override, paths, held)
                if finding is None:
                    record = _decode_record(record, source)
            if finding is None:
                _hold(held, record)
                finding = parse_record(record, index, bot_override, paths)
            batch.findings.append(finding)
        except FindingError as err:
            batch.skipped.append(Skipped(source.name, pointer(index), str(err)))
        except msgspec.DecodeError as err:  # the split checks structure, not string bytes
            batch.skipped.append(Skipped(source.name, pointer(index), f"invalid JSON: {err}"))
        except RecursionError:
            batch.skipped.append(Skipped(source.name, pointer(index), _TOO_DEEP))
    check(source.name, source.data, _RECORDS, held)
    return batch


def _decode_record(raw: msgspec.Raw, source: Source) -> object:
    """A record the typed decoder refused, parsed.

    Nested deeper than JSON's depth limit, it makes the whole input invalid JSON, as it does
    for every reader. orjson decides, because its limit is fixed: msgspec's follows the
    interpreter's (on Python 3.12 and later it splits and decodes deeper values). msgspec
    still decodes the record: orjson reads an integer beyond 64 bits as a float, and
    `parse_record` must see numbers as written. Only records the typed decoder refused
    come here, so the second parse is rare.
    """
    try:
        orjson.loads(memoryview(raw))
    except orjson.JSONDecodeError as err:
        if err.msg == _DEPTH_EXCEEDED:
            source.json()  # raises the input's error, with its line and column
    return _DECODE(raw)


def typed_record(
    raw: bytes | msgspec.Raw,
    index: int,
    bot_override: str | None,
    paths: PathResolver,
    held: dict[str, int] | None = None,
) -> NormalizedFinding | None:
    """The finding of a well-typed record, or None for `parse_record` to read and judge;
    `held` counts the keys of `CHECKED` the record holds when it is a finding."""
    try:
        record = _DECODE_TYPED(raw)
    except (msgspec.DecodeError, RecursionError):  # too deep for msgspec: orjson words it
        return None
    finding = _typed_finding(record, index, bot_override, paths)
    if finding is not None and held is not None:
        _hold(held, record)
    return finding


def _typed_finding(
    record: _TypedRecord, index: int, bot_override: str | None, paths: PathResolver
) -> NormalizedFinding | None:
    severity = _SEVERITIES.get(record.severity)
    if not (record.bot and record.category and record.title) or severity is None:
        return None
    finding_id = record.finding_id
    evidence = record.evidence or _NO_EVIDENCE
    try:
        return NormalizedFinding(
            intern(bot_override or record.bot),
            f"#{index}" if finding_id is msgspec.UNSET else str(finding_id),
            severity,
            intern(record.category),
            record.title,
            Evidence(
                paths.location(evidence.file),
                evidence.line,
                evidence.snippet,
                evidence.symbol,
                evidence.end_line,
            ),
            record.confidence,
            record.rule_id,
            record.body,
            record.category_certainty,
        )
    except (FindingError, ValueError):
        return None


_NO_EVIDENCE = _TypedEvidence()


def parse_record(
    record: object,
    index: object,
    bot_override: str | None = None,
    paths: PathResolver | None = None,
) -> NormalizedFinding:
    """One native record as a finding; `FindingError` says which field is wrong and why.

    Its file becomes repository-relative through `paths` (``./a.py``, ``a\\b.py``,
    absolute paths under the root, ``file://`` URIs), as every reader's does.
    """
    if not isinstance(record, dict):
        raise FindingError(f"record must be an object, not {type(record).__name__}")
    for name in _REQUIRED_TEXT:
        if not isinstance(record.get(name), str) or not record[name]:
            raise FindingError(f"field {name!r} must be a non-empty string")
    if not isinstance(record.get("severity"), str):
        raise FindingError("field 'severity' must be a string")
    finding_id = record.get("finding_id", f"#{index}")
    if not isinstance(finding_id, str | int) or isinstance(finding_id, bool):
        raise FindingError("field 'finding_id' must be a string")
    evidence = record.get("evidence") or {}
    if not isinstance(evidence, dict):
        raise FindingError("field 'evidence' must be an object")
    for name in _EVIDENCE_TEXT:
        if not isinstance(evidence.get(name, ""), str):
            raise FindingError(f"field 'evidence.{name}' must be a string")
    confidence = record.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise FindingError("field 'confidence' must be a number")
    if not is_finite(confidence):
        raise FindingError("field 'confidence' must be finite")
    extras = _extras(record) if _EXTRA_KEYS & record.keys() else {}
    return NormalizedFinding.create(
        bot=intern(bot_override or record["bot"]),
        finding_id=str(finding_id),
        severity=record["severity"],
        category=intern(record["category"]),
        title=record["title"],
        file=(paths or PathResolver()).location(evidence.get("file", "")),
        line=evidence.get("line"),
        end_line=evidence.get("end_line"),
        snippet=evidence.get("snippet", ""),
        symbol=evidence.get("symbol", ""),
        confidence=float(confidence),
        **extras,
    )


_EXTRA_KEYS = frozenset({"rule_id", "body", "category_certainty"})


def _extras(record: dict[str, Any]) -> dict[str, Any]:
    """The optional fields beyond the seed: rule id, body text and category certainty."""
    extras: dict[str, Any] = {}
    for name in ("rule_id", "body"):
        if name in record:
            if not isinstance(record[name], str):
                raise FindingError(f"field {name!r} must be a string")
            extras[name] = record[name]
    if "category_certainty" in record:
        certainty = record["category_certainty"]
        if isinstance(certainty, bool) or not isinstance(certainty, int | float):
            raise FindingError("field 'category_certainty' must be a number")
        extras["category_certainty"] = float(certainty)
    return extras


READER = NativeReader()
