"""Whether two checkouts write the same reports on the reference workloads (not a test).

A change meant to keep every output the same (a faster engine, another encoder, less
memory) is checked here: each workload of `bench/consensus.py` is written once, at the
reference size (200,000 findings by default), and `quorum consensus --format json` of
this checkout and of another (`--vs`: the other checkout's Python, with review-quorum
installed from it) write their reports under each model; the two files must be the same
bytes. Each row prints the report's size and sha256, and `same` or `DIFFERENT`; the exit
status is 1 when any pair differs.

    python bench/reference.py --vs ../main/.venv/bin/python
    python bench/reference.py --vs ../main/.venv/bin/python --workloads realistic --size 20000
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from consensus import MODELS, WORKLOADS, write_workload

REFERENCE = ("realistic", "uniform")


def report(python: str, source: Path, model: str, out: Path) -> str:
    """The sha256 of the report `python`'s quorum writes for `source` under `model`."""
    command = [python, "-m", "review_quorum", "consensus", str(source), "--model", model]
    command += ["--format", "json", "-o", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if not out.exists():
        raise SystemExit(
            f"{python}: no report for {source.name} ({done.returncode}):\n{done.stderr}"
        )
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    out.unlink()
    return digest


def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vs", required=True, help="the other checkout's Python")
    parser.add_argument("--workloads", nargs="+", choices=sorted(WORKLOADS), default=REFERENCE)
    parser.add_argument("--size", type=int, default=200_000)
    options = parser.parse_args(arguments)
    differ = 0
    with tempfile.TemporaryDirectory(prefix="quorum-reference-") as folder:
        for name in options.workloads:
            source = Path(folder) / f"{name}.json"
            write_workload(name, options.size, source)
            for model in MODELS:
                ours = report(sys.executable, source, model, Path(folder) / "ours.json")
                theirs = report(options.vs, source, model, Path(folder) / "theirs.json")
                verdict = "same" if ours == theirs else "DIFFERENT"
                differ += ours != theirs
                print(f"{name:14} {model:11} {ours[:16]} {theirs[:16]} {verdict}", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
