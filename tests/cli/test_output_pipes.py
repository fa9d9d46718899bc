"""`-o` naming something that is not a regular file (a named pipe, a device) is written
in place, as a shell redirection would, never replaced by a file. Shown with a named pipe
in the test's own folder, so that a broken rule cannot replace anything of the machine's
(the suite's `-o /dev/null` test would replace /dev/null itself)."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

FINDINGS = str(FIXTURES / "review.findings.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_an_output_to_a_named_pipe_is_written_into_the_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "plan.json"
    os.mkfifo(pipe)
    # The reading end, opened first (without waiting for a writer) so that quorum's open
    # for writing does not wait either; drained until quorum is done, so that no output
    # size can fill the pipe, and never hanging when the rule breaks and no one writes.
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    received: list[bytes] = []
    done = threading.Event()

    def drain() -> None:
        while True:
            try:
                chunk = os.read(reader, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                received.append(chunk)
            elif done.is_set():
                return
            else:
                time.sleep(0.01)

    thread = threading.Thread(target=drain)
    thread.start()
    try:
        status = main(["review", FINDINGS, "--bots", "3", "--format", "json", "-o", str(pipe)])
    finally:
        done.set()
        thread.join(timeout=30)
        os.close(reader)
    capsys.readouterr()
    assert status == 1
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert json.loads(b"".join(received))["bots_ran"] == 3
    assert sorted(path.name for path in tmp_path.iterdir()) == ["plan.json"]
