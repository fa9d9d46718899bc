"""Where `quorum` writes what it made: files written whole or not at all, standard output.

Every command that takes ``-o FILE`` (or ``--html FILE``) writes through `write_file`: a
temporary file in the target's folder, renamed over the target once complete, so Ctrl-C or
a full disk leaves the previous file (or none) for a later upload or ``quorum post`` step,
never a truncated one. Standard output fails in two ways a user can cause: the reader
closed the pipe (``quorum ... | head``), which passes up as `BrokenPipeError` for `main`
to end quietly (`silence_stdout`), and a failed write (``> /dev/full``, a full disk),
which becomes an `InputError` naming ``<stdout>``.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator

from review_quorum.errors import InputError

STDOUT = "<stdout>"

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
                file.writelines(chunks)
    except OSError as err:
        raise InputError(path, "", f"cannot write: {err.strerror}") from err


def _replace(target: str, chunks: Chunks, mode: int | None) -> None:
    """Write `target` through a temporary file beside it, removed if anything fails."""
    import tempfile  # a few milliseconds of start-up, paid only by runs that write a file

    folder, name = os.path.split(target)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.writelines(chunks)
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
            for chunk in chunks:
                _write_whole(stdout, chunk)
            return
        stdout.writelines(chunks)
        stdout.flush()


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
