"""Judgement benchmark: does the consolidated review beat every single bot? (not a test)

Prints, in one run, the `quorum evaluate` tables of
- review-bots-dev (../shared/corpora/review-bots-dev), for the Opus and the GPT-5.2 labels:
  its units fed as native findings one pull request at a time (bot = tool, finding_id =
  unit, title = text, severity medium, category other, no file, no line; `--bots` = the
  pull request's list in reviewed.json; `trigger` units left out), scored by its README's
  rule. The shipped default profile is learned from these labels, so the reliability rows
  are leave-one-repository-out: for each repository a profile is fitted on the labels of
  the other two and scores the third; the rows pool the three held-out repositories (a
  note gives the same with profiles fitted on the Opus labels, as the shipped one is).
  `reliability ..., label-free` rows use no profile at all: every source is estimated
  from agreement in its own pull request.
- securibench-micro-js: the three SARIF files as they are; labels are the `BAD` lines
  converted to generic labels JSONL; ESLint's detect-object-injection and Semgrep's
  useless-assignment findings are left out of scoring (not out of the input). The shipped
  profile also holds these analysers' rules, fitted on this folder, so the reliability
  rows are leave-one-folder-out (the test cases' eleven folders).
- castle-c250 (../shared/corpora/castle-c250): the five C analysers' SARIF files as they
  are, scored by its README's rule (line level, widened by 2 lines, any CWE), with the
  README's k-of-5 votes (distinct tools whose widened spans overlap) beside each tool, the
  union and both models. The shipped profile learns nothing from this corpus, so its rows
  are not cross-validated: every source in it is estimated from the input.
- the time of the reliability model against the agreement model on the 1,000,000-finding
  workload of bench/consensus.py, each in its own process.

After each table, the margins of the default model (with the shipped profile, as
cross-validated above, and label-free, with an empty one) over the best single tool and the
best k-of-n vote, with a bootstrap interval over the corpus's pull requests or programs
(1,000 resamples, bench/margins.py); "not significant" where it spans zero.

With `--verify-url URL --verify-model NAME` (and `--verify-key-env VAR`), the two corpora
that ship their code (securibench-micro-js, castle-c250) are verified too: the reliability
rows gain `disposition ..., verified` (F1 with the verifier beside F1 without) and
`dismissed by the verifier` (its `true` column: real findings lost; the rest: false
positives removed). review-bots-dev has no lines to verify.

    python bench/judgement.py [--shared ../shared] [--size 1000000] [--repeat 2]
        [--verify-url URL --verify-model NAME [--verify-key-env VAR]]
    python bench/judgement.py --learn     # k-fold learning curves instead (bench/learning.py)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
from msgspec.structs import replace

from review_quorum import Profile, compute_consensus, labels
from review_quorum.evaluate import Options, Replan, Row, Verifier, kept_by_policy, score
from review_quorum.ingest import read
from review_quorum.ingest.base import Source
from review_quorum.labels.lines import LineLabels
from review_quorum.labels.review_bots import ReviewBotsLabels
from review_quorum.model import NormalizedFinding
from review_quorum.plan import ReviewPlan
from review_quorum.render.evaluation import render_table
from review_quorum.scoring.fitting import fit
from review_quorum.verifier import stage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from learning import Corpus, curve
from margins import Splitter, aligned, by_program, by_pull_request, interval, resamples

NOISE_RULES = ("*detect-object-injection", "*useless-assignment")
BAD = re.compile(r"//\s*BAD\b|/\*\s*BAD\s*\*/")
KEPT = "reliability >= needs-verification"
CASTLE_TOLERANCE = 2
Kept = dict[str, list[tuple[labels.Run, tuple[NormalizedFinding, ...]]]]
VOTE = re.compile(r"^(agreement clusters of >= \d+ bots|vote >= \d+ of \d+ tools)$")
VERIFY: dict[str, str] = {}  # --verify-url, --verify-model, --verify-key-env when given


def verifier(folder: Path) -> Verifier | None:
    """The verifier for a corpus whose code is in `folder`, or None without --verify-url."""
    if not VERIFY:
        return None
    chosen = stage.VerifyOptions(
        url=VERIFY["url"],
        model=VERIFY["model"],
        key_env=VERIFY.get("key_env") or None,
        checkout=str(folder),
        cache=str(Path(tempfile.gettempdir()) / "quorum-judgement-verifier-cache.json"),
        max_clusters=1_000_000,
        budget_s=3600.0,
    )

    def verified(plan: ReviewPlan, replan: Replan) -> ReviewPlan:
        return stage.apply(plan, replan, stage.verify(plan, None, chosen), chosen)

    return verified


class Table(msgspec.Struct, frozen=True):
    """One corpus's table, its notes, and what the margins need: each policy's kept items,
    the units to resample (pull requests or programs) and how to split items into them."""

    title: str
    rows: list[Row]
    notes: list[str]
    kept: Kept
    units: list[str]
    unit_name: str
    split: Splitter
    runs_of: Callable[[Sequence[str]], list[labels.Run]]  # the runs of some of the units
    fit_labels: labels.Labels  # what a profile is fitted on
    shipped_in_sample: bool  # the shipped profile was fitted on this corpus's labels


def _runs_of_prs(runs: Sequence[labels.Run]) -> Callable[[Sequence[str]], list[labels.Run]]:
    return lambda prs: [run for run in runs if run.name in set(prs)]


def _runs_of_programs(
    findings: Sequence[NormalizedFinding], bots: int
) -> Callable[[Sequence[str]], list[labels.Run]]:
    def runs_of(programs: Sequence[str]) -> list[labels.Run]:
        chosen = set(programs)
        part = tuple(finding for finding in findings if finding.evidence.file in chosen)
        return [labels.Run("part", part, bots)]

    return runs_of


def review_bots(folder: Path, judge: str) -> Table:
    """The table for one judge's labels, and notes on the held-out folds."""
    units = folder / "units.jsonl"
    label_set = labels.load(units, "review-bots", judge=judge)
    opus = labels.load(units, "review-bots", judge="opus")
    assert isinstance(label_set, ReviewBotsLabels) and isinstance(opus, ReviewBotsLabels)
    runs = label_set.runs([], None)
    kept = kept_by_policy(runs, Options(models=("agreement",)))
    _add_label_free(kept, runs)
    shipped: Kept = {}
    notes = []
    for held in sorted({label_set.repository(run) for run in runs}):
        test = [run for run in runs if label_set.repository(run) == held]
        train = [run for run in runs if label_set.repository(run) != held]
        own = fit(label_set, train, f"labels: review-bots-dev {judge} without {held}")
        held_kept = _merge_reliability(kept, test, own)
        fold = replace(label_set, core=frozenset(g for g in label_set.core if g.startswith(held)))
        notes.append(f"{held} {fold.score(held_kept[KEPT]).f1:.3f}")
        opus_train = [run for run in opus.runs([], None) if opus.repository(run) != held]
        as_shipped = fit(opus, opus_train, f"labels: review-bots-dev opus without {held}")
        _merge_reliability(shipped, test, as_shipped)
    m = label_set.score(shipped[KEPT])
    notes = [
        f"leave-one-repository-out, profile fitted on the {judge} labels of the other two "
        f"repositories; `{KEPT}` F1 per held-out repository: {', '.join(notes)}",
        f"the same with the profile fitted on the opus labels (as the shipped default is): "
        f"P {m.precision:.3f} R {m.recall:.3f} F1 {m.f1:.4f}",
    ]
    prs, split = by_pull_request(label_set)
    title = f"review-bots-dev, {judge} labels:"
    return Table(
        title,
        score(label_set, kept),
        notes,
        kept,
        prs,
        "pull requests",
        split,
        _runs_of_prs(runs),
        label_set,
        True,
    )


def _add_label_free(kept: Kept, runs: Sequence[labels.Run]) -> None:
    free = kept_by_policy(runs, Options(profile=Profile(), models=("reliability",)))
    kept |= {f"{name}, label-free": items for name, items in free.items() if "reliability" in name}


def _merge_reliability(
    kept: Kept, runs: Sequence[labels.Run], profile: Profile, verify: Verifier | None = None
) -> Kept:
    options = Options(profile=profile, models=("reliability",), verifier=verify)
    held_kept = kept_by_policy(runs, options)
    for name, items in held_kept.items():
        if "reliability" in name:
            kept.setdefault(name, []).extend(items)
    return held_kept


def securibench(folder: Path) -> Table:
    """The table for the three SARIF files; reliability rows leave one test folder out."""
    findings = securibench_findings(folder)
    with tempfile.TemporaryDirectory() as scratch:
        label_path = Path(scratch) / "bad-lines.jsonl"
        label_path.write_text(bad_lines(folder))
        scored = labels.load(label_path, "jsonl", ignore_rules=NOISE_RULES)
        every_rule = labels.load(label_path, "jsonl")
    runs = scored.runs(findings, 3)
    kept = kept_by_policy(runs, Options(models=("agreement",)))
    _add_label_free(kept, runs)
    notes = []
    for held in sorted({_folder(finding) for finding in findings}):
        train = labels.Run("train", tuple(f for f in findings if _folder(f) != held), 3)
        profile = fit(every_rule, [train], f"labels: securibench-micro-js without {held}")
        test = labels.Run(held, tuple(f for f in findings if _folder(f) == held), 3)
        _merge_reliability(kept, [test], profile, verifier(folder))
        notes.append(held)
    notes = [
        "reliability rows: leave-one-folder-out, a profile fitted (on every rule, noise "
        f"included) on the other folders scores each of: {', '.join(notes)}"
    ]
    programs = [p.relative_to(folder).as_posix() for p in (folder / "test-cases").rglob("*.js")]
    assert isinstance(scored, LineLabels)
    units, split = by_program(scored, [*programs, *(f.evidence.file for f in findings)])
    title = "securibench-micro-js (noise rules left out of scoring):"
    return Table(
        title,
        score(scored, kept),
        notes,
        kept,
        units,
        "programs",
        split,
        _runs_of_programs(findings, 3),
        every_rule,
        True,
    )


def securibench_findings(folder: Path) -> list[NormalizedFinding]:
    findings: list[NormalizedFinding] = []
    for name in ("eslint", "njsscan", "semgrep"):
        path = folder / "sarif" / f"{name}.sarif"
        findings += read(Source(str(path), path.read_bytes())).findings
    return findings


def _folder(finding: NormalizedFinding) -> str:
    return finding.evidence.file.split("/")[1]


def bad_lines(folder: Path) -> str:
    """securibench's BAD markers as generic labels JSONL (one real line per marker)."""
    records = []
    for path in sorted((folder / "test-cases").rglob("*.js")):
        relative = path.relative_to(folder).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if BAD.search(line):
                records.append(json.dumps({"file": relative, "line": number, "real": True}))
    return "\n".join(records) + "\n"


def castle(folder: Path) -> Table:
    """The table for the five C analysers, with the README's k-of-5 votes."""
    findings: list[NormalizedFinding] = []
    for path in sorted((folder / "sarif").glob("*.sarif")):
        findings += read(Source(str(path), path.read_bytes())).findings
    label_set = labels.load(
        folder / "labels.jsonl", "jsonl", tolerance=CASTLE_TOLERANCE, any_category=True
    )
    runs = label_set.runs(findings, 5)
    kept = kept_by_policy(runs, Options(verifier=verifier(folder)))
    _add_label_free(kept, runs)
    for k, chosen in votes(findings, CASTLE_TOLERANCE).items():
        kept[f"vote >= {k} of 5 tools"] = [(runs[0], (finding,)) for finding in chosen]
    notes = ["votes: distinct tools whose spans, widened by 2, overlap"]
    dataset = folder / "datasets" / "CASTLE-C250"
    programs = [p.relative_to(folder).as_posix() for p in dataset.glob("*.c")]
    assert isinstance(label_set, LineLabels)
    units, split = by_program(label_set, [*programs, *(f.evidence.file for f in findings)])
    title = "castle-c250 (tolerance 2, any CWE):"
    return Table(
        title,
        score(label_set, kept),
        notes,
        kept,
        units,
        "programs",
        split,
        _runs_of_programs(findings, 5),
        label_set,
        False,
    )


def votes(findings: Sequence[NormalizedFinding], widen: int) -> dict[int, list[NormalizedFinding]]:
    """Each finding kept by the k-of-n votes it passes: k distinct tools' widened spans
    overlap its own (itself included), for k from 2 to 4."""
    by_file: dict[str, list[NormalizedFinding]] = {}
    for finding in findings:
        if finding.evidence.line is not None:
            by_file.setdefault(finding.evidence.file, []).append(finding)
    chosen: dict[int, list[NormalizedFinding]] = {k: [] for k in (2, 3, 4)}
    for group in by_file.values():
        for finding in group:
            start, end = _widened(finding, widen)
            tools = {
                other.bot
                for other in group
                if _widened(other, widen)[0] <= end and start <= _widened(other, widen)[1]
            }
            for k, kept in chosen.items():
                if len(tools) >= k:
                    kept.append(finding)
    return chosen


def _widened(finding: NormalizedFinding, widen: int) -> tuple[int, int]:
    line = finding.evidence.line or 0
    return line - widen, (finding.evidence.end_line or line) + widen


def timing(size: int, repeat: int) -> dict[str, float]:
    """Each model's best engine time over `repeat` alternating runs, each in its own process,
    on bench/consensus.py's realistic workload."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from consensus import realistic

    models = ("agreement", "reliability")
    best = dict.fromkeys(models, float("inf"))
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "findings.json"
        path.write_text(json.dumps(realistic(size, random.Random(size))))
        for _ in range(repeat):
            for model in models:
                best[model] = min(best[model], _child(path, model))
    return best


def _child(path: Path, model: str) -> float:
    command = [sys.executable, __file__, "--child", str(path), model]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(done.stdout)


def _time_model(path: Path, model: str) -> float:
    """The engine alone, the collector paused as `quorum` runs it."""
    from review_quorum._perf import paused_gc
    from review_quorum.ingest.native import READER

    with paused_gc():
        findings = READER.read(Source(str(path), path.read_bytes())).findings
        started = time.perf_counter()
        compute_consensus(findings, bots_ran=8, model=model)  # type: ignore[arg-type]
        return time.perf_counter() - started


def margins(table: Table) -> list[str]:
    """The default model's F1 against the best single tool and the best k-of-n vote, with
    the shipped profile and label-free, each with its bootstrap interval."""
    sources = [row for row in table.rows if row.kind == "source"]
    votes_ = [row for row in table.rows if VOTE.match(row.name)]
    rivals = [
        ("best single tool", max(sources, key=lambda row: row.metrics.f1)),
        ("best k-of-n vote", max(votes_, key=lambda row: row.metrics.f1)),
    ]
    draws = resamples(len(table.units))
    counts = {}
    for name in {
        KEPT,
        f"{KEPT}, label-free",
        *(f"source {row.name}" for row in sources),
        *(row.name for row in votes_),
    }:
        counts[name] = aligned(table.split(table.kept[name]), table.units)
    lines = [
        f"margins: F1 difference, 95% interval over {len(draws):,} bootstrap resamples of "
        f"the {len(table.units)} {table.unit_name}:"
    ]
    for model, profile in ((KEPT, "shipped profile"), (f"{KEPT}, label-free", "empty profile")):
        for what, rival in rivals:
            key = f"source {rival.name}" if rival.kind == "source" else rival.name
            gap = interval(counts[model], counts[key], draws)
            lines.append(
                f"  {KEPT} ({profile}) - {what} ({rival.name}, {rival.metrics.f1:.3f}): {gap}"
            )
    return lines


def learning_curve(table: Table) -> list[str]:
    """`--learn`: profiles fitted on 10%, 25% and 50% of the units score the rest."""
    best = max((row for row in table.rows if row.kind == "source"), key=lambda r: r.metrics.f1)
    corpus = Corpus(
        table.title.rstrip(":"),
        table.units,
        table.runs_of,
        table.fit_labels,
        table.split,
        best.name,
        table.kept[f"source {best.name}"],
    )
    lines = curve(corpus)
    if table.shipped_in_sample:
        lines.append(
            "  (the shipped profile was fitted on all of this corpus's labels: its figure is "
            "in-sample here, the learned one never is)"
        )
    return lines


def _summary(rows: Sequence[Row], name: str) -> str:
    row = next(row for row in rows if row.name == name)
    m = row.metrics
    return f"default model, {name}: P {m.precision:.3f} R {m.recall:.3f} F1 {m.f1:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).parents[1] / ".." / "shared")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=2, help="runs per model (best kept)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument(
        "--learn",
        action="store_true",
        help="instead of the tables: k-fold learning curves (fit on 10/25/50%%, score the rest)",
    )
    parser.add_argument("--verify-url", help="an OpenAI-compatible API root (docs/verifier.md)")
    parser.add_argument("--verify-model", help="the model the verifier asks")
    parser.add_argument("--verify-key-env", help="the variable holding the API key")
    args = parser.parse_args()
    if args.verify_url:
        VERIFY.update(url=args.verify_url, model=args.verify_model or "")
        VERIFY["key_env"] = args.verify_key_env or ""
    if args.child:
        print(_time_model(Path(args.child[0]), args.child[1]))
        return
    corpora = args.shared / "corpora"
    tables = [
        *(review_bots(corpora / "review-bots-dev", judge) for judge in ("opus", "gpt-5.2")),
        securibench(corpora / "securibench-micro-js"),
        castle(corpora / "castle-c250"),
    ]
    if args.learn:
        for table in tables:
            print("\n".join([table.title, *learning_curve(table)]) + "\n")
        return
    for table in tables:
        print(render_table(table.rows, table.title))
        print("\n".join([*table.notes, _summary(table.rows, KEPT), *margins(table)]) + "\n")
    times = timing(args.size, args.repeat)
    ratio = times["reliability"] / times["agreement"]
    print(
        f"{args.size:,} findings (engine alone, best of {args.repeat}): "
        f"agreement {times['agreement']:.4f} s, "
        f"reliability {times['reliability']:.4f} s, ratio {ratio:.2f}x"
    )


if __name__ == "__main__":
    main()
