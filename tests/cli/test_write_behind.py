"""Long outputs are written behind: a thread writes each piece while the next is made.

What a user checks: the bytes are the same however they were batched, to a file or to
standard output; a write that fails (a full disk, a closed pipe) or Ctrl-C while the
output is made ends as it does for a short output, with nothing left writing afterwards.
"""

from __future__ import annotations

import errno
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.test_exhaustion import child_environment, leftovers, many_findings
from review_quorum.cli import main, output
from review_quorum.cli.output import write_behind

CHUNKS = [f"chunk {number}\n".encode() for number in range(1000)]
WHOLE = b"".join(CHUNKS)


class Recorder:
    """A `write` that keeps what it was given and the threads that gave it."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.pieces: list[bytes] = []
        self.threads: list[threading.Thread] = []
        self.fail_at = fail_at

    def __call__(self, piece: bytes) -> None:
        if len(self.pieces) == self.fail_at:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.pieces.append(piece)
        self.threads.append(threading.current_thread())


def test_pieces_are_written_in_order_the_first_here_the_rest_behind() -> None:
    write = Recorder()
    write_behind(write, iter(CHUNKS), batch=1000)
    assert b"".join(write.pieces) == WHOLE
    assert len(write.pieces) == len(WHOLE) // 1000 + 1
    assert write.threads[0] is threading.main_thread()
    assert {thread.name for thread in write.threads[1:]} == {"quorum-writer"}
    assert not any(thread.is_alive() for thread in write.threads[1:])


def test_a_short_output_is_one_write_without_a_thread() -> None:
    write = Recorder()
    write_behind(write, iter(CHUNKS))
    assert (write.pieces, write.threads) == ([WHOLE], [threading.main_thread()])
    write_behind(write, iter([]))
    assert len(write.pieces) == 1


def test_the_writers_error_is_raised_to_the_caller_and_writing_stops() -> None:
    write = Recorder(fail_at=3)
    made = 0

    def chunks() -> Iterator[bytes]:
        nonlocal made
        for chunk in CHUNKS:
            made += 1
            yield chunk

    before = threading.active_count()
    with pytest.raises(OSError, match="No space left on device"):
        write_behind(write, chunks(), batch=100)
    assert len(write.pieces) == 3
    assert made < len(CHUNKS)  # the rest of the output is not made for nothing
    assert threading.active_count() == before


def test_ctrl_c_while_the_output_is_made_stops_the_writer_before_returning() -> None:
    write = Recorder()

    def interrupted() -> Iterator[bytes]:
        yield from CHUNKS[:500]
        raise KeyboardInterrupt

    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        write_behind(write, interrupted(), batch=100)
    written = list(write.pieces)
    assert threading.active_count() == before  # the writer is done, not still writing
    time.sleep(0.05)
    assert write.pieces == written  # nothing was written after it returned
    assert 0 < len(b"".join(written)) <= len(b"".join(CHUNKS[:500]))
    assert b"".join(written) == WHOLE[: len(b"".join(written))]


@pytest.mark.parametrize("command", ["consensus", "review"])
def test_a_file_written_behind_is_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    many = many_findings(tmp_path)
    whole, behind = tmp_path / "whole.json", tmp_path / "behind.json"
    argv = [command, many, "--bots", "3", "--format", "json", "--gate-level", "none"]
    assert main([*argv, "-o", str(whole)]) == 0
    monkeypatch.setattr(output, "BATCH", 4096)
    assert main([*argv, "-o", str(behind)]) == 0
    assert whole.stat().st_size > 50 * 4096
    assert behind.read_bytes() == whole.read_bytes()
    assert leftovers(tmp_path) == []


SMALL_BATCHES = """
import signal, sys
from review_quorum.cli import entry_point, output
output.BATCH = 4096
{setup}
sys.argv[0] = "quorum"
entry_point()
"""
FSIZE = """
import resource
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
"""


def run_small_batches(
    setup: str, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SMALL_BATCHES.format(setup=setup), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.mark.parametrize("buffered", [True, False])
def test_standard_output_written_behind_is_byte_identical(tmp_path: Path, buffered: bool) -> None:
    argv = ["consensus", many_findings(tmp_path), "--bots", "3", "--format", "json"]
    whole = tmp_path / "whole.json"
    assert main([*argv, "--gate-level", "none", "-o", str(whole)]) == 0
    done = run_small_batches("", *argv, "--gate-level", "none", env=child_environment(buffered))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == whole.read_text()


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE fails writes on Linux")
def test_a_write_failing_behind_leaves_the_previous_output_and_no_temporary_file(
    tmp_path: Path,
) -> None:
    target = tmp_path / "out" / "result.json"
    target.parent.mkdir()
    target.write_text("the previous result\n")
    argv = ["consensus", many_findings(tmp_path), "--bots", "3", "--format", "json"]
    done = run_small_batches(FSIZE, *argv, "-o", str(target))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == f"quorum: error: {target}: cannot write: File too large"
    assert (target.read_text(), leftovers(target.parent)) == ("the previous result\n", [])


@pytest.mark.parametrize("buffered", [True, False])
def test_a_reader_closing_the_pipe_behind_ends_quietly_with_141(
    tmp_path: Path, buffered: bool
) -> None:
    argv = ["consensus", many_findings(tmp_path), "--bots", "3", "--format", "json"]
    with subprocess.Popen(
        [sys.executable, "-c", SMALL_BATCHES.format(setup=""), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_environment(buffered),
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        assert len(child.stdout.read(100)) == 100
        child.stdout.close()
        err = child.stderr.read()
        assert (child.wait(timeout=120), err) == (141, b"")
