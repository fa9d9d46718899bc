"""Where `quorum` writes what it made: files written whole or not at all, standard output.

Every command that takes ``-o FILE`` (or ``--html FILE``) writes through `write_file`: a
temporary file in the target's folder, renamed over the target once complete, so Ctrl-C or
a full disk leaves the previous file (or none) for a later upload or ``quorum post`` step,
never a truncated one. Standard output fails in two ways a user can cause: the reader
closed the pipe (``quorum ... | head``), which passes up as `BrokenPipeError` for `main`
to end quietly (`silence_stdout`), and a failed write (``> /dev/full``, a full disk),
which becomes an `InputError` naming ``<stdout>``.

Long outputs are written behind (`write_behind`): once a few megabytes are made, a thread
writes each batch while the next one is made, since a write releases the interpreter lock
and building JSON does not; a million findings make 1.3 GB of it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator

from review_quorum.errors import InputError

STDOUT = "<stdout>"
BATCH = 1 << 22  # bytes written at a time once writing is behind: one write per 4 MiB

Chunks = Iterable[bytes | memoryview]


def write_file(path: str, chunks: Chunks) -> None:
    """Write `chunks` to the file `path`, whole or not at all; `InputError` naming it.

    A regular file (or a new one) is replaced by rename; through a symbolic link, the file
    it points to is. Anything else (``/dev/null``, a named pipe, ``/dev/stdout``) cannot be
    renamed over and is written in place, as a shell redirection would.
    """
    target = os.path.realpath(path)
    try:
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is None or stat.S_ISREG(mode):
            _replace(target, chunks, None if mode is None else stat.S_IMODE(mode))
        else:
            with open(target, "wb") as file:
                write_behind(file.write, chunks)
    except OSError as err:
        raise InputError(path, "", f"cannot write: {err.strerror}") from err


def _replace(target: str, chunks: Chunks, mode: int | None) -> None:
    """Write `target` through a temporary file beside it, removed if anything fails."""
    import tempfile  # a few milliseconds of start-up, paid only by runs that write a file

    folder, name = os.path.split(target)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as file:
            write_behind(file.write, chunks)
        # mkstemp makes the file private; give it the target's mode, or a new file's
        os.chmod(temporary, _new_file_mode() if mode is None else mode)
        os.replace(temporary, target)
    except BaseException:  # Ctrl-C too: no temporary file is left behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _new_file_mode() -> int:
    umask = os.umask(0o022)  # reading the umask means setting it: put it straight back
    os.umask(umask)
    return 0o666 & ~umask


def print_text(text: str) -> None:
    """Write `text` to standard output now, whole; see `stdout_errors` for failures."""
    with stdout_errors():
        raw = getattr(sys.stdout, "buffer", None)
        if isinstance(raw, io.RawIOBase):
            _write_whole(raw, text.encode(sys.stdout.encoding, sys.stdout.errors or "strict"))
            return
        sys.stdout.write(text)
        sys.stdout.flush()  # fail here, naming the stream, not later on the way out


def print_chunks(chunks: Chunks) -> None:
    """Write UTF-8 `chunks` to standard output as they come, whole."""
    with stdout_errors():
        stdout = getattr(sys.stdout, "buffer", None)
        if stdout is None:  # a text-only stream (a caller's StringIO)
            sys.stdout.write(b"".join(chunks).decode())
            return
        sys.stdout.flush()
        if isinstance(stdout, io.RawIOBase):
            write_behind(functools.partial(_write_whole, stdout), chunks)
            return
        write_behind(stdout.write, chunks)
        stdout.flush()


def write_behind(
    write: Callable[[bytes], object], chunks: Chunks, *, batch: int | None = None
) -> None:
    """Pass `chunks`, joined into pieces of about `batch` bytes (`BATCH`), to `write`,
    which writes each whole or raises. The first piece is written here; from the second,
    a thread writes each piece while the next is made, at most two pieces waiting. Its
    error (a full disk, a closed pipe) is raised here, as it is, at the next piece or the
    end; an error here (Ctrl-C) stops it, and it is done with `write` before this returns."""
    pieces = _pieces(chunks, BATCH if batch is None else batch)
    first = next(pieces, None)
    if first is None:
        return
    write(first)
    second = next(pieces, None)
    if second is None:  # short outputs (nearly all of them) start no thread
        return
    writer = _Writer(write)
    try:
        writer.put(second)
        for piece in pieces:
            writer.put(piece)
    except BaseException:
        writer.stop()
        raise
    writer.finish()


def _pieces(chunks: Chunks, size: int) -> Iterator[bytes]:
    """`chunks` joined into pieces of at least `size` bytes (the last may be shorter)."""
    held: list[bytes | memoryview] = []
    length = 0
    for chunk in chunks:
        held.append(chunk)
        length += len(chunk)
        if length >= size:
            yield b"".join(held)
            held, length = [], 0
    if held:
        yield b"".join(held)


class _Writer:
    """A thread that writes the pieces put to it, in order, until told to finish or stop."""

    def __init__(self, write: Callable[[bytes], object]) -> None:
        import queue  # only long outputs are written behind
        import threading

        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=2)
        self._error: BaseException | None = None
        self._stopped = False
        self._thread = threading.Thread(
            target=self._run, args=(write,), name="quorum-writer", daemon=True
        )
        self._thread.start()

    def _run(self, write: Callable[[bytes], object]) -> None:
        while (piece := self._queue.get()) is not None:
            if self._error is None and not self._stopped:  # else drained, so put never hangs
                try:
                    write(piece)
                except BaseException as err:  # raised in the caller's thread
                    self._error = err

    def put(self, piece: bytes) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(piece)

    def finish(self) -> None:
        """Wait until every piece is written; raise the thread's error, if any."""
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        """Drop what is still waiting and wait for the piece being written, if any."""
        self._stopped = True
        self._queue.put(None)
        self._thread.join()


def _write_whole(raw: io.RawIOBase, data: bytes | memoryview) -> None:
    """Write all of `data` to an unbuffered stream (``PYTHONUNBUFFERED``), which may take
    only part of a write: a reader closing the pipe mid-write then ends the output short
    without an error, where the rest now meets `BrokenPipeError`."""
    view = memoryview(data)
    while view:
        view = view[raw.write(view) or 0 :]


@contextlib.contextmanager
def stdout_errors() -> Iterator[None]:
    """Standard output's failures as `quorum`'s: a closed pipe passes up as
    `BrokenPipeError`; any other (a full disk) is an `InputError` naming ``<stdout>``,
    after which nothing more is written there."""
    if sys.stdout is None:  # closed when quorum started (`>&-`)
        raise InputError(STDOUT, "", "cannot write: standard output is closed")
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as err:
        silence_stdout()
        raise InputError(STDOUT, "", f"cannot write: {err.strerror}") from err


def silence_stdout() -> None:
    """Point standard output at the null device: what is still buffered for a reader that
    has gone (or a disk that is full) is dropped instead of failing again at exit, the
    way Python's documentation handles SIGPIPE. A stream without a descriptor (a
    caller's StringIO) is left alone."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)
