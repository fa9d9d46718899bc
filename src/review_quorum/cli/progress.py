"""Progress of long work on standard error: rich on a terminal, one line per stage elsewhere.

Reading inputs that add up to more than `PROGRESS_BYTES`, reading a pull request from
GitHub and posting to it are long work: on a terminal they show a transient rich bar or
spinner, in a CI log (standard error not a terminal) a line as each stage starts. The
work after reading (clustering, scoring, writing a report) runs under a `Ticker`: the
command names each stage as it starts, and a background thread shows it (a line
redrawn in place on a terminal, at most one line every `LOG_SECONDS` in a log), so the
engines are never called back and a run shorter than `TICKER_DELAY` (or `LOG_SECONDS`)
prints nothing. `note` prints one line whatever the stream is, for events a waiting user
must see, such as a GitHub retry and how long it waits. Short work is silent.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import TextIO

from review_quorum.ingest.base import path_text

PROGRESS_BYTES = 20_000_000
TICKER_DELAY = 1.0
"""Seconds before a terminal's progress line appears (shorter stages show nothing)."""
TICKER_REDRAW = 0.5
LOG_SECONDS = 5.0
"""At most one progress line this often in a log, the first after as long."""
_CLEAR = "\r\x1b[K"


def note(message: str) -> None:
    """One line on standard error, flushed at once (CI logs show it while work goes on)."""
    with _LOCK:
        if _active is not None:
            _active.clear()
        print(f"quorum: {message}", file=sys.stderr, flush=True)


class Ticker:
    """The stage a long command is in, shown on `stream` (standard error) while it lasts.

    `stage` only records the description (it costs an assignment); a daemon thread,
    started by `start` and ended by `stop`, shows it: on a terminal a line redrawn in
    place every `TICKER_REDRAW` seconds once `TICKER_DELAY` has passed, and erased at the
    end; elsewhere a line every `LOG_SECONDS`, none before. `tick` is one showing.
    """

    def __init__(
        self, stream: TextIO | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._stream = sys.stderr if stream is None else stream
        self._terminal = self._stream.isatty()
        self._clock = clock
        self._started = self._stage_started = clock()
        self._stage = ""
        self._drawn = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def stage(self, description: str) -> None:
        """Show `description` from now on; "" shows nothing (a stage with its own display)."""
        self._stage, self._stage_started = description, self._clock()
        if not description:
            with _LOCK:
                self.clear()

    def start(self) -> None:
        global _active
        _active = self
        self._thread = threading.Thread(target=self._run, name="quorum-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the thread and erase the terminal's line (idempotent)."""
        global _active
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with _LOCK:
            self.clear()
            if _active is self:
                _active = None

    def tick(self) -> None:
        now = self._clock()
        if not self._stage or now - self._started < self._delay - 0.01:  # a wait's jitter
            return
        doing = f"quorum: {self._stage} ... {now - self._stage_started:.0f} s"
        if self._terminal:
            self._stream.write(_CLEAR + doing)
            self._drawn = True
        else:
            self._stream.write(doing + "\n")
        self._stream.flush()

    def clear(self) -> None:
        """Erase the terminal's line, so that what is printed next starts a clean line."""
        if self._drawn:
            self._stream.write(_CLEAR)
            self._stream.flush()
            self._drawn = False

    @property
    def _delay(self) -> float:
        return TICKER_DELAY if self._terminal else LOG_SECONDS

    def _run(self) -> None:
        interval = TICKER_REDRAW if self._terminal else LOG_SECONDS
        while not self._stop.wait(interval):
            with _LOCK:
                self.tick()


_LOCK = threading.Lock()
_active: Ticker | None = None


@contextmanager
def ticking(description: str) -> Iterator[Ticker]:
    """A started `Ticker` at stage `description`, stopped when the block ends."""
    ticker = Ticker()
    ticker.stage(description)
    ticker.start()
    try:
        yield ticker
    finally:
        ticker.stop()


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
            yield lambda path: bar.update(task, advance=1, description=f"read {_name(path)}")
    else:
        note(f"reading {len(paths)} input file(s), {total / 1e6:.0f} MB ...")
        started = time.perf_counter()
        yield lambda path: note(f"read {path} ({time.perf_counter() - started:.1f} s)")


def _total_size(paths: Iterable[str]) -> int:
    total = 0
    for path in paths:
        with suppress(OSError):
            total += 0 if path == "-" else os.stat(path_text(path)).st_size
    return total


def _name(path: str) -> str:
    """The file name of `path`, as pathlib gives it."""
    from pathlib import Path

    return Path(path).name
