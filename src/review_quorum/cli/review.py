"""`quorum review`: findings from any mix of sources -> one consolidated review -> a gate.

Settings come from flags, then the configuration file, then the defaults. The review is
planned by `review_quorum.plan.review` and rendered by the chosen `--format`. With `--db`
the run is recorded in the history store (`cli.record`).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec
import orjson

from review_quorum import config, ingest
from review_quorum.baseline import GATE_ON
from review_quorum.cli import history_review, progress, verifying
from review_quorum.cli.azure_devops_input import add_azure_devops_arguments, read_azure_devops
from review_quorum.cli.bitbucket_input import add_bitbucket_arguments, read_bitbucket
from review_quorum.cli.common import (
    HELP,
    ExitCode,
    InputFiles,
    PullSource,
    add_input_arguments,
    add_model_arguments,
    fraction,
    gate_level,
    keep_until_exit,
    load_inputs,
    load_profile,
    load_verdicts,
    non_negative_int,
    read_bytes,
    resolve_bots,
    warn,
    write_chunks,
    write_output,
)
from review_quorum.cli.github_input import add_github_arguments, read_github
from review_quorum.cli.gitlab_input import add_gitlab_arguments, read_gitlab
from review_quorum.cli.post import add_post_arguments, deliver
from review_quorum.cli.posting import PostingOptions
from review_quorum.cli.record import Recorder, add_record_arguments, full_sha, open_reading
from review_quorum.errors import ConfigError, InputError
from review_quorum.identity import CodeLines
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.ingest.categories import CategoryMap, build_category_map
from review_quorum.model import ConsensusLevel, NormalizedFinding
from review_quorum.plan import (
    AwaitedBots,
    BotCoverage,
    ReviewPlan,
    Settings,
    review,
    voters,
)
from review_quorum.render.formats import RENDERERS
from review_quorum.scope import DiffScope, FilterMode
from review_quorum.scoring import DEFAULT_MODEL
from review_quorum.scoring.confidence import describe_threshold
from review_quorum.scoring.profile import Profile

DEFAULTS: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "line-window": 3,
    "title-overlap": 0.5,
    "order": "input",
    "filter-mode": "added",
    "context-lines": 3,
    "cap": 5,
    "inline-level": "confirmed",
    "gate-level": "confirmed",
    "format": "markdown",
    "inline-mode": "post",
    "gate-on": "new",
}


class ReviewInputs(msgspec.Struct, frozen=True):
    """What `quorum review` reads besides its finding files (`InputFiles`) and settings,
    taken from the command line once: the diff, verdicts, baseline, checkout, history
    and the pull request's comments."""

    diff: str | None = None
    git: str | None = None  # BASE..HEAD
    verdicts: str | None = None
    baseline: tuple[str, ...] | None = None
    baseline_db: str | None = None
    checkout: str | None = None
    input_format: str | None = None
    db: str | None = None
    verify_cache: str | None = None  # the flag (given, the answers stay out of the history)
    pull: PullSource = msgspec.field(default_factory=PullSource)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ReviewInputs:
        return cls(
            diff=args.diff,
            git=args.git,
            verdicts=args.verdicts,
            baseline=tuple(args.baseline) if args.baseline is not None else None,
            baseline_db=args.baseline_db,
            checkout=args.checkout,
            input_format=args.input_format,
            db=args.db,
            verify_cache=args.verify_cache,
            pull=PullSource.from_args(args),
        )

    def baseline_sources(self) -> list[str]:
        """What the baseline was read from, as the output names it."""
        named = list(self.baseline or ())
        return [f"history run of {self.baseline_db}", *named] if self.baseline_db else named


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "review",
        help="plan one consolidated pull request review and gate on it",
        description="Consolidate findings from many bots into one review of a pull request.",
    )
    add_input_arguments(parser)
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--diff", metavar="FILE", help="the pull request's unified diff")
    scope.add_argument("--git", metavar="BASE..HEAD", help="take the diff from git")
    parser.add_argument("--verdicts", metavar="FILE", help="verifier verdicts (JSON)")
    parser.add_argument(
        "--baseline",
        nargs="+",
        metavar="FILE",
        help="the base branch's findings (any input format, or a saved plan): findings "
        "it already has are pre-existing, listed apart and, by default, not gated on",
    )
    parser.add_argument(
        "--baseline-db",
        type=full_sha,
        metavar="SHA",
        help="the baseline is the run the history recorded for commit SHA (the merge-base "
        "of the pull request: git merge-base BASE HEAD) in the repository --repo names "
        "(default: $GITHUB_REPOSITORY), read from --db or the default history database",
    )
    parser.add_argument(
        "--gate-on",
        choices=GATE_ON,
        help="with --baseline: gate on new and updated findings only (new, the default) "
        "or on all findings (all)",
    )
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        help="the head commit's checkout, read for the text of flagged lines that findings' "
        "identities are made of (default: --root; with --git, the current directory; "
        "else the diff's lines)",
    )
    parser.add_argument("--bots", help="how many bots ran (N), or their names (a,b,c)")
    parser.add_argument(
        "--line-window", type=non_negative_int, metavar="N", help=HELP["line-window"]
    )
    parser.add_argument("--title-overlap", type=fraction, metavar="X", help=HELP["title-overlap"])
    parser.add_argument("--order", choices=["input", "canonical"], help=HELP["order"])
    parser.add_argument("--filter-mode", choices=config.FILTER_MODES, help=HELP["filter-mode"])
    parser.add_argument(
        "--context-lines", type=non_negative_int, metavar="N", help=HELP["context-lines"]
    )
    parser.add_argument("--threshold", metavar="VALUE", help="post threshold: 30-100 or a band")
    parser.add_argument(
        "--cap", type=non_negative_int, metavar="N", help="most non-forced inline comments"
    )
    parser.add_argument("--inline-level", choices=config.LEVELS, help=HELP["inline-level"])
    parser.add_argument("--gate-level", choices=[*config.LEVELS, "none"], help=HELP["gate-level"])
    parser.add_argument("--format", choices=sorted(RENDERERS), help="output (default markdown)")
    add_model_arguments(parser, default=None)
    parser.add_argument("-o", "--output", help="write the result to this file")
    parser.add_argument("--config", metavar="FILE", help="configuration file to read")
    parser.add_argument("-v", "--verbose", action="store_true", help="print stage timings")
    parser.add_argument(
        "--post",
        action="store_true",
        help="deliver the review with the configuration's reporter (default github-review: "
        "one review and the sticky summary on GitHub); --reporter implies --post",
    )
    add_post_arguments(parser)
    add_github_arguments(parser)
    add_gitlab_arguments(parser)
    add_azure_devops_arguments(parser)
    add_bitbucket_arguments(parser)
    add_record_arguments(parser)
    verifying.add_arguments(parser)
    parser.set_defaults(run=run)


class Stages:
    """Wall time per stage, printed with -v; what a long stage is doing, on the ticker."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.times: list[tuple[str, float]] = []
        self.ticker = progress.Ticker()

    @contextmanager
    def stage(self, name: str, doing: str = "") -> Iterator[None]:
        """Time the block; `doing` is shown while it lasts long ("": the stage shows its
        own progress, as reading and posting do)."""
        self.ticker.stage(doing)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.times.append((name, time.perf_counter() - started))

    def report(self) -> None:
        if self.verbose:
            for name, seconds in self.times:
                print(f"quorum: {name:<10} {seconds * 1000:9.1f} ms", file=sys.stderr)


def effective(args: argparse.Namespace, settings: dict[str, Any], key: str) -> Any:
    flag = getattr(args, key.replace("-", "_"), None)
    if flag is not None:
        return flag
    return settings.get(key, DEFAULTS.get(key))


def _threshold(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    value = args.threshold
    if value is None:
        value = os.environ.get("CONFIDENCE_THRESHOLD", settings.get("threshold"))
    choice = describe_threshold(value)
    if not choice.recognized:
        warn(f"threshold {value!r} not recognized; using {choice.score}")
    return choice.score


def build_settings(
    args: argparse.Namespace,
    file_settings: dict[str, Any],
    seen: set[str],
    awaited: AwaitedBots | None = None,
    covered: Sequence[BotCoverage] = (),
    recorder: Recorder | None = None,
) -> Settings:
    gate = effective(args, file_settings, "gate-level")
    bots = effective(args, file_settings, "bots")
    if bots is None:
        named = voters(seen, awaited, covered)  # the plan decides who votes
        # No voter at all (nothing found, every awaited bot missing): no count to give.
        bots = ",".join(named) if named else None
    return Settings(
        bots_ran=resolve_bots(bots, seen),
        line_window=effective(args, file_settings, "line-window"),
        title_overlap=effective(args, file_settings, "title-overlap"),
        order=effective(args, file_settings, "order"),
        filter_mode=FilterMode(effective(args, file_settings, "filter-mode")),
        context_lines=effective(args, file_settings, "context-lines"),
        post_threshold=_threshold(args, file_settings),
        comment_cap=effective(args, file_settings, "cap"),
        inline_level=ConsensusLevel.parse(effective(args, file_settings, "inline-level")),
        gate_level=gate_level(gate),
        model=effective(args, file_settings, "model"),
        profile=_profile(args, file_settings, recorder),
        inline_mode=effective(args, file_settings, "inline-mode"),
        gate_on=effective(args, file_settings, "gate-on"),
    )


def _profile(
    args: argparse.Namespace, file_settings: dict[str, Any], recorder: Recorder | None
) -> Profile | None:
    """`--profile`, else (with `--db`) the profile the history supports, else the default."""
    profile = load_profile(effective(args, file_settings, "profile"))
    if profile is None and recorder is not None:
        return recorder.profile(file_settings)
    return profile


def load_diff(inputs: ReviewInputs) -> DiffScope | None:
    """The diff `--diff` or `--git` names; an empty one is an error, since every finding
    would fall out of scope and the gate would pass on nothing."""
    if inputs.diff:
        # a diff may quote files in any encoding: only the byte-order mark is decided here
        text = Source(inputs.diff, read_bytes(inputs.diff)).data.decode("utf-8", "replace")
        return _parse_diff(text, inputs.diff)
    if inputs.git:
        if ".." not in inputs.git:
            raise InputError("--git", "", f"expected BASE..HEAD, not {inputs.git!r}")
        import subprocess  # only for --git: it costs every other run's start-up

        command = ["git", "diff", "--no-color", "--no-ext-diff", inputs.git]
        try:
            done = subprocess.run(command, capture_output=True, check=False)
        except OSError as err:
            raise InputError("--git", "", f"cannot run git: {err}") from err
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise InputError("--git", "", f"git diff failed: {message}")
        return _parse_diff(done.stdout.decode("utf-8", "replace"), f"git diff {inputs.git}")
    return None


def _parse_diff(text: str, source: str) -> DiffScope:
    if not text.strip():
        raise InputError(
            source, "line 1", "the diff is empty: no file changed, so nothing could be in scope"
        )
    return DiffScope.parse(text, source=source)


def load_baseline(
    inputs: ReviewInputs,
    file_settings: Mapping[str, Any],
    categories: CategoryMap | None,
    bot_logins: Mapping[str, str],
    root: str | None = None,
) -> list[NormalizedFinding] | None:
    """The base branch's findings `--baseline` names: each file in any input format (or
    a saved plan: its findings' members); a file with nothing in it is an error naming it."""
    findings: list[NormalizedFinding] = []
    if inputs.baseline_db:
        findings.extend(_recorded(inputs.db, inputs.baseline_db, inputs.pull.repo, file_settings))
    if not inputs.baseline:
        return findings if inputs.baseline_db else None
    for path in inputs.baseline:
        options = ReadOptions(root=root, categories=categories, bot_logins=bot_logins)
        source = Source(path, read_bytes(path), options)  # as UTF-8, whatever it was written in
        plan = _saved_plan(source.data, path)
        if plan is not None:
            read = [m for item in plan.findings for m in item.finding.members]
        else:
            batch = ingest.read(source, inputs.input_format)
            read = list(batch.findings)
            if not read and batch.skipped:
                first = batch.skipped[0]
                raise InputError(path, first.position, f"no baseline finding: {first.reason}")
        findings.extend(read)
    return findings


def _recorded(
    db: str | None, commit: str, repo: str | None, file_settings: Mapping[str, Any]
) -> list[NormalizedFinding]:
    """The findings of the run the history recorded for `--baseline-db SHA` in the
    repository under review (`--repo`, else $GITHUB_REPOSITORY): a run of another
    repository recorded in the same database is never taken."""
    from review_quorum.github.target import PullRequest
    from review_quorum.history.base_run import findings_of, run_at

    named = repo or os.environ.get("GITHUB_REPOSITORY", "").strip()
    if not named:
        raise ConfigError(
            "--baseline-db: name the repository under review with --repo OWNER/NAME (or run "
            "in GitHub Actions): a history may hold runs of several repositories"
        )
    repository = PullRequest.create(named, 1)
    database = open_reading(db, file_settings)
    try:
        run_id = run_at(database, commit, repository.owner, repository.repo)
        if run_id is None:
            raise InputError(
                "--baseline-db",
                "",
                f"the history has no run of commit {commit} in "
                f"{repository.owner}/{repository.repo}",
            )
        return findings_of(database, run_id)
    finally:
        database.close()


def _saved_plan(data: bytes, path: str) -> ReviewPlan | None:
    """`data` as a saved plan, if it is one (a JSON object with `settings` and
    `github_review`); a broken one is an error naming the file and place."""
    if not data.lstrip().startswith(b"{") or b'"github_review"' not in data:
        return None
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, dict) or not {"settings", "github_review"} <= document.keys():
        return None
    from review_quorum.saved_plan import read_saved_plan  # and the verifier stage it restores

    return read_saved_plan(document, path, data=data)


def check_baseline(
    paths: Sequence[str],
    base: Sequence[NormalizedFinding],
    plan: ReviewPlan,
    diff: DiffScope | None,
    lines: CodeLines,
) -> None:
    """A baseline that names none of this review's files (its findings, the diff's, the
    checkout's) is another repository's, or read with another `--root`: an error."""
    files = {finding.evidence.file for finding in base if finding.evidence.file}
    if not files:
        return
    known = {item.finding.file for item in plan.findings}
    if diff is not None:
        known.update(diff.files)
        known.update(c.old_path for c in diff.files.values() if c.old_path)
    if files & known or any(lines.has_file(file) for file in sorted(files)[:1000]):
        return
    if not known and not lines.has_root:
        return  # nothing to compare with
    example = sorted(files)[0]
    raise InputError(
        ", ".join(paths),
        "",
        f"the baseline names none of the files of this review (such as {example!r}): "
        "is it another repository's, or read with another --root?",
    )


def code_lines(inputs: ReviewInputs, diff: DiffScope | None, root: str | None = None) -> CodeLines:
    """Where the text of flagged lines comes from: the checkout, else the diff."""
    checkout = inputs.checkout or root or ("." if inputs.git else None)
    return CodeLines(root=checkout, diff=diff)


def plan_review(
    args: argparse.Namespace, stages: Stages
) -> tuple[ReviewPlan, dict[str, Any], Recorder | None, CodeLines]:
    """The plan, the configuration read, the history recorder `--db` asks for, and the
    head's code the identities were made from (which posting compares gone findings with)."""
    file_settings = config.load(args.config or None)
    files = InputFiles.from_args(args, root=file_settings.get("root"))
    inputs = ReviewInputs.from_args(args)
    recorder = Recorder.from_args(args, file_settings)
    with stages.stage("read"):
        categories = file_settings.get("categories")
        category_map = build_category_map(categories) if categories else None
        bot_logins = file_settings.get("bot-logins") or {}
        services = inputs.pull.services
        remote = bool(services)
        batch = load_inputs(files, categories=category_map, bot_logins=bot_logins, elsewhere=remote)
        pulled = None
        if len(services) > 1:
            given, count = " and ".join(services), ("two", "three", "four")[len(services) - 2]
            raise ConfigError(f"{given} read {count} different services: give one")
        if remote:
            options = ReadOptions(
                root=files.root,
                categories=category_map,
                include_humans=files.include_humans,
                bot_logins=bot_logins,
                own_login=files.own_login,
            )
            pull = inputs.pull
            if pull.wants("--github"):
                pulled = read_github(pull, options, triage=recorder is not None)
                batch.extend(pulled.batch)
            triagers = (file_settings.get("triagers") or []) if recorder is not None else None
            if pull.wants("--gitlab"):
                pulled = read_gitlab(pull, options, triagers=triagers)
                batch.extend(pulled.batch)
            if pull.wants("--azure-devops"):
                pulled = read_azure_devops(pull, options, triagers=triagers)
                batch.extend(pulled.batch)
            if pull.wants("--bitbucket"):
                pulled = read_bitbucket(pull, options, triagers=triagers)
                batch.extend(pulled.batch)
        diff = load_diff(inputs)
        verdicts = load_verdicts(inputs.verdicts)
        base = load_baseline(inputs, file_settings, category_map, bot_logins, files.root)
    awaited = pulled.awaited if pulled is not None else None
    covered = history_review.coverage_for(recorder, pulled, file_settings, batch.findings)
    triage = history_review.triage_for(recorder, pulled)
    seen = {f.bot for f in batch.findings}
    settings = build_settings(args, file_settings, seen, awaited, covered, recorder)
    lines = code_lines(inputs, diff, files.root)
    planned = functools.partial(
        review,
        batch.findings,
        settings=settings,
        diff=diff,
        verdicts=verdicts,
        skipped=batch.skipped,
        lines=lines,
        baseline=base,
        baseline_sources=inputs.baseline_sources(),
        triage=triage,
        coverage=covered,
    )
    with stages.stage("plan", f"planning the review of {len(batch.findings):,} findings"):
        plan = planned()
    if base is not None:
        check_baseline(inputs.baseline_sources(), base, plan, diff, lines)
    elif args.gate_on is not None or "gate-on" in file_settings:
        warn(
            "no --baseline: the gate counts every finding in the diff scope (gate-on applies "
            "only with a baseline)"
        )
    plan = verifying.apply_to_review(
        verifying.options(args, file_settings),
        lambda: verifying.diff_text(inputs.diff, inputs.git),
        plan,
        lambda more: planned(verdicts_at=more),
        stages.stage("verify", "asking the verifier"),
        recorder,
        cache_given=inputs.verify_cache is not None,
    )
    if pulled is not None:
        plan = msgspec.structs.replace(
            plan, awaited=pulled.awaited, commit_id=pulled.head_sha or None
        )
    return plan, file_settings, recorder, lines


def run(args: argparse.Namespace) -> int:
    stages = Stages(args.verbose)
    stages.ticker.start()
    recorder: Recorder | None = None
    try:
        plan, file_settings, recorder, lines = plan_review(args, stages)
        output_format = effective(args, file_settings, "format")
        with stages.stage("render", f"writing the {output_format} report"):
            _write(plan, output_format, args.output)
        keep_until_exit(plan)
        if plan.skipped:
            warn(f"{len(plan.skipped)} input record(s) skipped (listed in the JSON report)")
        if recorder is not None:
            with stages.stage("record", "recording the run in the history"):
                recorder.record(plan)
    except BaseException:
        if recorder is not None:
            recorder.discard_if_new()  # a failed first recording leaves no empty history
        raise
    finally:
        stages.ticker.stop()
    if args.post or args.reporter not in (None, "local"):
        with stages.stage("post"):
            reading = ReadOptions(
                include_humans=args.include_humans,
                bot_logins=file_settings.get("bot-logins") or {},
            )
            posted = deliver(
                PostingOptions.from_args(args, file_settings),
                plan,
                "quorum review",
                file_settings,
                default="github-review",
                written=True,
                reading=reading,
                lines=lines,
            )
        if posted != ExitCode.OK:
            stages.report()
            return posted
    stages.report()
    return ExitCode.GATE_FAILED if plan.gate.failed else ExitCode.OK


def _write(plan: ReviewPlan, output_format: str, output: str | None) -> None:
    if output_format == "json":  # written as it is made: a report can be gigabytes
        from review_quorum.render import json_report

        write_chunks(json_report.chunks(plan), output)
        return
    if output_format == "terminal":
        from review_quorum.render import terminal

        color = (output in (None, "-")) and sys.stdout.isatty()
        text = terminal.render(plan, color=color, width=terminal_width())
    else:
        text = RENDERERS[output_format](plan)
    write_output(text, output)


MAX_WIDTH = 10_000
"""The widest table drawn (`COLUMNS` beyond it is no terminal): rich pads lines to it."""


def terminal_width(fallback: int = 120) -> int:
    """`COLUMNS` (at most `MAX_WIDTH`), else the width of the terminal standard output or,
    piped (``| less``), standard error is on, else `fallback`."""
    columns = os.environ.get("COLUMNS", "").lstrip("0")
    if columns.isascii() and columns.isdigit():  # int() takes no more than 4,300 digits
        return min(int(columns), MAX_WIDTH) if len(columns) <= 5 else MAX_WIDTH
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            width = os.get_terminal_size(stream.fileno()).columns if stream else 0
        except (AttributeError, OSError, ValueError):
            continue
        if width > 0:
            return width
    return fallback
