"""Progress of long work on standard error: rich on a terminal, one line per stage elsewhere.

Reading inputs that add up to more than `PROGRESS_BYTES`, reading a pull request from
GitHub and posting to it are long work: on a terminal they show a transient rich bar or
spinner, in a CI log (standard error not a terminal) a line as each stage starts. `note`
prints one line whatever the stream is, for events a waiting user must see, such as a
GitHub retry and how long it waits. Short work is silent.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

PROGRESS_BYTES = 20_000_000


def note(message: str) -> None:
    """One line on standard error, flushed at once (CI logs show it while work goes on)."""
    print(f"quorum: {message}", file=sys.stderr, flush=True)


@contextmanager
def stage(description: str) -> Iterator[None]:
    """A spinner on a terminal, else a line as the stage starts."""
    if sys.stderr.isatty():
        from rich.console import Console

        with Console(stderr=True).status(description):
            yield
        return
    note(f"{description} ...")
    yield


@contextmanager
def reading(paths: Iterable[str]) -> Iterator[Callable[[str], None]]:
    """Around reading `paths`; the callable is told each path once it has been read."""
    paths = list(paths)
    total = _total_size(paths)
    if total < PROGRESS_BYTES:
        yield lambda path: None
    elif sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("reading inputs", total=len(paths))
            yield lambda path: bar.update(task, advance=1, description=f"read {Path(path).name}")
    else:
        note(f"reading {len(paths)} input file(s), {total / 1e6:.0f} MB ...")
        started = time.perf_counter()
        yield lambda path: note(f"read {path} ({time.perf_counter() - started:.1f} s)")


def _total_size(paths: Iterable[str]) -> int:
    total = 0
    for path in paths:
        with suppress(OSError):
            total += 0 if path == "-" else Path(path).stat().st_size
    return total
