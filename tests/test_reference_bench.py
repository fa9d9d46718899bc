"""bench/reference.py tells two checkouts' reports apart byte for byte (run here on a small
size: against this checkout itself every row is the same; against a program writing other
bytes every row differs and the exit status says so)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

SCRIPT = str(REPO_ROOT / "bench" / "reference.py")


def compare(other: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, SCRIPT, "--vs", other, "--workloads", "realistic", "--size", "300"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_same_checkout_writes_the_same_bytes() -> None:
    done = compare(sys.executable)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert len(rows) == 2 and all(row.endswith(" same") for row in rows), rows


def test_other_bytes_are_told_apart(tmp_path: Path) -> None:
    other = tmp_path / "other-python"
    other.write_text(
        '#!/bin/sh\nfor last; do :; done\nprintf "{}\\n" > "$last"\n', encoding="utf-8"
    )
    other.chmod(0o755)
    done = compare(str(other))
    assert done.returncode == 1
    assert [row.split()[-1] for row in done.stdout.splitlines()] == ["DIFFERENT", "DIFFERENT"]
