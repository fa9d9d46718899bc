"""bench/mutants.py stays a measure of the code it names: every listed mutant's text is on
its line (a refactor that moves the code must move the listing with it, or the kill rate
would silently count mutants that no longer apply), and its arguments are checked."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO_ROOT

SCRIPT = str(REPO_ROOT / "bench" / "mutants.py")


def mutants(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, SCRIPT, *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_every_listed_mutant_still_applies_to_its_line() -> None:
    done = mutants("--check")
    assert done.returncode == 0, done.stdout
    assert done.stdout.rstrip().endswith("mutants apply")


def test_a_mutant_number_out_of_range_or_not_a_number_is_a_usage_error() -> None:
    for argument in ("0", "x", "9999"):
        done = mutants(argument)
        assert done.returncode == 2, argument
        assert done.stderr.startswith("usage: bench/mutants.py"), argument
        assert "Traceback" not in done.stderr
