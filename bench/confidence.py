"""Benchmark confidence scoring against parsing the same records from JSON (not a test).

Workload: verified findings with every enum drawn at random (seeded), about 5% out of
scope, issue and details text of realistic length. Stages, timed in one process:
parse (orjson.loads and stdlib json.loads of the scoring records), validate (records ->
FindingInput, strict), score (score_findings: table lookups, placement, the cap, the
groups). The target is score <= parse for 1,000,000 findings. Times are CPU seconds, the
best of a few runs (the machine may be shared); parsing is timed with the cyclic GC paused,
as scoring runs, so the comparison is the strict one. Each size runs in a fresh subprocess
so that peak RSS is its own.

    python bench/confidence.py                  # 1e4, 1e5, 1e6
    python bench/confidence.py --sizes 1000 20000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from collections.abc import Callable

import orjson

from review_quorum._perf import paused_gc
from review_quorum.scoring.confidence import (
    Category,
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
    score_findings,
)
from review_quorum.scoring.confidence.verdicts import parse_score_records

SEVERITIES = [member.value for member in VerifierSeverity]


def workload(size: int, seed: int = 11) -> list[dict[str, object]]:
    rng = random.Random(seed)
    files = [f"src/pkg{n % 53}/module_{n}.py" for n in range(max(size // 25, 1))]
    pick = rng.choice
    return [
        {
            "file": pick(files),
            "line": rng.randint(1, 3000),
            "category": pick(list(Category)).value,
            "verdict": pick(list(Verdict)).value,
            "evidence_strength": pick(list(EvidenceStrength)).value,
            "context_completeness": pick(list(ContextCompleteness)).value,
            "drafter_severity": pick(SEVERITIES),
            "verifier_severity": pick(SEVERITIES),
            "in_diff": rng.random() > 0.05,
            "in_changed_code": rng.random() > 0.02,
            "issue": f"possible problem number {index} in handler",
            "details": "The value is used after the check without re-validating it.",
        }
        for index in range(size)
    ]


def best_of(repeats: int, stage: Callable[[], object]) -> tuple[float, object]:
    """The shortest CPU time of `repeats` runs (the machine is shared), and the result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        result = None  # free the previous run's objects before the next one allocates
        started = time.process_time()
        result = stage()
        best = min(best, time.process_time() - started)
    return best, result


def measure(size: int, repeats: int) -> dict[str, float]:
    data = orjson.dumps(workload(size))
    # Parsing runs with the cyclic GC paused, as scoring does: the fair (stricter) baseline.
    with paused_gc():
        parse, records = best_of(repeats, lambda: orjson.loads(data))
        stdlib_parse, _ = best_of(repeats, lambda: json.loads(data))
    validate, inputs = best_of(repeats, lambda: parse_score_records(records, "bench.json"))
    score, report = best_of(repeats, lambda: score_findings(inputs))  # type: ignore[arg-type]
    return {
        "size": size,
        "inline": len(report.inline),  # type: ignore[attr-defined]
        "parse": parse,
        "stdlib_parse": stdlib_parse,
        "validate": validate,
        "score": score,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3, help="runs per stage; the best counts")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.repeats)))
        return
    print(
        f"{'findings':>9} {'parse s':>8} {'json s':>8} {'validate s':>10} {'score s':>8} "
        f"{'scored/s':>10} {'score/parse':>11} {'score/json':>10} {'valid/parse':>11} "
        f"{'RSS MB':>7}"
    )
    for size in args.sizes:
        child = subprocess.run(
            [sys.executable, __file__, "--child", str(size), "--repeats", str(args.repeats)],
            check=True,
            capture_output=True,
            text=True,
        )
        row = json.loads(child.stdout)
        print(
            f"{size:>9} {row['parse']:>8.3f} {row['stdlib_parse']:>8.3f} "
            f"{row['validate']:>10.3f} {row['score']:>8.3f} {size / row['score']:>10.0f} "
            f"{row['score'] / row['parse']:>11.2f} {row['score'] / row['stdlib_parse']:>10.2f} "
            f"{row['validate'] / row['parse']:>11.2f} {row['peak_rss_mb']:>7.0f}"
        )
    print("CPU seconds, best of --repeats runs; parse = orjson.loads, json = stdlib json.loads")
    print("of the same records, both with the GC paused; score/parse <= 1 is the target.")


if __name__ == "__main__":
    main()
