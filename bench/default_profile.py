"""Write the shipped default profile, src/review_quorum/profiles/default.json (not a test).

It holds the review bots of review-bots-dev fitted on all of its Opus labels (the primary
labels; 15 tools), and the ESLint, njsscan and Semgrep rules of securibench-micro-js
fitted on its BAD lines (every rule, the two noise rules included: labels that say a
rule's findings are never on a vulnerable line are what a profile is for). The judgement
benchmark reports both leave-one-out, so the figures never score what was fitted.

    python bench/default_profile.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from judgement import bad_lines, securibench_findings
from review_quorum import Profile, labels
from review_quorum.scoring.fitting import fit

TARGET = Path(__file__).parents[1] / "src" / "review_quorum" / "profiles" / "default.json"


def build(shared: Path) -> Profile:
    units = shared / "corpora" / "review-bots-dev" / "units.jsonl"
    bots = labels.load(units, "review-bots", judge="opus")
    reviews = fit(bots, bots.runs([], None), "labels: review-bots-dev (opus), 30 pull requests")
    folder = shared / "corpora" / "securibench-micro-js"
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "bad-lines.jsonl"
        path.write_text(bad_lines(folder))
        lines = labels.load(path, "jsonl")
    runs = lines.runs(securibench_findings(folder), 3)
    analysers = fit(lines, runs, "labels: securibench-micro-js BAD lines, 106 test cases")
    origin = (
        "review bots: review-bots-dev Opus labels; analyser rules: securibench-micro-js "
        "(see bench/default_profile.py)"
    )
    return Profile(origin=origin, sources=reviews.sources + analysers.sources)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).parents[1] / ".." / "shared")
    args = parser.parse_args()
    TARGET.write_bytes(build(args.shared).to_json())
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
