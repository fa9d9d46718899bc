"""Benchmark the consensus engine on a realistic multi-bot workload (not a test).

Workload: 8 bots; each real issue is reported by 1-4 of them, on lines jittered by up to 2,
with reworded titles; about 5% of reports carry no line. The workload is written to a
native JSON file; a fresh subprocess per size then runs the real pipeline on it and times
each stage: ingest (the native reader: parse, validate, build NormalizedFindings),
consensus, render (markdown), so that peak RSS is the pipeline's own. Two more
subprocesses time orjson.loads and json.loads of the same file alone, for the ratios.

    python bench/consensus.py                 # 1e3, 1e4, 1e5, 1e6
    python bench/consensus.py --sizes 1000 20000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from review_quorum import compute_consensus, render_consensus_markdown
from review_quorum.ingest.base import Source
from review_quorum.ingest.native import READER

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
NAIVE_LIMIT = 20_000


def workload(size: int, seed: int = 7) -> list[dict[str, object]]:
    rng = random.Random(seed)
    files = [f"src/pkg{n % 97}/module_{n}.py" for n in range(max(size // 40, 1))]
    records: list[dict[str, object]] = []
    while len(records) < size:
        category = rng.choice(CATEGORIES)
        topic = rng.choice(TOPICS[category])
        file, line = rng.choice(files), rng.randint(1, 2000)
        symbol = f"handler_{rng.randint(0, 999)}"
        for bot in rng.sample(BOTS, rng.randint(1, 4)):
            words = rng.sample(topic, max(len(topic) - rng.randint(0, 1), 1))
            title = " ".join([rng.choice(PHRASES), *words, "in", symbol])
            lineless = rng.random() < 0.05
            records.append(
                {
                    "bot": bot,
                    "finding_id": f"{bot}-{len(records)}",
                    "severity": rng.choice(["low", "medium", "high", "critical"]),
                    "category": category,
                    "title": title,
                    "evidence": {
                        "file": file,
                        "line": None if lineless else max(line + rng.randint(-2, 2), 1),
                    },
                    "confidence": round(rng.uniform(0.4, 1.0), 2),
                }
            )
    return records[:size]


def measure(path: Path, size: int) -> dict[str, float]:
    """The real pipeline on a native JSON file: read, ingest, consensus, render."""
    started = time.perf_counter()
    source = Source(str(path), path.read_bytes())
    loaded = time.perf_counter()
    findings = READER.read(source).findings
    del source
    built = time.perf_counter()
    consensus = compute_consensus(findings, bots_ran=len(BOTS))
    clustered = time.perf_counter()
    render_consensus_markdown(consensus)
    rendered = time.perf_counter()
    result = {
        "size": size,
        "groups": len(consensus),
        "read": loaded - started,
        "ingest": built - loaded,
        "consensus": clustered - built,
        "render": rendered - clustered,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if size <= NAIVE_LIMIT:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from naive_consensus import naive_consensus

        started = time.perf_counter()
        naive = naive_consensus(findings, len(BOTS))
        result["naive"] = time.perf_counter() - started
        assert naive == consensus, "the engine disagrees with the naive definition"
    return result


def parse_only(path: Path, parser: str) -> float:
    """Seconds to parse the file with `parser` alone, as any program would (collector on)."""
    data = path.read_bytes()
    loads = orjson.loads if parser == "orjson" else json.loads
    started = time.perf_counter()
    loads(data)
    return time.perf_counter() - started


def child(mode: str, path: Path, size: int) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", mode, str(path), str(size)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", type=int, nargs="*", default=[1000, 10_000, 20_000, 100_000, 1_000_000]
    )
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, path, size = args.child
        if mode in ("orjson", "json"):
            print(json.dumps({mode: parse_only(Path(path), mode)}))
        else:
            print(json.dumps(measure(Path(path), int(size))))
        return
    print(
        f"{'findings':>9} {'groups':>8} {'orjson s':>8} {'json s':>7} {'ingest s':>8} "
        f"{'consensus s':>11} {'render s':>8} {'findings/s':>11} {'cons/orjson':>11} "
        f"{'cons/json':>9} {'RSS MB':>7} {'naive x':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            path = Path(folder) / f"findings-{size}.json"
            path.write_bytes(orjson.dumps(workload(size)))
            row = child("pipeline", path, size) | child("orjson", path, size)
            row |= child("json", path, size)
            path.unlink()
            speedup = f"{row['naive'] / row['consensus']:.0f}x" if "naive" in row else "-"
            print(
                f"{size:>9} {row['groups']:>8.0f} {row['orjson']:>8.3f} {row['json']:>7.3f} "
                f"{row['ingest']:>8.3f} {row['consensus']:>11.3f} {row['render']:>8.3f} "
                f"{size / row['consensus']:>11.0f} {row['consensus'] / row['orjson']:>11.2f} "
                f"{row['consensus'] / row['json']:>9.2f} {row['peak_rss_mb']:>7.0f} {speedup:>8}"
            )
    print("orjson/json = orjson.loads/json.loads of the same file alone, in their own process;")
    print("ingest = the native reader (split, decode, validate, build findings);")
    print("RSS = peak resident set of the whole pipeline (read, ingest, consensus, render)")


if __name__ == "__main__":
    main()
