"""The cost of refusing repeated JSON keys, against the read it guards (not a test).

Reads the same native file (bench/consensus.py's realistic workload, written by orjson)
with the repeated-key screen and with it switched off, alternating (each goes first in
every other round), in one process, and prints the medians and their ratio. With
`--instructions` the process runs under callgrind (`valgrind --tool=callgrind`, which
the machine's load does not move) and each read is counted between two
`callgrind_control --dump`s; with `--escapes` the file is written by `json.dumps`
(spaces, non-ASCII escaped) and every title holds a ``\\u00e9`` escape, so the screen
also looks at each escape for an escaped key.

    python bench/duplicate_keys.py --size 1000000           # wall seconds, 1e6 findings
    python bench/duplicate_keys.py --instructions           # instructions, 1e5 findings
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from consensus import callgrind_counts, realistic


def child(path: str, rounds: int, counting: bool) -> dict[str, list[float]]:
    from review_quorum._perf import paused_gc
    from review_quorum.ingest import duplicates, read
    from review_quorum.ingest.base import Source

    data = Path(path).read_bytes()
    screen = duplicates.may_repeat
    times: dict[str, list[float]] = {"with": [], "without": []}
    if counting:  # what came before (start-up, reading the file) is no read
        start = ["callgrind_control", "--dump=start", str(os.getpid())]
        subprocess.run(start, check=True, capture_output=True)
    with paused_gc():
        for number in range(rounds):  # each first in turn: neither gains from going second
            for label in ("with", "without") if number % 2 == 0 else ("without", "with"):
                duplicates.may_repeat = screen if label == "with" else (lambda *_: False)
                started = time.perf_counter()
                findings = len(read(Source(path, data)).findings)
                times[label].append(time.perf_counter() - started)
                if counting:
                    dump = f"--dump={label}-{number}"
                    subprocess.run(
                        ["callgrind_control", dump, str(os.getpid())],
                        check=True,
                        capture_output=True,
                    )
    duplicates.may_repeat = screen
    return {**times, "findings": [float(findings)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=None, help="findings (1e6; 1e5 counted)")
    parser.add_argument("--rounds", type=int, default=None, help="5 (3 counted)")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--escapes", action="store_true", help="titles with a \\u00e9 escape")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, rounds, counting = args.child
        print(json.dumps(child(path, int(rounds), counting == "1")))
        return
    size = args.size or (100_000 if args.instructions else 1_000_000)
    args.rounds = args.rounds or (3 if args.instructions else 5)
    records = realistic(size, random.Random(size))
    if args.escapes:
        for record in records:
            record["title"] = f"{record['title']} caf\u00e9"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "native.json"
        text = json.dumps(records) if args.escapes else None
        path.write_bytes(text.encode() if text is not None else orjson.dumps(records))
        command = [sys.executable, __file__, "--child", str(path), str(args.rounds)]
        if args.instructions:
            out = f"--callgrind-out-file={folder}/callgrind.out"
            valgrind = ["valgrind", "--tool=callgrind", out, "--collect-atstart=yes"]
            done = subprocess.run([*valgrind, *command, "1"], capture_output=True, text=True)
            counts = callgrind_counts(Path(folder))
            rows = {
                label: [counts[key] for key in sorted(counts) if key.startswith(label + "-")]
                for label in ("with", "without")
            }
            unit, scale = "M instructions", 1e6
        else:
            done = subprocess.run([*command, "0"], capture_output=True, text=True)
            rows = json.loads(done.stdout.strip().splitlines()[-1])
            unit, scale = "s", 1.0
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    with_screen, without = statistics.median(rows["with"]), statistics.median(rows["without"])
    escapes = ", titles with escapes" if args.escapes else ""
    print(f"native JSON, {size:,} findings{escapes}, {args.rounds} rounds, medians ({unit}):")
    print(f"read without the screen {without / scale:,.3f}")
    print(f"read with the screen    {with_screen / scale:,.3f}")
    print(f"ratio {with_screen / without:.4f} ({(with_screen / without - 1) * 100:+.2f}%)")


if __name__ == "__main__":
    main()
