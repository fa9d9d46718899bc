"""bench/judgement.py end to end: the tables it prints, the default model's judgement
against the targets of the labelled corpora, and the timing line (on a small workload)."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO_ROOT, shared_path

MARGIN = re.compile(
    r"\(([a-z]+) profile\) - best (single tool|k-of-n vote) \([^)]*\): "
    r"([+-][\d.]+) \[([+-][\d.]+), ([+-][\d.]+)(, not significant)?\]"
)
SUMMARY = re.compile(
    r"default model, reliability >= needs-verification: P ([\d.]+) R [\d.]+ F1 ([\d.]+)"
)


def test_judgement_bench_meets_the_targets_and_times_both_models() -> None:
    shared = shared_path("corpora").parent
    command = [sys.executable, str(REPO_ROOT / "bench" / "judgement.py"), "--shared", str(shared)]
    command += ["--size", "3000", "--repeat", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for title in ("review-bots-dev, opus labels:", "review-bots-dev, gpt-5.2 labels:"):
        assert title in out
    assert "securibench-micro-js (noise rules left out of scoring):" in out
    assert "castle-c250 (tolerance 2, any CWE):" in out
    summaries = [(float(p), float(f1)) for p, f1 in SUMMARY.findall(out)]
    assert len(summaries) == 4, out
    (_, opus), (_, gpt), (precision, securibench), (_, castle) = summaries
    assert opus >= 0.60  # union 0.514, best single bot 0.511
    assert gpt >= 0.55  # union 0.383, best single bot 0.459
    assert securibench >= 0.80 and precision >= 0.87  # union 0.795 at precision 0.852
    assert castle >= 0.39  # best tool 0.280 (flawfinder), best k-of-5 vote 0.347-0.350
    margins = MARGIN.findall(out)
    assert len(margins) == 16, out  # 4 corpora x 2 profiles x 2 rivals
    for profile, rival, difference, low, high, verdict in margins:
        assert float(low) <= float(difference) <= float(high), (profile, rival)
        assert bool(verdict) == (float(low) <= 0.0 <= float(high))
    shipped_over_best_tool = [m for m in margins if m[:2] == ("shipped", "single tool")]
    assert all(float(low) > 0 for _, _, _, low, _, _ in shipped_over_best_tool)
    timing = re.search(
        r"3,000 findings \(engine alone, best of 1\): agreement ([\d.]+) s, "
        r"reliability ([\d.]+) s, ratio ([\d.]+)x",
        out,
    )
    assert timing is not None, out
    assert float(timing[1]) > 0 and float(timing[2]) > 0
