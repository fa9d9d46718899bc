"""The verifier's vocabulary (SPEC section 4) and strict validation of scoring records.

Owns the input side of confidence scoring: the enums a drafter and a verifier speak, the
`FindingInput` the scorer takes, and turning parsed JSON (scoring records, or drafter
findings joined with verifier verdicts by file and line) into inputs. Validation is
complete rather than first-error: every bad field of every record is collected and raised
together as one `RecordsError`, so a user fixes a file in one pass and nothing is scored
from a file that is partly wrong. The common case (a valid record) takes a fast path of
plain dictionary lookups; the field-by-field checks run only for records that fail it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

from review_quorum.errors import (
    FindingError,
    InputError,
    RecordProblem,
    RecordsError,
    json_type,
    shown,
)
from review_quorum.model import MAX_LINE, Severity


class Verdict(enum.StrEnum):
    """The verifier's judgement of a drafted finding."""

    CONFIRMED = "CONFIRMED"
    LIKELY = "LIKELY"
    DISMISSED = "DISMISSED"


class EvidenceStrength(enum.StrEnum):
    DIRECT = "direct"
    CIRCUMSTANTIAL = "circumstantial"
    SPECULATIVE = "speculative"


class ContextCompleteness(enum.StrEnum):
    FULL = "full"
    PARTIAL = "partial"
    NONE = "none"


class VerifierSeverity(enum.StrEnum):
    """The three-step severity scale drafters and verifiers use; `rank` orders it."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        return SEVERITY_RANK[self]

    @classmethod
    def from_severity(cls, severity: Severity) -> VerifierSeverity:
        """The shared five-step scale folded onto three steps (critical->high, info->low)."""
        if severity >= Severity.HIGH:
            return cls.HIGH
        return cls.MEDIUM if severity is Severity.MEDIUM else cls.LOW


SEVERITY_RANK = {VerifierSeverity.HIGH: 3, VerifierSeverity.MEDIUM: 2, VerifierSeverity.LOW: 1}


class Category(enum.StrEnum):
    SECURITY = "security"
    LOGIC_ERROR = "logic_error"
    RESOURCE_LEAK = "resource_leak"
    CONCURRENCY = "concurrency"
    ERROR_HANDLING = "error_handling"
    DATA_INTEGRITY = "data_integrity"
    OTHER = "other"


ENUM_FIELDS: dict[str, type[enum.StrEnum]] = {
    "category": Category,
    "verdict": Verdict,
    "evidence_strength": EvidenceStrength,
    "context_completeness": ContextCompleteness,
    "drafter_severity": VerifierSeverity,
    "verifier_severity": VerifierSeverity,
}

_E = TypeVar("_E", bound=enum.StrEnum)


def allowed_values(kind: type[enum.StrEnum]) -> str:
    return ", ".join(member.value for member in kind)


def parse_enum(kind: type[_E], field: str, value: object) -> _E:
    """`value` as a member of `kind`, exactly as spelled; `FindingError` names the field."""
    if isinstance(value, str):
        try:
            return kind(value)
        except ValueError:
            pass
    raise FindingError(f"{field}: {value!r} is not one of {allowed_values(kind)}")


class FindingInput(NamedTuple):
    """What the scorer needs to know about one verified finding.

    The constructor trusts its types (mypy checks them) so that building a million inputs
    costs nothing beyond the object; `create` parses enum fields from strings, and scoring
    an input whose fields are not valid members raises `FindingError` naming the field.
    A NamedTuple rather than a frozen dataclass: equally immutable, and built in C, which
    is most of the cost of reading a million records (measured by bench/confidence.py).
    """

    file: str
    line: int
    category: Category
    verdict: Verdict
    evidence_strength: EvidenceStrength
    context_completeness: ContextCompleteness
    drafter_severity: VerifierSeverity
    verifier_severity: VerifierSeverity
    in_diff: bool
    in_changed_code: bool
    issue: str = ""
    details: str = ""

    @classmethod
    def create(cls, **fields: Any) -> FindingInput:
        """Parse enum fields from their string values; `FindingError` names a bad field."""
        parsed = dict(fields)
        for name, kind in ENUM_FIELDS.items():
            if name in parsed:
                parsed[name] = parse_enum(kind, name, parsed[name])
        return cls(**parsed)


# --- record validation ---------------------------------------------------------------


class _Bad(Exception):
    """A field value that fails its check; the message says why."""


def _text(value: object) -> str:
    if isinstance(value, str) and value:
        return value
    raise _Bad(f"must be a non-empty string, not {shown(value)}")


def _optional_text(value: object) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    raise _Bad(f"must be a string, not {shown(value)}")


_DIGITS = re.compile(r"[1-9][0-9]*", re.ASCII)


def _line(value: object) -> int:
    # JSON integers, or decimal digit strings as LLMs sometimes write them; never a bool,
    # a float, or anything int() would also accept ("1e2", " 7", "+7", "٧").
    if type(value) is int and 1 <= value <= MAX_LINE:
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        if len(value) <= _LINE_DIGITS and int(value) <= MAX_LINE:
            return int(value)
        raise _Bad(f"must be at most {MAX_LINE}, not {shown(value)}")
    if type(value) is int and value > MAX_LINE:
        raise _Bad(f"must be at most {MAX_LINE}, not {shown(value)}")
    raise _Bad(f"must be a positive integer, not {shown(value)}")


_LINE_DIGITS = len(str(MAX_LINE))


_FLAGS = {"true": True, "false": False}


def _flag(value: object) -> bool:
    if type(value) is bool:
        return value
    if isinstance(value, str) and value in _FLAGS:
        return _FLAGS[value]
    raise _Bad(f'must be true or false (or the strings "true"/"false"), not {shown(value)}')


def _member(kind: type[enum.StrEnum]) -> Callable[[object], object]:
    members = {member.value: member for member in kind}

    def check(value: object) -> object:
        if isinstance(value, str) and value in members:
            return members[value]
        raise _Bad(f"{shown(value)} is not one of {allowed_values(kind)}")

    return check


Check = Callable[[object], object]
SCORE_FIELDS: dict[str, Check] = {
    "file": _text,
    "line": _line,
    **{name: _member(kind) for name, kind in ENUM_FIELDS.items()},
    "in_diff": _flag,
    "in_changed_code": _flag,
}
OPTIONAL_TEXT: dict[str, Check] = {"issue": _optional_text, "details": _optional_text}
DRAFTER_FIELDS: dict[str, Check] = {
    "file": _text,
    "line": _line,
    "severity": _member(VerifierSeverity),
    "category": _member(Category),
    "issue": _text,
    "in_diff": _flag,
}
VERIFIER_FIELDS: dict[str, Check] = {
    "verdict": _member(Verdict),
    "file": _text,
    "line": _line,
    "severity": _member(VerifierSeverity),
    "in_changed_code": _flag,
    "evidence_strength": _member(EvidenceStrength),
    "context_completeness": _member(ContextCompleteness),
}


def check_record(
    record: object,
    where: str,
    required: Mapping[str, Check],
    optional: Mapping[str, Check],
    report: Callable[[str, str], None],
) -> dict[str, Any] | None:
    """Every known field of `record` converted, or None after reporting each bad field."""
    if not isinstance(record, dict):
        report(where, f"must be an object, not {json_type(record)}")
        return None
    converted: dict[str, Any] = {}
    failed = False
    for fields, needed in ((required, True), (optional, False)):
        for name, check in fields.items():
            if name not in record:
                if needed:
                    report(f"{where}/{name}", "missing (required)")
                    failed = True
                continue
            try:
                converted[name] = check(record[name])
            except _Bad as err:
                report(f"{where}/{name}", str(err))
                failed = True
    return None if failed else converted


_CATEGORIES = {member.value: member for member in Category}
_VERDICTS = {member.value: member for member in Verdict}
_EVIDENCE = {member.value: member for member in EvidenceStrength}
_CONTEXT = {member.value: member for member in ContextCompleteness}
_SEVERITIES = {member.value: member for member in VerifierSeverity}


# tuple.__new__ straight from C: a NamedTuple's own constructor is a Python function.
_new_input: Callable[[type[FindingInput], tuple[Any, ...]], FindingInput] = tuple.__new__


def _fast_input(record: Any) -> FindingInput | None:
    """A valid record in canonical form as an input, or None to take the careful path."""
    try:
        file, line = record["file"], record["line"]
        in_diff, in_changed = record["in_diff"], record["in_changed_code"]
        issue, details = record.get("issue", ""), record.get("details", "")
        if not (
            type(file) is str
            and file
            and type(line) is int
            and 1 <= line <= MAX_LINE
            and type(in_diff) is bool
            and type(in_changed) is bool
            and type(issue) is str
            and type(details) is str
        ):
            return None
        return _new_input(
            FindingInput,
            (
                file,
                line,
                _CATEGORIES[record["category"]],
                _VERDICTS[record["verdict"]],
                _EVIDENCE[record["evidence_strength"]],
                _CONTEXT[record["context_completeness"]],
                _SEVERITIES[record["drafter_severity"]],
                _SEVERITIES[record["verifier_severity"]],
                in_diff,
                in_changed,
                issue,
                details,
            ),
        )
    except (KeyError, TypeError, AttributeError):
        return None


def parse_score_records(document: object, source: str) -> list[FindingInput]:
    """A JSON array of scoring records as inputs; `RecordsError` lists every bad field."""
    if not isinstance(document, list):
        what = f"expected a JSON array of finding records, not {json_type(document)}"
        raise InputError(source, "/", what)
    found = list(map(_fast_input, document))
    problems: list[RecordProblem] = []

    def report(pointer: str, message: str) -> None:
        problems.append(RecordProblem(source, pointer, message))

    # Only records the fast path refused (loose forms like "12" or "true", or errors) get
    # the careful field-by-field reading.
    refused = [index for index, item in enumerate(found) if item is None] if None in found else []
    for index in refused:
        fields = check_record(document[index], f"/{index}", SCORE_FIELDS, OPTIONAL_TEXT, report)
        found[index] = None if fields is None else FindingInput(**fields)
    inputs: list[FindingInput] = found  # type: ignore[assignment]  # no None left, or raise
    if problems:
        raise RecordsError(problems)
    return inputs


# --- drafter and verifier output -----------------------------------------------------


Entry = tuple[int, dict[str, Any]]


def collect_entries(
    document: object,
    key: str,
    source: str,
    fields: Mapping[str, Check],
    problems: list[RecordProblem],
) -> list[Entry]:
    """The records of `document[key]` that pass, reporting every bad field to `problems`."""
    if not isinstance(document, dict):
        what = f'expected a JSON object with a "{key}" array, not {json_type(document)}'
        raise InputError(source, "/", what)
    if not isinstance(document.get(key), list):
        actual = json_type(document[key]) if key in document else "missing"
        raise InputError(source, f"/{key}", f"expected an array of {key}, not {actual}")

    def report(pointer: str, message: str) -> None:
        problems.append(RecordProblem(source, pointer, message))

    optional = {name: check for name, check in OPTIONAL_TEXT.items() if name not in fields}
    found = []
    for index, record in enumerate(document[key]):
        converted = check_record(record, f"/{key}/{index}", fields, optional, report)
        if converted is not None:
            found.append((index, converted))
    return found


def parse_drafter_output(document: object, source: str) -> list[Entry]:
    """The `findings` of drafter output as (index, converted fields); strict and complete."""
    return _parse_entries(document, "findings", source, DRAFTER_FIELDS)


def parse_verifier_output(document: object, source: str) -> list[Entry]:
    """The `verdicts` of verifier output as (index, converted fields); strict and complete.

    Enum fields come back as members (`Verdict`, `VerifierSeverity`, ...), `line` as an
    int, flags as bools; `issue` and `details` only when present. `RecordsError` lists
    every bad field of every verdict.
    """
    return _parse_entries(document, "verdicts", source, VERIFIER_FIELDS)


def _parse_entries(
    document: object, key: str, source: str, fields: Mapping[str, Check]
) -> list[Entry]:
    problems: list[RecordProblem] = []
    found = collect_entries(document, key, source, fields, problems)
    if problems:
        raise RecordsError(problems)
    return found
