"""The cost of refusing repeated JSON keys, against the read it guards (not a test).

Reads the same native file (bench/consensus.py's realistic workload, written by orjson)
with the repeated-key screen and with it switched off, alternating (each goes first in
every other round), in one process, and prints the medians and their ratio. With
`--instructions` the process runs under callgrind (`valgrind --tool=callgrind`, which
the machine's load does not move) and each read is counted between two
`callgrind_control --dump`s; with `--escapes` the file is written by `json.dumps`
(spaces, non-ASCII escaped) and every title holds a ``\\u00e9`` escape, so the screen
also looks at each escape for an escaped key. With `--passes` it also measures, on the
same bytes, each single pass a screen could make (`PASSES`: what checking more keys of a
record would cost), against the read without the screen.

    python bench/duplicate_keys.py --size 1000000           # wall seconds, 1e6 findings
    python bench/duplicate_keys.py --instructions           # instructions, 1e5 findings
    python bench/duplicate_keys.py --instructions --passes  # and each candidate pass
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
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from consensus import callgrind_counts, realistic

# Every key of a native record and of its evidence: what a repeat could replace.
FIELDS = (
    *("bot", "finding_id", "severity", "category", "title", "evidence", "confidence"),
    *("rule_id", "body", "category_certainty", "file", "line", "end_line", "snippet", "symbol"),
)


def _escaped_field(data: bytes) -> object:
    from review_quorum.ingest import duplicates

    return duplicates._escape(frozenset(FIELDS)).search(data)


PASSES: dict[str, Callable[[bytes], object]] = {
    'count of "severity" (the screen)': lambda data: data.count(b'"severity"'),
    "a count per field, 15 fields": lambda data: [
        data.count(f'"{key}"'.encode()) for key in FIELDS
    ],
    "count of '\":' (every key)": lambda data: data.count(b'":'),
    "count of ':' (every key, any spacing)": lambda data: data.count(b":"),
    "a backslash (memchr)": lambda data: b"\\" in data,
    "count of '\\u00'": lambda data: data.count(b"\\u00"),
    "search for an escaped field letter": _escaped_field,
}


def child(path: str, rounds: int, counting: bool, passes: bool) -> dict[str, list[float]]:
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
    for number, run in enumerate(PASSES.values() if passes else ()):
        times[f"pass{number}"] = []
        for round_ in range(rounds):
            started = time.perf_counter()
            run(data)
            times[f"pass{number}"].append(time.perf_counter() - started)
            if counting:
                dump = f"--dump=pass{number}-{round_}"
                subprocess.run(
                    ["callgrind_control", dump, str(os.getpid())], check=True, capture_output=True
                )
    return {**times, "findings": [float(findings)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=None, help="findings (1e6; 1e5 counted)")
    parser.add_argument("--rounds", type=int, default=None, help="5 (3 counted)")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--escapes", action="store_true", help="titles with a \\u00e9 escape")
    parser.add_argument("--passes", action="store_true", help="each candidate pass too")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        path, rounds, counting, passes = args.child
        print(json.dumps(child(path, int(rounds), counting == "1", passes == "1")))
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
        labels = ["with", "without", *(f"pass{n}" for n in range(len(PASSES) * args.passes))]
        if args.instructions:
            out = f"--callgrind-out-file={folder}/callgrind.out"
            valgrind = ["valgrind", "--tool=callgrind", out, "--collect-atstart=yes"]
            done = subprocess.run(
                [*valgrind, *command, "1", str(int(args.passes))], capture_output=True, text=True
            )
            counts = callgrind_counts(Path(folder))
            rows = {
                label: [counts[key] for key in sorted(counts) if key.startswith(label + "-")]
                for label in labels
            }
            unit, scale = "M instructions", 1e6
        else:
            done = subprocess.run(
                [*command, "0", str(int(args.passes))], capture_output=True, text=True
            )
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
    for number, label in enumerate(PASSES if args.passes else ()):
        cost = statistics.median(rows[f"pass{number}"])
        print(f"{label}: {cost / scale:,.3f} ({cost / without * 100:.2f}% of the read)")


if __name__ == "__main__":
    main()
