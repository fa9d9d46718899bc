"""GitLab Code Quality input: the Code Climate issue array GitLab shows in merge requests.

Each issue is ``{"description", "check_name", "fingerprint", "severity", "location":
{"path", "lines": {"begin", "end"}} or {"path", "positions": {"begin": {"line"}, "end":
{"line"}}}}``, optionally with ``engine_name``, ``categories`` and ``type``.

- bot: ``--bot``, else ``engine_name``, else "code-quality".
- severity: info -> info, minor -> low, major -> medium, critical -> high, blocker ->
  critical, in any case; absent -> medium (SARIF's default level, for consistency). Any
  other name (golangci-lint writes "warning") is what GitLab shows as "unknown": kept,
  as medium, like an absent one.
- lines: a line of 0 (Trivy's template writes it for image vulnerabilities) means no line.
- category: from ``check_name`` via `categories.Categorizer`, with the Code Climate
  ``categories`` (Security, Bug Risk, Performance, Style, ...) as tags.
- ``type`` other than "issue" (Code Climate's "measurement") is not a finding: Skipped.
"""

from __future__ import annotations

from review_quorum.errors import FindingError, InputError, NotAFinding, Skipped, shown
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.categories import Categorizer, tool_name
from review_quorum.ingest.duplicates import EACH, Shape, check, held
from review_quorum.ingest.paths import PathResolver
from review_quorum.ingest.titles import first_sentence
from review_quorum.model import Evidence, NormalizedFinding, Severity

DEFAULT_BOT = "code-quality"
# Repeated keys refused in each issue: its severity and its location.
CHECKED = ("severity", "location")
_ISSUES = Shape((EACH,), keys=CHECKED)
SEVERITIES = {
    "info": Severity.INFO,
    "minor": Severity.LOW,
    "major": Severity.MEDIUM,
    "critical": Severity.HIGH,
    "blocker": Severity.CRITICAL,
}


class GitLabReader:
    name = "gitlab"

    def detect(self, source: Source) -> bool:
        items = source.first_items()
        if not items:
            return False
        first = items[0]
        if not isinstance(first, dict):
            return False
        location = first.get("location")
        return "check_name" in first or (
            "description" in first and isinstance(location, dict) and "path" in location
        )

    def read(self, source: Source) -> Batch:
        document = source.json()
        if not isinstance(document, list):
            raise InputError(source.name, "/", "expected a JSON array of Code Quality issues")
        check(source.name, source.data, _ISSUES, held(document, CHECKED))
        issues = _Issues(source)
        batch = Batch()
        for index, issue in enumerate(document):
            try:
                batch.findings.append(issues.finding(issue, index))
            except FindingError as err:
                deliberate = isinstance(err, NotAFinding)
                batch.skipped.append(Skipped(source.name, pointer(index), str(err), deliberate))
        return batch


class _Issues:
    """Turns Code Quality issues into findings with the settings of one input."""

    def __init__(self, source: Source) -> None:
        self.bot = source.options.bot
        self.paths = PathResolver(source.options.root)
        self.categorizer = Categorizer(source.options.categories)

    def finding(self, issue: object, index: int) -> NormalizedFinding:
        if not isinstance(issue, dict):
            raise FindingError(f"an issue must be an object, not {type(issue).__name__}")
        kind = issue.get("type", "issue")
        if not isinstance(kind, str) or kind.lower() != "issue":
            raise NotAFinding(f"type {shown(kind)} is not an issue")
        check = _text(issue, "check_name")
        engine = _text(issue, "engine_name")
        tool = tool_name(engine) if engine.strip() else DEFAULT_BOT
        description = _text(issue, "description")
        if check and description.startswith(f"{check}: "):  # Ruff repeats the code first
            description = description[len(check) + 2 :]
        title = first_sentence(description) or check
        if not title:
            raise FindingError("the issue has no description and no check_name to title it")
        fingerprint = _text(issue, "fingerprint")
        return NormalizedFinding(
            self.bot or tool,
            f"{check}:{fingerprint}" if check and fingerprint else check or fingerprint,
            _severity(issue.get("severity")),
            self.categorizer.category(tool, check, _categories(issue.get("categories"))),
            title,
            self.evidence(issue.get("location")),
            rule_id=check,
            body=description,
        )

    def evidence(self, location: object) -> Evidence:
        if not isinstance(location, dict):
            raise FindingError("field 'location' must be an object")
        path = location.get("path")
        if not isinstance(path, str):
            raise FindingError("field 'location.path' must be a string")
        lines = location.get("lines")
        positions = location.get("positions")
        if lines is not None:
            begin, end = _span(lines, "lines")
        elif positions is not None:
            begin, end = _span(positions, "positions")
        else:
            begin = end = None
        return Evidence(self.paths.path(path), begin, end_line=end if begin else None)


def _text(issue: dict[str, object], key: str) -> str:
    value = issue.get(key, "")
    if not isinstance(value, str):
        raise FindingError(f"field {key!r} must be a string")
    return value


def _severity(value: object) -> Severity:
    if value is None:
        return Severity.MEDIUM
    if not isinstance(value, str):
        raise FindingError(f"unknown severity {shown(value)} (expected {', '.join(SEVERITIES)})")
    return SEVERITIES.get(value.lower(), Severity.MEDIUM)  # GitLab's "unknown"


def _categories(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise FindingError("field 'categories' must be an array of strings")
    return tuple(value)


def _span(holder: object, name: str) -> tuple[int | None, int | None]:
    """The begin and end lines of ``lines`` (``begin``/``end``) or ``positions``."""
    if not isinstance(holder, dict):
        raise FindingError(f"field 'location.{name}' must be an object")
    return _line(holder, "begin", name), _line(holder, "end", name)


def _line(holder: dict[str, object], which: str, name: str) -> int | None:
    value = holder.get(which)
    if name == "positions" and value is not None:
        if not isinstance(value, dict):
            raise FindingError(f"field 'location.positions.{which}' must be an object")
        value = value.get("line")
    if value is None or value == 0:  # 0: no line (Trivy's template)
        return None
    if type(value) is not int or value < 1:
        raise FindingError(f"field 'location.{name}.{which}' must be a positive integer")
    return value


READER = GitLabReader()
