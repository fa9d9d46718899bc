"""Benchmark the consensus pipeline against parsing its input with orjson (not a test).

Every figure comes from a fresh subprocess, so each run's peak RSS is its own, and every
time is compared with `orjson.loads` of the same file in its own fresh process (collector
on, as any program parses), measured in the same run; each is the best of `--repeat`.

Workloads (native JSON files written to a temporary folder):
- realistic: 8 bots; each issue is reported by 1-4 of them, on lines jittered by up to 2,
  with reworded titles; about 5% of reports carry no line; 40 findings per file.
- uniform: every field drawn on its own, uniformly: a bot of 8, a file of size/40, a line
  of 2,000 (none for 5%), a category of 5, a title of 5 words of 45; few reports meet.
- lineless: 8 bots, one file, one category, no lines, each title 5 words drawn from a
  45-word vocabulary: every finding is a title comparison in one bucket.
- near-identical: 8 bots, one file, one category, no lines, each title one of a few
  wordings of one SQL injection (a phrase and two of its three words): nearly every finding
  joins one of a few clusters by text, which grow to thousands of members.
- chained: 8 bots, one file and category, two reports per line on consecutive lines, so
  each sits within the line window of the one before and windows chain through the file.
- bots50: 50 bots, each issue reported by 20-50 of them on jittered lines.

Columns: `engine` is `compute_consensus` alone after ingest, per model (collector paused,
as the CLI runs it); `cli` is `quorum consensus FILE --format json -o OUT` end to end,
interpreter start-up included, and `peak MB` its peak RSS; `ms/1k` the engine's
milliseconds per 1,000 findings. Under each row, each stage's ratio to its floor (see
`--floors`) measured in one further process in the same run, with the CLI's model, beside
the wall ratios to the parse (`--no-floor-ratios` leaves them out).

`--targets` measures what users feel, in one run, on the realistic and the uniform
workload at 1,000,000 findings: the command within `CLI_TARGET` times the parse of the
same file, and its peak RSS within `PEAK_TARGET_MB`; each row ends with met or NOT MET.

`--floors` measures each stage of `quorum consensus --format json` in one process against
the floor of the same work on the same bytes, also in that process: ingest (`read`) against
a typed `msgspec` decode into frozen `gc=False` Structs; the engine (`compute_consensus`,
its own output sort included) against one dict probe per finding by (file, category); the
output order (`sort_for_output` of the same findings shuffled) against one sort on a float
key; render + write (`consensus_document` through `write_chunks`) against `orjson.dumps` of
the same document (the command's own output, parsed back) and one write. With
`--instructions` the same process runs under callgrind (`valgrind --tool=callgrind`, which
the machine's load does not move; skipped with a message when valgrind is not installed),
each stage counted between two `callgrind_control --dump`s; the default size is then
100,000.

    python bench/consensus.py --targets                # the two targets, 1e6
    python bench/consensus.py --floors --instructions  # stages against floors, 1e5
    python bench/consensus.py --floors --workload uniform --sizes 1000000
    python bench/consensus.py                          # realistic 1e4, 1e5, 1e6
    python bench/consensus.py --workload lineless --sizes 10000 100000
    python bench/consensus.py --workload all --sizes 10000 100000 --repeat 3
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import orjson

BOTS = ["bandit", "ruff", "semgrep", "codeql", "coderabbit", "copilot", "sourcery", "gemini"]
CATEGORIES = ["security", "logic_error", "resource_leak", "error_handling", "performance"]
TOPICS = {
    "security": [["sql", "injection", "query"], ["weak", "hash", "md5"], ["shell", "command"]],
    "logic_error": [["off", "by", "one", "loop"], ["inverted", "condition", "check"]],
    "resource_leak": [["file", "handle", "never", "closed"], ["connection", "leak"]],
    "error_handling": [["exception", "swallowed", "silently"], ["missing", "timeout"]],
    "performance": [["quadratic", "loop", "lookup"], ["repeated", "database", "call"]],
}
PHRASES = ["possible", "potential", "detected", "unsafe", "use of", "found", "risk of", "in"]
VOCABULARY = [
    "buffer", "cache", "client", "config", "cookie", "cursor", "database", "decode", "encode",
    "exception", "field", "handler", "header", "index", "input", "iterator", "key", "lock",
    "logger", "memory", "method", "module", "network", "object", "parser", "password", "path",
    "payload", "pointer", "query", "record", "request", "response", "secret", "session",
    "socket", "stream", "string", "template", "thread", "timeout", "token", "user", "value",
    "variable",
]  # fmt: skip
MODELS = ("agreement", "reliability")
CLI_TARGET = 5.0  # end to end, times `orjson.loads` of the same file
PEAK_TARGET_MB = 1000.0
TARGET_WORKLOADS = ("realistic", "uniform")
Record = dict[str, object]


def record(bot: str, number: int, category: str, title: str, file: str, line: object) -> Record:
    return {
        "bot": bot,
        "finding_id": f"{bot}-{number}",
        "severity": ("low", "medium", "high", "critical")[number % 4],
        "category": category,
        "title": title,
        "evidence": {"file": file, "line": line},
        "confidence": round(0.4 + (number % 61) / 100, 2),
    }


def realistic(size: int, rng: random.Random) -> list[Record]:
    files = [f"src/pkg{n % 97}/module_{n}.py" for n in range(max(size // 40, 1))]
    records: list[Record] = []
    while len(records) < size:
        category = rng.choice(CATEGORIES)
        topic = rng.choice(TOPICS[category])
        file, line = rng.choice(files), rng.randint(1, 2000)
        symbol = f"handler_{rng.randint(0, 999)}"
        for bot in rng.sample(BOTS, rng.randint(1, 4)):
            words = rng.sample(topic, max(len(topic) - rng.randint(0, 1), 1))
            title = " ".join([rng.choice(PHRASES), *words, "in", symbol])
            at = None if rng.random() < 0.05 else max(line + rng.randint(-2, 2), 1)
            records.append(record(bot, len(records), category, title, file, at))
    return records[:size]


def uniform(size: int, rng: random.Random) -> list[Record]:
    files = [f"src/pkg{n % 97}/module_{n}.py" for n in range(max(size // 40, 1))]
    return [
        record(
            rng.choice(BOTS),
            n,
            rng.choice(CATEGORIES),
            " ".join(rng.sample(VOCABULARY, 5)),
            rng.choice(files),
            None if rng.random() < 0.05 else rng.randint(1, 2000),
        )
        for n in range(size)
    ]


def lineless(size: int, rng: random.Random) -> list[Record]:
    titles = (" ".join(rng.sample(VOCABULARY, 5)) for _ in range(size))
    return [
        record(rng.choice(BOTS), n, "security", title, "app.py", None)
        for n, title in enumerate(titles)
    ]


def near_identical(size: int, rng: random.Random) -> list[Record]:
    words = TOPICS["security"][0]
    titles = (
        " ".join([rng.choice(PHRASES), *rng.sample(words, 2), "in", "build_query"])
        for _ in range(size)
    )
    return [
        record(rng.choice(BOTS), n, "security", title, "app.py", None)
        for n, title in enumerate(titles)
    ]


def chained(size: int, rng: random.Random) -> list[Record]:
    return [
        record(rng.choice(BOTS), n, "security", "unchecked input", "app.py", n // 2 + 1)
        for n in range(size)
    ]


def bots50(size: int, rng: random.Random) -> list[Record]:
    bots = [f"bot{number:02d}" for number in range(50)]
    files = [f"src/module_{n}.py" for n in range(max(size // 400, 1))]
    records: list[Record] = []
    while len(records) < size:
        category, file, line = rng.choice(CATEGORIES), rng.choice(files), rng.randint(1, 3000)
        title = " ".join(rng.choice(TOPICS[category]))
        for bot in rng.sample(bots, rng.randint(20, 50)):
            at = max(line + rng.randint(-2, 2), 1)
            records.append(record(bot, len(records), category, f"{title} ({bot})", file, at))
    return records[:size]


WORKLOADS: dict[str, Callable[[int, random.Random], list[Record]]] = {
    "realistic": realistic,
    "uniform": uniform,
    "lineless": lineless,
    "near-identical": near_identical,
    "chained": chained,
    "bots50": bots50,
}


# --- children: each figure in a fresh process ---------------------------------------------


def child_write(name: str, size: str, path: str) -> dict[str, float]:
    Path(path).write_bytes(orjson.dumps(WORKLOADS[name](int(size), random.Random(int(size)))))
    return {}


def write_workload(name: str, size: int, path: Path) -> None:
    """Write the workload in a child process: a child's peak RSS (`ru_maxrss`) starts at
    its parent's high-water mark when forked (Linux), so the process that measures the
    command's peak never holds a million records itself."""
    run_child("write", name, str(size), str(path))


def child_parse(path: Path) -> dict[str, float]:
    data = path.read_bytes()
    started = time.perf_counter()
    orjson.loads(data)
    return {"seconds": time.perf_counter() - started}


def child_engine(path: Path, model: str) -> dict[str, float]:
    from review_quorum._perf import paused_gc
    from review_quorum.ingest import read
    from review_quorum.ingest.base import Source
    from review_quorum.scoring import compute_consensus

    with paused_gc():
        findings = read(Source(str(path), path.read_bytes())).findings
        started = time.perf_counter()
        consensus = compute_consensus(findings, bots_ran=8, model=model)  # type: ignore[arg-type]
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "groups": len(consensus)}


def run_child(*arguments: str) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", *arguments]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout))


def run_cli(path: Path, model: str) -> dict[str, float]:
    """Wall seconds and peak RSS of `quorum consensus --format json -o FILE` on `path`."""
    output = path.with_suffix(".out.json")
    command = [sys.executable, "-m", "review_quorum", "consensus", str(path), "--format", "json"]
    command += ["--bots", "8", "--model", model, "--gate-level", "none", "-o", str(output)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    assert process.stderr is not None
    stderr = process.stderr.read().decode()
    process.returncode = os.waitstatus_to_exitcode(status)
    output.unlink(missing_ok=True)
    if process.returncode != 0:
        raise SystemExit(f"quorum failed ({process.returncode}): {stderr}")
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024}


def best(runs: int, measure: Callable[[], dict[str, float]]) -> dict[str, float]:
    results = [measure() for _ in range(runs)]
    return min(results, key=lambda result: result["seconds"])


# --- stages against their floors (one process: wall seconds, or instructions) -------------

STAGES = ("ingest", "engine", "output order", "render + write")


class _Segments:
    """Marks the end of each measured or skipped part of the work: wall seconds always,
    and under callgrind a dump of the instructions since the last mark."""

    def __init__(self, counting: bool) -> None:
        self.counting = counting
        self.seconds: dict[str, float] = {}
        self.started = time.perf_counter()

    def mark(self, label: str) -> None:
        if self.counting:
            command = ["callgrind_control", f"--dump={label}", str(os.getpid())]
            subprocess.run(command, check=True, capture_output=True)
        now = time.perf_counter()
        self.seconds[label] = now - self.started
        self.started = time.perf_counter()


class FloorEvidence(msgspec.Struct, frozen=True, gc=False):
    file: str
    line: int | None = None


class Floor(msgspec.Struct, frozen=True, gc=False):
    """A record of the workloads, decoded as typed as it gets: the ingest floor."""

    bot: str
    finding_id: str
    severity: str
    category: str
    title: str
    evidence: FloorEvidence
    confidence: float


def child_floors(path: Path, model: str, counting: str) -> dict[str, float]:
    """Each stage of the command and of its floor on `path`, marked by `_Segments`."""
    from operator import attrgetter

    from review_quorum._perf import paused_gc
    from review_quorum.cli.common import write_chunks
    from review_quorum.ingest import read
    from review_quorum.ingest.base import Source
    from review_quorum.render.json_stream import consensus_document
    from review_quorum.scoring import compute_consensus
    from review_quorum.scoring.agreement import sort_for_output

    output, again = path.with_suffix(".quorum.json"), path.with_suffix(".floor.json")
    marks = _Segments(counting == "1")
    with paused_gc():
        data = path.read_bytes()
        marks.mark("skip:start")
        batch = read(Source(str(path), data))
        marks.mark("ingest")
        consensus = compute_consensus(batch.findings, bots_ran=8, model=model)  # type: ignore[arg-type]
        marks.mark("engine")
        shuffled = list(consensus)
        random.Random(0).shuffle(shuffled)
        marks.mark("skip:shuffle")
        sort_for_output(shuffled)
        marks.mark("output order")
        write_chunks(consensus_document(consensus, 8, batch.skipped), str(output))
        marks.mark("render + write")
        floor = msgspec.json.decode(data, type=list[Floor])
        marks.mark("floor:ingest")
        groups: dict[tuple[str, str], Floor] = {}
        for finding in floor:
            groups[(finding.evidence.file, finding.category)] = finding
        marks.mark("floor:engine")
        floor.sort(key=attrgetter("confidence"))
        marks.mark("floor:output order")
        document = orjson.loads(output.read_bytes())
        marks.mark("skip:parse output")
        again.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n")
        marks.mark("floor:render + write")
    same = output.read_bytes() == again.read_bytes()
    output.unlink()
    again.unlink()
    return {**marks.seconds, "same_bytes": float(same), "groups": len(consensus)}


def callgrind_counts(folder: Path) -> dict[str, float]:
    """Instructions per dump label from the callgrind files in `folder`."""
    counts: dict[str, float] = {}
    for dump in folder.glob("callgrind.out*"):
        label, total = None, None
        for line in dump.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: Client Request: ") or line.startswith(
                "desc: Trigger: dump "
            ):
                label = line.split("dump ", 1)[-1].split(": ", 1)[-1]
            elif line.startswith("totals:") or line.startswith("summary:"):
                total = float(line.split()[1])
        if label is not None and total is not None:
            counts[label] = total
    return counts


def measure_floors(path: Path, size: int, model: str, instructions: bool) -> dict[str, float]:
    """The stages and floors of one run: wall seconds, or instructions under callgrind."""
    command = [sys.executable, __file__, "--child", "floors", str(path), model]
    if not instructions:
        done = subprocess.run([*command, "0"], check=True, capture_output=True, text=True)
        return dict(json.loads(done.stdout))
    with tempfile.TemporaryDirectory() as folder:
        valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/callgrind.out"]
        environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        done = subprocess.run(
            [*valgrind, *command, "1"], check=True, capture_output=True, text=True, env=environment
        )
        counts = callgrind_counts(Path(folder))
    result = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    return {**counts, "same_bytes": result["same_bytes"], "groups": result["groups"]}


def floor_ratios(row: dict[str, float]) -> str:
    """Each stage's ratio to its floor, and the whole's to the sum of the floors."""
    cells = [f"{stage} {row[stage] / row[f'floor:{stage}']:.2f}x" for stage in STAGES]
    total = sum(row[stage] for stage in STAGES)
    floor_total = sum(row[f"floor:{stage}"] for stage in STAGES)
    return ", ".join([*cells, f"whole {total / floor_total:.2f}x"])


def print_floors(name: str, size: int, model: str, row: dict[str, float], unit: str) -> None:
    scale, shown = (1e6, "M instr") if unit == "instructions" else (1.0, "s")
    print(f"\n{name}, {size:,} findings, --model {model} ({unit}, one process)")
    print(f"{'stage':<16} {'quorum ' + shown:>14} {'floor ' + shown:>14} {'ratio':>7}")
    total = floor_total = 0.0
    for stage in STAGES:
        ours, floor = row[stage], row[f"floor:{stage}"]
        total, floor_total = total + ours, floor_total + floor
        print(f"{stage:<16} {ours / scale:>14,.2f} {floor / scale:>14,.2f} {ours / floor:>6.2f}x")
    print(
        f"{'whole':<16} {total / scale:>14,.2f} {floor_total / scale:>14,.2f}"
        f" {total / floor_total:>6.2f}x"
    )
    same = "byte-identical" if row["same_bytes"] else "NOT the same bytes"
    print(f"(the floor's orjson.dumps is {same} to quorum's output; {row['groups']:,.0f} groups)")


def run_floors(args: argparse.Namespace, names: list[str]) -> None:
    instructions = bool(args.instructions)
    if instructions and not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("instruction counts skipped: valgrind (callgrind) is not installed")
        return
    unit = "instructions" if instructions else "wall seconds"
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            for size in args.sizes:
                path = Path(folder) / f"{name}-{size}.json"
                write_workload(name, size, path)
                for model in MODELS:
                    row = measure_floors(path, size, model, instructions)
                    print_floors(name, size, model, row, unit)
                path.unlink()


# --- the report ---------------------------------------------------------------------------


def measure_size(path: Path, size: int, args: argparse.Namespace) -> dict[str, float]:
    row: dict[str, float] = {"size": size}
    row["parse"] = best(args.repeat, lambda: run_child("parse", str(path)))["seconds"]
    for model in MODELS if args.engine else ():
        engine = best(args.repeat, functools.partial(run_child, "engine", str(path), model))
        row[f"{model}_engine"], row["groups"] = engine["seconds"], engine["groups"]
    if args.cli:
        cli = best(args.repeat, lambda: run_cli(path, args.cli_model))
        row["cli"], row["peak_mb"] = cli["seconds"], cli["peak_mb"]
    return row


def print_row(row: dict[str, float], targets: bool) -> None:
    parse, size = row["parse"], row["size"]
    cells = [f"{size:>9,.0f}", f"{row['groups']:>8,.0f}" if "groups" in row else " " * 8]
    cells.append(f"{parse:>7.2f}")
    for model in MODELS if "groups" in row else ():
        engine = row[f"{model}_engine"]
        cells.append(f"{engine:>7.2f} {engine / parse:>5.2f}x {engine / size * 1e6:>6.1f}")
    if "cli" in row:
        cells.append(f"{row['cli']:>7.2f} {row['cli'] / parse:>5.2f}x {row['peak_mb']:>7,.0f}")
    if targets:
        cells.append(verdict(row))
    print(" ".join(cells))


def verdict(row: dict[str, float]) -> str:
    """Whether the command met its two targets on this row."""
    ratio, peak = row["cli"] / row["parse"], row["peak_mb"]
    return (
        f"  cli/parse {'met' if ratio <= CLI_TARGET else 'NOT MET'} (<= {CLI_TARGET:g}x),"
        f" peak {'met' if peak <= PEAK_TARGET_MB else 'NOT MET'} (<= {PEAK_TARGET_MB:,.0f} MB)"
    )


def print_growth(first: dict[str, float], last: dict[str, float]) -> None:
    """How the engine's time per finding grows from the smallest size to the largest."""
    growth = []
    for model in MODELS:
        per_finding = [row[f"{model}_engine"] / row["size"] for row in (first, last)]
        growth.append(f"{model} {per_finding[1] / per_finding[0]:.2f}x")
    print(f"time per finding at {last['size']:,.0f} vs {first['size']:,.0f}: {', '.join(growth)}")


def header(args: argparse.Namespace) -> None:
    columns = f"{'findings':>9} {'groups' if args.engine else '':>8} {'parse s':>7}"
    for model in MODELS if args.engine else ():
        columns += f" {model[:9] + ' s':>7} {'/parse':>6} {'ms/1k':>6}"
    if args.cli:
        columns += f" {'cli s':>7} {'/parse':>6} {'peak MB':>7}"
    print(columns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=[*WORKLOADS, "all"], default="realistic")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=2, help="runs per figure (best kept)")
    parser.add_argument("--cli-model", choices=MODELS, default=None, help="default: quorum's")
    parser.add_argument("--no-cli", dest="cli", action="store_false", help="engine figures only")
    parser.add_argument(
        "--targets", action="store_true", help="the command's targets on realistic and uniform"
    )
    parser.add_argument(
        "--floors", action="store_true", help="each stage against its floor, in one process"
    )
    parser.add_argument(
        "--instructions", action="store_true", help="with --floors: instructions (callgrind)"
    )
    parser.add_argument(
        "--no-floor-ratios",
        dest="with_floors",
        action="store_false",
        help="without each size's stage-to-floor ratios (measured in a further process)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, *rest = args.child
        children: dict[str, Callable[..., dict[str, float]]] = {
            "write": child_write,
            "parse": child_parse,
            "engine": child_engine,
            "floors": child_floors,
        }
        paths = [] if mode == "write" else [Path(rest.pop(0))]
        print(json.dumps(children[mode](*paths, *rest)))
        return
    if args.floors:
        if args.sizes == parser.get_default("sizes"):
            args.sizes = [100_000]
        run_floors(args, list(WORKLOADS) if args.workload == "all" else [args.workload])
        return
    args.floors = args.with_floors and not args.targets
    if args.cli_model is None:
        from review_quorum.scoring import DEFAULT_MODEL

        args.cli_model = DEFAULT_MODEL
    names = list(WORKLOADS) if args.workload == "all" else [args.workload]
    args.engine = not args.targets
    if args.targets:
        names, args.cli = list(TARGET_WORKLOADS), True
        if args.sizes == parser.get_default("sizes"):
            args.sizes = [1_000_000]
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            print(f"\n{name} (cli: --model {args.cli_model})")
            header(args)
            rows = []
            for size in args.sizes:
                path = Path(folder) / f"{name}-{size}.json"
                write_workload(name, size, path)
                rows.append(measure_size(path, size, args))
                floors = measure_floors(path, size, args.cli_model, False) if args.floors else None
                path.unlink()
                print_row(rows[-1], args.targets)
                if floors is not None:
                    print(f"{'':>9} to the floors (wall, one process): {floor_ratios(floors)}")
            if len(rows) > 1 and args.engine:
                print_growth(rows[0], rows[-1])


if __name__ == "__main__":
    main()
