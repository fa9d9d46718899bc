"""Peak memory of reading big SARIF files, one and several (not a test).

Writes SARIF logs of about `--mb` MB each (three runs shaped like CodeQL, Semgrep and
Bandit, each result carrying a code flow and related locations the reader skips, so a
gigabyte holds about 600,000 results) into a temporary folder, then measures in a fresh
process for each case the peak RSS (VmHWM) of reading them as `quorum` does
(`cli.common.load_inputs`: every file in turn, its findings kept) and of the whole
`quorum consensus --format json -o FILE`. The files are deleted at the end.

    python bench/sarif_memory.py --mb 1000 --files 1 3
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from sarif_ingest import _result, _rules

READ = """
import argparse, sys
from review_quorum.cli.common import load_inputs
args = argparse.Namespace(inputs=sys.argv[1:], bot=[], allow_empty=False, root=None,
                          include_humans=False, input_format=None, bot_login=None)
batch = load_inputs(args)
print(len(batch.findings))
"""


def write_log(path: Path, megabytes: int, seed: int) -> int:
    """A SARIF log of about `megabytes` MB at `path`, written as it is made."""
    rng = random.Random(seed)
    files = [f"src/pkg{n % 40}/module_{n}.py" for n in range(5000)]
    tools = [("CodeQL", 300), ("Semgrep OSS", 400), ("Bandit", 40)]
    per_tool = megabytes * 1_000_000 // len(tools)
    flow = orjson.dumps(_flow(rng, files))[:-1]  # a code flow, then the result's own members
    count = 0
    with path.open("wb") as out:
        out.write(b'{"version":"2.1.0","runs":[')
        for number, (name, rule_count) in enumerate(tools):
            rules = _rules(rng, name.split()[0].lower(), rule_count)
            out.write(b"," if number else b"")
            out.write(b'{"tool":' + orjson.dumps({"driver": {"name": name, "rules": rules}}))
            out.write(b',"results":[')
            size = 0
            while size < per_tool:
                result = _result(rng, rng.choice(rules), files)
                piece = flow + b"," + result[1:]
                out.write(b"," + piece if size else piece)
                size += len(piece) + 1
                count += 1
            out.write(b"]}")
        out.write(b"]}")
    return count


def _flow(rng: random.Random, files: list[str]) -> dict[str, Any]:
    steps = [
        {"location": {"physicalLocation": {"artifactLocation": {"uri": rng.choice(files)},
                                           "region": {"startLine": rng.randint(1, 900)}},
                      "message": {"text": "step " + "x" * 40}}}
        for _ in range(4)
    ]  # fmt: skip
    return {
        "codeFlows": [{"threadFlows": [{"locations": steps}]}],
        "relatedLocations": [step["location"] for step in steps[:1]],
    }


def peak(command: list[str]) -> tuple[float, float, str]:
    """Peak RSS in MB and seconds of `command` in a fresh process, and its output."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    out = process.stdout.read().decode().strip()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1000, help="size of each file (MB)")
    parser.add_argument("--files", type=int, nargs="+", default=[1, 3], help="file counts")
    parser.add_argument("--dir", default=None, help="where to write them (default: a temp dir)")
    parser.add_argument("--no-consensus", action="store_true", help="measure the read only")
    parser.add_argument(
        "--keep", action="store_true", help="keep the files (written to --dir, reused there)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="quorum-sarif-memory-") as temporary:
        folder = args.dir if args.keep and args.dir else temporary
        paths: list[Path] = []
        for number in range(max(args.files)):
            path = Path(folder) / f"log{number}-{args.mb}mb.sarif"
            if not path.exists():
                results = write_log(path, args.mb, seed=number)
                size = path.stat().st_size / 1e6
                print(f"wrote {path.name}: {size:,.0f} MB, {results:,} results", flush=True)
            paths.append(path)
        for count in args.files:
            names = [str(path) for path in paths[:count]]
            mb, seconds, out = peak([sys.executable, "-c", READ, *names])
            print(f"{count} file(s), read: peak {mb:,.0f} MB, {seconds:.1f} s, {out} findings")
            if not args.no_consensus:
                output = str(Path(folder) / "out.json")
                quorum = [sys.executable, "-m", "review_quorum", "consensus", "--bots", "3"]
                mb, seconds, _ = peak([*quorum, "--format", "json", "-o", output, *names])
                print(f"{count} file(s), quorum consensus: peak {mb:,.0f} MB, {seconds:.1f} s")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
