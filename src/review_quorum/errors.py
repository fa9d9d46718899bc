"""The exception hierarchy of review-quorum, and the `Skipped` record for unusable input.

Every error the library raises on purpose derives from `QuorumError`::

    QuorumError
    ├── InputError          a structurally broken input file (names the file and position)
    │   └── RecordsError    scoring records that failed validation: every bad field listed
    ├── FindingError        a value that cannot become a finding (names the record)
    │   │   (also a ValueError, so callers validating data can catch it as one)
    │   └── NotAFinding     a record that is, by design, no finding (a measurement)
    ├── ConfigError         a bad configuration key or value (names the key)
    ├── UsageError          a command line that cannot be meant (no input files)
    └── ServiceError        a web API refused or failed a request (method and path)
        ├── GitHubError     ... the GitHub API
        ├── GitLabError     ... the GitLab API
        ├── AzureDevOpsError ... the Azure DevOps API
        └── BitbucketError  ... the Bitbucket Cloud API

Results that are valid but likely not what the user meant (agreement over-stated by a
`--bots` below the bots seen, an unknown posting threshold) are a `QuorumWarning`, a
`UserWarning`; the CLI prints each as ``quorum: warning: ...``.

A single unusable record inside an otherwise good file is not an error: it becomes a
`Skipped` value that is counted and shown in every output. Messages quote untrusted
values with `shown`, which stays short and cheap whatever the value (a number of
thousands of digits, an array nested a thousand levels deep).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec


class QuorumWarning(UserWarning):
    """A result that is valid but likely not what the user meant (over-stated agreement)."""


class QuorumError(Exception):
    """Root of every error review-quorum raises on purpose."""


class InputError(QuorumError):
    """A structurally broken input: the message names the file and where in it."""

    def __init__(self, source: str, position: str, message: str) -> None:
        self.source = source
        self.position = position
        self.message = message
        where = f"{source}:{position}" if position else source
        super().__init__(f"{where}: {message}")


class FindingError(QuorumError, ValueError):
    """A value that cannot become a valid finding; the message names the record."""


class NotAFinding(FindingError):
    """A record read as intended that is no finding: a measurement, an ignored rule."""


class ConfigError(QuorumError):
    """A configuration key or value that is unknown or invalid; the message names the key."""


class UsageError(QuorumError):
    """A command line that cannot be meant as given, such as one without any input."""


class ServiceError(QuorumError):
    """A web API refused or failed a request: `method` and `path` say which, as httpx's
    errors carry their request; `status` is the HTTP status when there was one."""

    def __init__(
        self, message: str, *, status: int | None = None, method: str = "", path: str = ""
    ) -> None:
        self.status = status
        self.method = method
        self.path = path
        super().__init__(message)


class GitHubError(ServiceError):
    """The GitHub API refused or failed a request."""


class GitLabError(ServiceError):
    """The GitLab API refused or failed a request."""


class AzureDevOpsError(ServiceError):
    """The Azure DevOps API refused or failed a request."""


class BitbucketError(ServiceError):
    """The Bitbucket Cloud API refused or failed a request."""


class RecordProblem(msgspec.Struct, frozen=True):
    """One bad field: the file, a JSON pointer to the record or field, and what is wrong."""

    source: str
    pointer: str
    message: str

    def describe(self) -> str:
        return f"{self.source}:{self.pointer}: {self.message}"


class RecordsError(InputError):
    """Records that failed validation; `problems` lists every bad field of every record."""

    def __init__(self, problems: Sequence[RecordProblem]) -> None:
        self.problems = tuple(problems)
        sources = ", ".join(dict.fromkeys(problem.source for problem in problems))
        records = len({(problem.source, problem.pointer.split("/")[1]) for problem in problems})
        lines = "".join(f"\n  {problem.describe()}" for problem in problems)
        count = len(problems)
        summary = (
            f"{count} problem{'s' if count != 1 else ''} in {records} "
            f"record{'s' if records != 1 else ''}; nothing was scored"
        )
        super().__init__(sources, "", summary + lines)


class Skipped(msgspec.Struct, frozen=True):
    """One input record that could not be used, with where it was and why.

    `position` is a JSON pointer (``/runs/0/results/7``) or ``line N`` for line-based
    formats; `reason` is a sentence a user can act on. `not_a_finding` marks a record
    that was read as intended and is, by design, no finding (a person's comment, a bot's
    walkthrough, a suppressed result) rather than a broken one.
    """

    source: str
    position: str
    reason: str
    not_a_finding: bool = False

    def describe(self) -> str:
        return f"{self.source}:{self.position}: {self.reason}"


SHOWN_LIMIT = 60
_SHOWN_ITEMS = 3
_SHOWN_DEPTH = 2
_SHOWN_DIGITS = 24


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """A parsed JSON value as JSON (`true`, `"1e2"`, `null`, `[1, [...]]`), cut to `limit`.

    Bounded work whatever the value: containers are shown three items and two levels
    deep, numbers of more than 24 digits by their first digits and length.
    """
    text = _brief(value, 0)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _brief(value: object, depth: int) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return _brief_int(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _quoted(value[: SHOWN_LIMIT + 1])
    if isinstance(value, list | tuple | dict):
        return _brief_container(value, depth)
    return f"<{type(value).__name__}>"


def _brief_int(value: int) -> str:
    if value.bit_length() <= 64:
        return str(value)
    if value.bit_length() >= 10_000:  # str() refuses beyond 4,300 digits
        return "a number of thousands of digits"
    digits = str(abs(value))
    return f"{'-' if value < 0 else ''}{digits[:8]}… ({len(digits)} digits)"


def _brief_container(
    value: list[object] | tuple[object, ...] | dict[object, object], depth: int
) -> str:
    is_object = isinstance(value, dict)
    opening, closing = ("{", "}") if is_object else ("[", "]")
    if not value:
        return opening + closing
    if depth >= _SHOWN_DEPTH:
        return f"{opening}…{closing}"
    if isinstance(value, dict):
        items = [
            f"{_quoted(str(key)[:SHOWN_LIMIT])}: {_brief(item, depth + 1)}"
            for key, item in list(value.items())[:_SHOWN_ITEMS]
        ]
    else:
        items = [_brief(item, depth + 1) for item in value[:_SHOWN_ITEMS]]
    more = ", …" if len(value) > _SHOWN_ITEMS else ""
    return opening + ", ".join(items) + more + closing


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(_escape(char) for char in escaped) + '"'


def _escape(char: str) -> str:
    if char >= " " and char != "\x7f":
        return char
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\u{ord(char):04x}")


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}


def json_type(value: object) -> str:
    """What a parsed JSON value is, in JSON's words ("an array", "a number", "null")."""
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return _JSON_TYPES.get(type(value), type(value).__name__)
