"""End-to-end wall time of `quorum review`, measured against `python -c pass` (not a test).

Workloads, each run as a fresh process several times (the best and median kept):
- the bundled example, as the README's first command runs it (three analysers' SARIF, the
  bots' comments, the diff, the verdicts and the example's config), with its cost over
  `python -c pass` against `EXAMPLE_TARGET_MS`;
- a synthetic 50,000-finding pull request (native JSON from 8 bots and a diff touching every
  reported line), and the same at 5,000 and 25,000 to show how it scales;
- the adversarial workloads of bench/consensus.py (lineless one bucket, chained windows,
  50 bots) and its realistic one, through `quorum review --format json`, each against
  `orjson.loads` of the same file in its own process (`--sizes`);
- a huge title through `--format github-review` (`--title-mb`) and free-text reviewer lines
  (`--text-lines`), the two inputs that once took minutes.

    python bench/review.py --example-only               # the example's target alone
    python bench/review.py
    python bench/review.py --sizes 10000 100000 --title-mb 200 --text-lines 3700000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pr-review"
BOTS = ["bandit", "ruff", "semgrep", "codeql", "coderabbit", "copilot", "sourcery", "gemini"]
QUORUM = [sys.executable, "-m", "review_quorum"]
EXAMPLE_TARGET_MS = 150  # over `python -c pass`


def wall(command: list[str], repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(command[:6])} ... failed: {done.stderr.strip()}")
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def cpu(command: list[str], repeat: int) -> float:
    """Least CPU seconds (user and system) of `command` as a fresh process: unlike wall
    time, it barely moves when other processes share the cores."""
    times = []
    for _ in range(repeat):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(process.pid, 0)
        times.append(usage.ru_utime + usage.ru_stime)
    return min(times)


def synthetic(size: int, folder: Path) -> list[str]:
    """A pull request with `size` findings over size/25 files, and its diff."""
    rng = random.Random(size)
    files = [f"src/module_{n}.py" for n in range(max(size // 25, 1))]
    records: list[dict[str, Any]] = []
    lines_by_file: dict[str, set[int]] = {file: set() for file in files}
    while len(records) < size:
        file, line = rng.choice(files), rng.randint(1, 3000)
        category = rng.choice(["security", "logic_error", "resource_leak", "performance"])
        for bot in rng.sample(BOTS, rng.randint(1, 4)):
            jittered = max(line + rng.randint(-2, 2), 1)
            lines_by_file[file].add(jittered)
            records.append(
                {
                    "bot": bot,
                    "finding_id": f"{bot}-{len(records)}",
                    "severity": rng.choice(["low", "medium", "high"]),
                    "category": category,
                    "title": f"{rng.choice(['possible', 'unsafe'])} {category} near line {line}",
                    "evidence": {"file": file, "line": jittered},
                }
            )
    findings = folder / f"findings-{size}.json"
    findings.write_bytes(orjson.dumps(records[:size]))
    diff = folder / f"pr-{size}.diff"
    diff.write_text(
        "".join(_file_diff(file, sorted(lines)) for file, lines in lines_by_file.items())
    )
    return [str(findings), "--diff", str(diff), "--bots", str(len(BOTS))]


def _file_diff(file: str, lines: list[int]) -> str:
    """Pure insertions: each run of consecutive reported lines is one added hunk."""
    if not lines:
        return ""
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][-1] + 1:
            runs[-1].append(line)
        else:
            runs.append([line])
    parts = [f"diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n"]
    inserted = 0
    for run in runs:
        before = run[0] - 1 - inserted
        parts.append(f"@@ -{before},0 +{run[0]},{len(run)} @@\n" + "+changed\n" * len(run))
        inserted += len(run)
    return "".join(parts)


def parse_seconds(path: Path, repeat: int) -> float:
    """Best wall time of `orjson.loads` of `path`, each in a fresh process."""
    code = (
        "import orjson, sys, time; data = open(sys.argv[1], 'rb').read(); "
        "t = time.perf_counter(); orjson.loads(data); print(time.perf_counter() - t)"
    )
    command = [sys.executable, "-c", code, str(path)]
    runs = [subprocess.run(command, capture_output=True, text=True) for _ in range(repeat)]
    return min(float(done.stdout) for done in runs)


def adversarial(sizes: list[int], folder: Path) -> None:
    """`quorum review --format json` on bench/consensus.py's workloads, against the parse."""
    sys.path.insert(0, str(ROOT / "bench"))
    from consensus import WORKLOADS

    print(f"\n{'workload':<10} {'findings':>9} {'parse s':>8} {'review s':>9} {'/parse':>7}")
    for name, make in WORKLOADS.items():
        for size in sizes:
            path = folder / f"{name}-{size}.json"
            path.write_bytes(orjson.dumps(make(size, random.Random(size))))
            command = [*QUORUM, "review", str(path), "--bots", "8", "--format", "json"]
            best, _ = wall([*command, "-o", os.devnull], 2)
            parse = parse_seconds(path, 2)
            print(f"{name:<10} {size:>9,} {parse:>8.3f} {best:>9.3f} {best / parse:>6.1f}x")
            path.unlink()


def pathological(title_mb: int, text_lines: int, folder: Path) -> None:
    """A huge title through --format github-review, and many free-text lines."""
    title = folder / "huge-title.json"
    words = "word " * (title_mb * 200_000)
    records = [
        {"bot": bot, "severity": "high", "category": "security", "title": text}
        | {"evidence": {"file": "app.py", "line": 3}}
        for bot, text in (("a", words), ("b", "short title"))
    ]
    title.write_bytes(orjson.dumps(records))
    command = [*QUORUM, "review", str(title), "--bots", "2", "--format", "github-review"]
    print(f"\n{title_mb} MB title, review --format github-review: ", end="", flush=True)
    print(f"{wall([*command, '-o', os.devnull], 1)[0]:.1f} s")
    title.unlink()
    lines = folder / "review.txt"
    rng = random.Random(text_lines)
    kinds = ["sql injection", "null dereference", "race condition", "file handle leak"]
    with lines.open("w") as out:
        for number in range(text_lines):
            where = f"src/pkg{number % 300}/mod{number % 1000}.py:{rng.randint(1, 4000)}"
            out.write(f"[high] {where} possible {rng.choice(kinds)} in handler_{number % 977}\n")
    for output in ("json", "markdown"):
        command = [*QUORUM, "review", str(lines), "--bots", "1", "--format", output]
        print(f"{text_lines:,} free-text lines, review --format {output}: ", end="", flush=True)
        print(f"{wall([*command, '-o', os.devnull], 1)[0]:.1f} s")
    lines.unlink()


def print_rows(rows: list[tuple[str, float, float]], baseline: float) -> None:
    print(f"{'run':<32} {'best s':>8} {'median s':>9} {'x python':>9}")
    for name, best, median in rows:
        print(f"{name:<32} {best:>8.3f} {median:>9.3f} {best / baseline:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[20_000])
    parser.add_argument("--title-mb", type=int, default=20)
    parser.add_argument("--text-lines", type=int, default=370_000)
    parser.add_argument("--example-only", action="store_true", help="time the example alone")
    args = parser.parse_args()
    # An installed package has its bytecode compiled (pip compiles it): without the cache,
    # every run would time the compiler on each module. The first run writes it.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    baseline, _ = wall([sys.executable, "-c", "pass"], 10)
    example = [
        *sorted(str(path) for path in (EXAMPLE / "analysers").glob("*.sarif")),
        *sorted(str(path) for path in (EXAMPLE / "bots").glob("*.json")),
        "--diff",
        str(EXAMPLE / "pr.diff"),
        "--verdicts",
        str(EXAMPLE / "verdicts.json"),
        "--config",
        str(EXAMPLE / "quorum.toml"),
    ]
    rows = [("python -c pass", baseline, baseline)]
    wall([*QUORUM, "review", *example], 1)  # writes the bytecode cache
    rows.append(("quorum review example",) + wall([*QUORUM, "review", *example], 10))
    over = (rows[1][1] - baseline) * 1000
    over_cpu = cpu([*QUORUM, "review", *example], 10) - cpu([sys.executable, "-c", "pass"], 10)
    met = "met" if over <= EXAMPLE_TARGET_MS else "NOT MET"
    summary = (
        f"the example over python -c pass: {over:.0f} ms wall ({met}: <= {EXAMPLE_TARGET_MS} ms),"
        f" {over_cpu * 1000:.0f} ms of CPU"
    )
    if args.example_only:
        print_rows(rows, baseline)
        print(summary)
        return
    with tempfile.TemporaryDirectory() as folder:
        for size in (5_000, 25_000, 50_000):
            arguments = synthetic(size, Path(folder))
            rows.append(
                (f"quorum review {size:,} findings",) + wall([*QUORUM, "review", *arguments], 3)
            )
    print_rows(rows, baseline)
    print(summary)
    per = [(rows[i][1] - rows[1][1]) for i in (2, 3, 4)]
    print(
        "marginal seconds per 1,000 findings (over the example): "
        + ", ".join(
            f"{size:,}: {p / size * 1000:.3f}"
            for size, p in zip((5_000, 25_000, 50_000), per, strict=True)
        )
    )
    with tempfile.TemporaryDirectory() as folder:
        adversarial(args.sizes, Path(folder))
        pathological(args.title_mb, args.text_lines, Path(folder))


if __name__ == "__main__":
    main()
