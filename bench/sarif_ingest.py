"""Benchmark SARIF ingestion against parsing the same bytes as JSON (not a test).

Workloads: the real Semgrep SARIF of OWASP BenchmarkPython (3,605 results, read from
../shared; skipped with a message when that is absent) and a synthetic SARIF of about
100 MB generated in memory (three runs shaped like CodeQL, Semgrep and Bandit output:
rules with tags, CWE ids and CVSS scores, results with messages, snippets, fingerprints
and base URIs). Stages, each in a fresh subprocess so that peak
RSS is its own and each timed as the best of a few runs: orjson.loads, stdlib json.loads,
ingest (what users run: `ingest.read(Source(...))`, format detection included, which
takes the typed msgspec path), and generic (the fallback path: orjson parse plus the
dict-walking reader, as when the typed decode refuses a file). Title caches start cold.
The target: ingest runs at >= 50% of the speed of orjson.loads of the same bytes.

    python bench/sarif_ingest.py                    # both workloads
    python bench/sarif_ingest.py --synthetic-mb 20  # a smaller synthetic file
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from review_quorum import ingest
from review_quorum.ingest import sarif
from review_quorum.ingest.base import Source
from review_quorum.ingest.titles import first_sentence

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
SEMGREP = SHARED / "fixtures" / "sarif" / "owasp-benchmark-python.semgrep.sarif"
STAGES = ("orjson", "json", "ingest", "generic")

WORDS = [
    "value",
    "request",
    "user",
    "input",
    "query",
    "path",
    "file",
    "token",
    "session",
    "handler",
    "buffer",
    "record",
    "config",
    "template",
    "command",
    "response",
    "cookie",
    "header",
    "payload",
    "secret",
    "key",
    "cursor",
]


def _rules(rng: random.Random, tool: str, count: int) -> list[dict[str, Any]]:
    kinds = ["security", "correctness", "maintainability", "performance", "best-practice"]
    rules = []
    for number in range(count):
        kind = rng.choice(kinds)
        rule_id = f"{tool}.lang.{kind}.rule-{number}"
        properties: dict[str, Any] = {"precision": rng.choice(["very-high", "high", "medium"])}
        if kind == "security":
            cwe = rng.choice([78, 79, 89, 22, 327, 502, 798])
            properties["tags"] = [f"CWE-{cwe}: weakness {cwe}", "security"]
            properties["security-severity"] = f"{rng.uniform(2, 9.8):.1f}"
        rules.append(
            {
                "id": rule_id,
                "name": rule_id,
                "shortDescription": {"text": f"Rule {number} about {rng.choice(WORDS)}"},
                "fullDescription": {"text": " ".join(rng.choices(WORDS, k=40))},
                "defaultConfiguration": {"level": rng.choice(["error", "warning", "note"])},
                "properties": properties,
            }
        )
    return rules


def _result(rng: random.Random, rule: dict[str, Any], files: list[str]) -> bytes:
    start = rng.randint(1, 4000)
    snippet = "\n".join(
        "    " + " ".join(rng.choices(WORDS, k=rng.randint(3, 9))) for _ in range(rng.randint(1, 6))
    )
    words = " ".join(rng.choices(WORDS, k=rng.randint(8, 30)))
    result = {
        "ruleId": rule["id"],
        "message": {"text": f"Detected {words}. Consider {rng.choice(WORDS)} instead."},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": rng.choice(files), "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": start,
                        "startColumn": rng.randint(1, 40),
                        "endLine": start + rng.randint(0, 5),
                        "endColumn": rng.randint(1, 80),
                        "snippet": {"text": snippet},
                    },
                }
            }
        ],
        "fingerprints": {"matchBasedId/v1": f"{rng.getrandbits(128):032x}"},
        "properties": {},
    }
    return orjson.dumps(result)


def synthetic(megabytes: int, seed: int = 7) -> tuple[bytes, int]:
    """A SARIF log of about `megabytes` MB, built as bytes so no large object tree stays."""
    rng = random.Random(seed)
    files = [f"src/pkg{n % 40}/module_{n}.py" for n in range(5000)]
    tools = [("CodeQL", 300), ("Semgrep OSS", 400), ("Bandit", 40)]
    per_tool = megabytes * 1_000_000 // len(tools)
    runs: list[bytes] = []
    total = 0
    for name, rule_count in tools:
        rules = _rules(rng, name.split()[0].lower(), rule_count)
        results: list[bytes] = []
        size = 0
        while size < per_tool:
            results.append(_result(rng, rng.choice(rules), files))
            size += len(results[-1]) + 1
        total += len(results)
        tool = orjson.dumps({"driver": {"name": name, "rules": rules}})
        runs.append(b'{"tool":' + tool + b',"results":[' + b",".join(results) + b"]}")
    head = b'{"version":"2.1.0","$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":['
    return head + b",".join(runs) + b"]}", total


def _reset_peak() -> bool:
    """Start a new peak-RSS window (Linux); False where only the process peak is known."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _peak_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_stage(stage: str, data: bytes, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        first_sentence.cache_clear()
        gc.collect()
        started = time.perf_counter()
        if stage == "orjson":
            kept: object = orjson.loads(data)
        elif stage == "json":
            kept = json.loads(data)
        elif stage == "ingest":
            source = Source("bench.sarif", data)
            kept = (source, ingest.read(source))
        else:  # a parsed document sends the reader down the generic path
            source = Source("bench.sarif", data)
            source.json()
            kept = (source, sarif.READER.read(source))
        best = min(best, time.perf_counter() - started)
        del kept  # freeing the parsed tree is outside the timing for every stage
    return best


def child(workload: str, stage: str, megabytes: int) -> dict[str, Any]:
    if workload == "semgrep":
        data, repeats = SEMGREP.read_bytes(), 15
        results = sum(len(run["results"]) for run in orjson.loads(data)["runs"])
    else:
        (data, results), repeats = synthetic(megabytes), 3
    windowed = _reset_peak()
    seconds = run_stage(stage, data, repeats)
    return {
        "seconds": seconds,
        "results": results,
        "mb": len(data) / 1e6,
        "peak_mb": _peak_mb(),
        "windowed": windowed,
    }


def measure(workload: str, megabytes: int) -> dict[str, dict[str, Any]]:
    rows = {}
    for stage in STAGES:
        command = [sys.executable, __file__, "--child", workload, stage, str(megabytes)]
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        rows[stage] = json.loads(done.stdout)
    return rows


def report(workload: str, rows: dict[str, dict[str, Any]]) -> None:
    orjson_s, json_s, ingest_s, generic_s = (rows[stage]["seconds"] for stage in STAGES)
    ingest = rows["ingest"]
    print(
        f"{workload:<10} {ingest['mb']:>6.1f} {ingest['results']:>7} {orjson_s:>8.3f} "
        f"{json_s:>8.3f} {ingest_s:>8.3f} {generic_s:>8.3f} "
        f"{ingest['results'] / ingest_s:>9.0f} {orjson_s / ingest_s:>6.0%} "
        f"{orjson_s / generic_s:>6.0%} {ingest_s / json_s:>8.2f} "
        + " ".join(f"{rows[stage]['peak_mb']:>7.0f}" for stage in ("orjson", "ingest", "generic"))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic-mb", type=int, default=100)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        workload, stage, megabytes = args.child
        print(json.dumps(child(workload, stage, int(megabytes))))
        return
    print(
        f"{'workload':<10} {'MB':>6} {'results':>7} {'orjson s':>8} {'json s':>8} "
        f"{'ingest s':>8} {'generic s':>8} {'results/s':>9} {'speed':>6} {'gen sp':>6} "
        f"{'ing/json':>8} {'RSS orj':>7} {'RSS ing':>7} {'RSS gen':>7}"
    )
    if SEMGREP.exists():
        report("semgrep", measure("semgrep", 0))
    else:
        print(f"semgrep    skipped: {SEMGREP.resolve()} not found (../shared is absent)")
    report("synthetic", measure("synthetic", args.synthetic_mb))
    print("orjson/json = orjson.loads/json.loads of the same bytes; ingest = ingest.read(Source)")
    print("with detection (the typed path); generic = the fallback: orjson parse + dict reader.")
    print("speed (gen sp) = orjson time / ingest (generic) time; the target is >= 50%.")
    print("RSS = peak resident MB of the stage (input bytes included), each in its own process.")


if __name__ == "__main__":
    main()
