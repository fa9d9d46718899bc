"""The exception hierarchy of review-quorum, and the `Skipped` record for unusable input.

Every error the library raises on purpose derives from `QuorumError`::

    QuorumError
    ├── InputError          a structurally broken input file (names the file and position)
    ├── FindingError        a value that cannot become a finding (names the record)
    │   (also a ValueError, so callers validating data can catch it as one)
    ├── ConfigError         a bad configuration key or value (names the key)
    └── GitHubError         the GitHub API refused or failed a request

A single unusable record inside an otherwise good file is not an error: it becomes a
`Skipped` value that is counted and shown in every output.
"""

from __future__ import annotations

from dataclasses import dataclass


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


class ConfigError(QuorumError):
    """A configuration key or value that is unknown or invalid; the message names the key."""


class GitHubError(QuorumError):
    """The GitHub API refused or failed a request."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Skipped:
    """One input record that could not be used, with where it was and why.

    `position` is a JSON pointer (``/runs/0/results/7``) or ``line N`` for line-based
    formats; `reason` is a sentence a user can act on.
    """

    source: str
    position: str
    reason: str

    def describe(self) -> str:
        return f"{self.source}:{self.position}: {self.reason}"
