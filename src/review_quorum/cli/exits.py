"""What `quorum` ends with: its exit statuses, and what commands keep until it exits.

Apart from `common` so that `cli.main` can name them without loading what the commands
share (readers, scoring): `quorum --help` and a mistyped command load neither.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """The exit statuses of `quorum`, as documented in the README."""

    OK = 0
    GATE_FAILED = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C
    BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader closed the pipe (`quorum ... | head`)


class _Keeper:
    """What commands built, held until the process ends when the console script runs.

    The console script leaves with `os._exit` (see `cli.entry_point`); until then nothing
    a command keeps here is freed, so it is not freed object by object on the way out.
    Called from `main` in a library or a test, keeping does nothing.
    """

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: list[object] | None = None

    def enable(self) -> None:
        self.kept = []

    def __call__(self, *objects: object) -> None:
        if self.kept is not None:
            self.kept.extend(objects)


keep_until_exit = _Keeper()
