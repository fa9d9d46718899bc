"""The typed fast path for SARIF: decode straight into `msgspec.Struct`s, then build findings.

`read` decodes a SARIF log with a `msgspec.json.Decoder` whose Structs keep only the
members the reader uses; msgspec skips every other member in C (rule help texts, code
flows, related locations, ...), which is faster and lighter than parsing the whole
document into dicts. Members are typed as narrowly as the reader needs them, so a value
of an unexpected type makes the decode fail and `read` returns None: the caller then
reads the file by the generic path (`sarif_results`), which owns every `Skipped` record
and `InputError` message. Integers are limited to the range orjson reads as integers,
so both paths see the same values. Likewise each result the fast loop does not take as
ordinary (suppressed, a baseline state, an artifact index, a skip of any kind) is handed
to the generic `RunReader` as the dicts orjson would have produced for the members it
reads, so both paths give the same findings and Skipped records in the same order.

One difference is known and accepted: msgspec does not check the members it skips, so a
file whose unread members hold invalid UTF-8 or a number beyond the range of a double is
read here, where orjson (and so the generic path) rejects the whole file. So is one
whose unread members nest deeper than orjson's limit of 1,024, on Python 3.12 and later:
how deep msgspec goes follows the interpreter, and on 3.11 it stops first.

Unlike the rest of the package, this module's annotations are evaluated where they are
written (no ``from __future__ import annotations``): building the decoder then reads the
Structs' types as they are instead of compiling and evaluating each field's annotation
string (about a third of what importing this module cost: 4 M instructions of a small
review's start-up).
"""

from threading import Lock
from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType, to_builtins

from review_quorum.errors import FindingError
from review_quorum.ingest.base import Batch, Source
from review_quorum.ingest.categories import Categorizer
from review_quorum.ingest.category_tables import HOUSEKEEPING
from review_quorum.ingest.duplicates import EACH, Shape, repeated_key
from review_quorum.ingest.sarif_results import GLOBAL, RunReader, first_fingerprint
from review_quorum.ingest.sarif_rules import (
    SkipRecord,
    confidence_of,
    ranked,
    severity_of,
)
from review_quorum.model import NO_PRIORITY, Evidence, NormalizedFinding, Severity

# orjson reads integers beyond 64 bits as floats, msgspec as ints: integers outside int64
# (the widest bound msgspec checks) fail the typed decode, so the generic path reports them.
Integer = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Shape(msgspec.Struct, rename="camel", omit_defaults=True, gc=False):
    """SARIF members in snake case; absent members are None (or UNSET where it differs)."""


class Text(_Shape):
    text: str | None = None


class Region(_Shape):
    start_line: Integer | None = None
    end_line: Integer | None = None
    snippet: Text | None = None


class ArtifactLocation(_Shape):
    uri: str | None = None
    uri_base_id: str | None = None
    index: Integer | None = None


class PhysicalLocation(_Shape):
    artifact_location: ArtifactLocation | None = None
    region: Region | None = None


class LogicalLocation(_Shape):
    fully_qualified_name: str | None = None
    name: str | None = None


class Location(_Shape):
    physical_location: PhysicalLocation | None = None
    logical_locations: list[LogicalLocation] | None = None


class Message(_Shape):
    text: str | None = None
    id: str | None = None
    arguments: list[str] | None = None


class Properties(_Shape):
    """The property-bag members the reader uses; only the CVSS score is computed with."""

    security_severity: str | Integer | float | None = msgspec.field(
        default=None, name="security-severity"
    )
    precision: object = None
    confidence: object = None
    issue_confidence: object = msgspec.field(default=None, name="issue_confidence")
    tags: object = None
    cwe: object = None


class Suppression(_Shape):
    kind: str | None | UnsetType = UNSET  # an absent kind reads "?", a null one "None"
    status: object = None


class ComponentReference(_Shape):
    index: Integer | None = None


class RuleReference(_Shape):
    id: str | None | UnsetType = UNSET  # absent: the result's ruleId; null: no id
    index: Integer | None | UnsetType = UNSET
    tool_component: ComponentReference | None = None


class Result(_Shape):
    rule_id: str | None = None
    rule_index: Integer | None = None
    rule: RuleReference | None = None
    level: str | None = None
    kind: str | None = None
    message: Message | None = None
    locations: list[Location] | None = None
    fingerprints: object = None
    partial_fingerprints: object = None
    suppressions: list[Suppression] | None = None
    baseline_state: object = None
    rank: Integer | float | None = None
    properties: Properties | None = None

    def __post_init__(self) -> None:
        _DECODED[1] += 1  # a result that a repeated key replaces is counted, not kept


class Descriptor(_Shape):
    """A rule; its members go to `sarif_rules.Rule` as dicts, which checks their types."""

    id: object = None
    name: object = None
    short_description: object = None
    full_description: object = None
    default_configuration: object = None
    message_strings: object = None
    relationships: object = None
    properties: Properties | None = None


class ToolComponent(_Shape):
    name: object = None
    rules: list[Descriptor] | None = None
    global_message_strings: object = None


class Tool(_Shape):
    driver: ToolComponent | None = None
    extensions: list[ToolComponent] | None = None


class Invocation(_Shape):
    working_directory: object = None


class Artifact(_Shape):
    location: object = None


class SarifRun(_Shape):
    tool: Tool | None = None
    results: list[Result] | None = None
    artifacts: list[Artifact] | None = None
    original_uri_base_ids: object = None
    invocations: list[Invocation] | None = None

    def __post_init__(self) -> None:
        _DECODED[0] += 1


class Log(_Shape):
    runs: list[SarifRun]
    version: str | None = None


_DECODER = msgspec.json.Decoder(Log)
_DECODED = [0, 0]  # runs and results decoded by the current `_decode`
_DECODING = Lock()
_NO_PROPERTIES = Properties()
_READ = Result()  # stands in for results already read


class _Unusual(Exception):
    """A result the fast loop leaves to the generic path (which judges it exactly)."""


def read(source: Source) -> Batch | None:
    """Every finding in `source`, or None when its shapes need the generic path."""
    data = source.data[3:] if source.data.startswith(b"\xef\xbb\xbf") else source.data
    try:
        log = _decode(source.name, data)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    if log.version is not None and log.version != "2.1.0":
        return None  # the generic path names the unsupported version
    del data
    source.release()  # decoded: the bytes (as big as the file) need not outlive the decode
    batch = Batch()
    categorizer = Categorizer(source.options.categories)
    for index, run in enumerate(log.runs):
        _TypedRun(source, run, index, categorizer).read_into(batch)
    return batch


def _decode(name: str, data: bytes) -> Log:
    """The log in `data`; `InputError` when a repeated ``runs`` or ``results`` key would
    replace runs or results (the decoder keeps the last value: the Structs it made for the
    others are counted, and the counts then differ from what the log holds)."""
    with _DECODING:  # the counts are per decode
        _DECODED[:] = [0, 0]
        log = _DECODER.decode(data)
        runs, results = _DECODED
    if runs != len(log.runs) or results != sum(len(run.results or ()) for run in log.runs):
        error = repeated_key(name, data, LOG_AND_RUNS)
        if error is not None:
            raise error
    return log


LOG_AND_RUNS = Shape((), ("runs", EACH), keys=("runs", "results"))
"""The objects whose repeated keys would replace findings: the log (``runs``) and each
run (``results``)."""


class _TypedRun:
    """The results of one decoded run, with a generic `RunReader` for the run's context."""

    __slots__ = (
        "_bot",
        "_path_cache",
        "_paths",
        "_reader",
        "_results",
        "_rule_cache",
        "_rules",
        "_titles",
    )

    def __init__(self, source: Source, run: SarifRun, index: int, categorizer: Categorizer) -> None:
        self._results = run.results
        # the run without its results, as dicts: rules, artifacts and bases are few
        context = to_builtins(msgspec.structs.replace(run, results=None))
        self._reader = reader = RunReader(source, context, index, categorizer)
        self._bot = reader.bot
        self._rules = reader.rules
        self._rule_cache = reader.rule_cache
        self._paths = reader.paths
        self._path_cache = reader.path_cache
        self._titles = reader.titles

    def read_into(self, batch: Batch) -> None:
        results = self._results
        reader = self._reader
        if results is None or not reader.begin(results, batch):
            return
        findings = batch.findings
        for number in range(len(results)):
            # Release each decoded result once it is read: its message, fingerprints and
            # Structs need not stay alive beside the findings (a third less peak memory).
            result, results[number] = results[number], _READ
            try:
                findings.append(self._finding(result))
            except (_Unusual, SkipRecord, FindingError):
                reader.record(to_builtins(result), number, batch)
        reader.finish(batch)

    def _finding(self, result: Result) -> NormalizedFinding:
        rule_id = result.rule_id
        index = result.rule_index
        reference = result.rule
        rules = self._rules
        if reference is not None:
            rule = rules.find(*_referenced(reference, rule_id, index))
        else:
            cached = self._rule_cache.get(rule_id if index is None else (rule_id, index, None))
            rule = cached if cached is not None else rules.find(rule_id, index, None)
        if result.suppressions or result.baseline_state is not None:
            raise _Unusual
        properties = result.properties
        bag = None
        if properties is not None and properties != _NO_PROPERTIES:
            bag = to_builtins(properties)
        level = result.level
        kind = result.kind
        if level is None and kind is None and bag is None:
            severity = rule.severity
        else:
            severity = severity_of(level, kind, rule, bag)
        rank = result.rank
        priority = NO_PRIORITY
        if rank is not None:
            severity, priority = ranked(rank, severity, rule)
        confidence = rule.confidence if bag is None else confidence_of(bag, rule)
        category = rule.category if bag is None else rules.category(rule, bag)
        if category in HOUSEKEEPING and severity > Severity.MEDIUM:
            severity = Severity.MEDIUM
        message = result.message
        text = message.text if message is not None else None
        title = self._titles.get(text) if text is not None else None
        if title is None:  # the message as a dict only when its text is not what titles it
            shape = to_builtins(message) if message is not None and text is None else message
            title = self._reader.title(shape, text, rule)
        locations = result.locations
        evidence = self._evidence(locations[0]) if locations else GLOBAL
        fingerprints = result.fingerprints or result.partial_fingerprints
        finding_id = first_fingerprint(fingerprints, rule.id) if fingerprints else rule.id
        return NormalizedFinding(
            self._bot,
            finding_id,
            severity,
            category,
            title,
            evidence,
            confidence,
            rule.id,
            text or "",
            cwes=rule.cwes,
            use_only=rule.use_only,
            priority=priority,
        )

    def _evidence(self, location: Location) -> Evidence:
        logical = location.logical_locations
        symbol = _symbol(logical[0]) if logical else ""
        physical = location.physical_location
        if physical is None:
            return Evidence(symbol=symbol) if symbol else GLOBAL
        artifact = physical.artifact_location
        file = ""
        if artifact is not None:
            uri = artifact.uri
            if uri is None:
                file = self._reader.file(to_builtins(artifact))  # names an artifact by index
            else:
                base = artifact.uri_base_id
                known = self._path_cache.get(base)
                found = known.get(uri) if known is not None else None
                file = found if found is not None else self._paths.uri(uri, base)
        region = physical.region
        if region is None:
            return Evidence(file, None, "", symbol, None)
        snippet = region.snippet
        text = snippet.text if snippet is not None else None
        start = region.start_line
        if start is None:
            return Evidence(file, None, text or "", symbol, None)
        end = region.end_line
        if start < 1 or (end is not None and end < start):
            raise _Unusual
        return Evidence(file, start, text or "", symbol, end)


def _referenced(
    reference: RuleReference, rule_id: str | None, index: int | None
) -> tuple[str | None, int | None, int | None]:
    """The (id, index, extension index) of a rule reference, defaulting to the result's."""
    ref_id = rule_id if isinstance(reference.id, UnsetType) else reference.id
    ref_index = index if isinstance(reference.index, UnsetType) else reference.index
    component = reference.tool_component
    return ref_id, ref_index, component.index if component is not None else None


def _symbol(logical: LogicalLocation) -> str:
    name = logical.fully_qualified_name or logical.name
    return name if name is not None else ""
