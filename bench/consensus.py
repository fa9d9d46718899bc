"""Benchmark the consensus engine on a realistic multi-bot workload (not a test).

Workload: 8 bots; each real issue is reported by 1-4 of them, on lines jittered by up to 2,
with reworded titles; about 5% of reports carry no line. Stages, each timed in one run:
parse (orjson.loads of the native JSON), build (records -> NormalizedFinding), consensus,
render (markdown). Each size runs in a fresh subprocess so that peak RSS is its own.

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
import time
from pathlib import Path

import orjson

from review_quorum import compute_consensus, render_consensus_markdown
from review_quorum.ingest.native import parse_record

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


def measure(size: int) -> dict[str, float]:
    data = orjson.dumps(workload(size))
    started = time.perf_counter()
    records = orjson.loads(data)
    parsed = time.perf_counter()
    json.loads(data)
    stdlib_parsed = time.perf_counter()
    findings = [parse_record(record, index) for index, record in enumerate(records)]
    built = time.perf_counter()
    consensus = compute_consensus(findings, bots_ran=len(BOTS))
    clustered = time.perf_counter()
    render_consensus_markdown(consensus)
    rendered = time.perf_counter()
    result = {
        "size": size,
        "groups": len(consensus),
        "parse": parsed - started,
        "stdlib_parse": stdlib_parsed - parsed,
        "build": built - stdlib_parsed,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10_000, 100_000, 1_000_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child)))
        return
    header = (
        f"{'findings':>9} {'groups':>8} {'parse s':>8} {'build s':>8} {'consensus s':>11} "
        f"{'render s':>8} {'findings/s':>11} {'cons/parse':>10} {'cons/json':>9} "
        f"{'RSS MB':>7} {'naive x':>8}"
    )
    print(header)
    for size in args.sizes:
        child = subprocess.run(
            [sys.executable, __file__, "--child", str(size)],
            check=True,
            capture_output=True,
            text=True,
        )
        row = json.loads(child.stdout)
        speedup = f"{row['naive'] / row['consensus']:.0f}x" if "naive" in row else "-"
        print(
            f"{size:>9} {row['groups']:>8} {row['parse']:>8.3f} {row['build']:>8.3f} "
            f"{row['consensus']:>11.3f} {row['render']:>8.3f} "
            f"{size / row['consensus']:>11.0f} {row['consensus'] / row['parse']:>10.2f} "
            f"{row['consensus'] / row['stdlib_parse']:>9.2f} {row['peak_rss_mb']:>7.0f} "
            f"{speedup:>8}"
        )
    print("parse = orjson.loads; cons/json = consensus time / stdlib json.loads time")


if __name__ == "__main__":
    main()
