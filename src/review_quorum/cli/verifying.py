"""The verifier's flags for `quorum review`, and `quorum verify PLAN.json -o verdicts.json`.

`add_arguments` registers the flags in one place; each has a configuration key of the
same name except `--verifier-cmd` (a configuration file never runs a command).
`apply` runs the verifier stage on a planned review when a URL or a command is given, and
re-plans with its verdicts. The API key is read from the environment variable that
`--verify-key-env` names, never from a flag. docs/verifier.md is the user's guide.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

import orjson

from review_quorum import config
from review_quorum.cli.common import (
    ExitCode,
    non_negative_int,
    read_bytes,
    warn,
    write_output,
)
from review_quorum.errors import InputError
from review_quorum.ingest.base import Source
from review_quorum.plan import ReviewPlan
from review_quorum.verifier.options import CACHE_NAME, VerifyOptions

if TYPE_CHECKING:
    from review_quorum.cli.record import Recorder
    from review_quorum.evaluate import Replan, Verifier
    from review_quorum.verifier.cache import Store

KEYS = (
    "verify-url",
    "verify-model",
    "verify-key-env",
    "verify-max",
    "verify-concurrency",
    "verify-timeout",
    "verify-budget-s",
    "verify-checkout",
    "verify-cache",
    "gate-on-verified",
)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, not {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser, *, review: bool = True) -> None:
    """The verifier's flags (docs/verifier.md)."""
    group = parser.add_argument_group("verifier (docs/verifier.md)")
    group.add_argument(
        "--verify-url", metavar="URL", help="OpenAI-compatible API root, e.g. http://host/v1"
    )
    group.add_argument("--verify-model", metavar="NAME", help="the model to ask")
    group.add_argument(
        "--verify-key-env",
        metavar="VAR",
        help="environment variable holding the API key (none for local servers)",
    )
    group.add_argument(
        "--verifier-cmd",
        metavar="CMD",
        help="a command reading drafter findings on stdin, writing verdicts on stdout",
    )
    group.add_argument(
        "--verify-max", type=non_negative_int, metavar="N", help="most clusters (default 10)"
    )
    group.add_argument(
        "--verify-concurrency", type=non_negative_int, metavar="N", help="requests at once (2)"
    )
    group.add_argument(
        "--verify-timeout", type=_seconds, metavar="S", help="seconds per request (60)"
    )
    group.add_argument(
        "--verify-budget-s", type=_seconds, metavar="S", help="seconds for all of it (300)"
    )
    group.add_argument(
        "--verify-checkout",
        metavar="DIR",
        help="the head checkout the code windows are read from (default .)",
    )
    group.add_argument(
        "--verify-cache", metavar="FILE", help=f"answers kept between runs (default {CACHE_NAME})"
    )
    if review:
        group.add_argument(
            "--gate-on-verified",
            action="store_true",
            default=None,
            help="let verdicts change the gate (default: the gate stays on consensus)",
        )


def _beside(path: str) -> str:
    """The verifier's cache in the folder of `path`."""
    from pathlib import Path

    return str(Path(path).parent / CACHE_NAME)


def options(args: argparse.Namespace, settings: dict[str, Any]) -> VerifyOptions:
    """The verifier's options: flags, then the configuration, then the defaults."""

    def value(key: str) -> Any:
        flag = getattr(args, key.replace("-", "_"), None)
        return flag if flag is not None else settings.get(key)

    defaults = VerifyOptions()
    cache = value("verify-cache")
    output = getattr(args, "output", None)
    if cache is None and output not in (None, "-"):
        cache = _beside(output)
    return VerifyOptions(
        url=value("verify-url"),
        model=value("verify-model"),
        key_env=value("verify-key-env"),
        command=getattr(args, "verifier_cmd", None),
        max_clusters=_or(value("verify-max"), defaults.max_clusters),
        concurrency=max(_or(value("verify-concurrency"), defaults.concurrency), 1),
        timeout=_or(value("verify-timeout"), defaults.timeout),
        budget_s=_or(value("verify-budget-s"), defaults.budget_s),
        checkout=_or(value("verify-checkout"), defaults.checkout),
        cache=cache,
        gate_on_verified=bool(value("gate-on-verified")),
    )


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def diff_text(diff: str | None, git: str | None = None) -> str | None:
    """The text of the diff `--diff` or `--git` names (the windows' hunks come from it)."""
    if diff:
        return Source(diff, read_bytes(diff)).data.decode("utf-8", "replace")
    if git:
        import subprocess

        command = ["git", "diff", "--no-color", "--no-ext-diff", git]
        done = subprocess.run(command, capture_output=True, check=False)
        return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None
    return None


def apply_to_review(
    chosen: VerifyOptions,
    diff: Callable[[], str | None],
    plan: ReviewPlan,
    replan: Replan,
    timed: AbstractContextManager[None] | None = None,
    recorder: Recorder | None = None,
    *,
    cache_given: bool = False,
) -> ReviewPlan:
    """`plan` verified and re-planned when a verifier is configured (`chosen`, the
    verifier's options read once by `options`), else `plan`.

    `diff` gives the diff's text (`diff_text`), read only when the stage runs; `timed`
    wraps the stage (the `-v` timings) only when it runs; with `recorder` (`--db`) and
    no `--verify-cache` (`cache_given`) the answers are kept in the history.
    """
    if not chosen.wanted:
        return plan
    if chosen.url and chosen.command:
        warn("--verify-url and --verifier-cmd both given: using --verifier-cmd")
        chosen = VerifyOptions(**{**_fields(chosen), "url": None})
    from review_quorum.verifier.stage import apply, verify  # only when a verifier runs

    keep = None if cache_given else recorder
    with timed or nullcontext(), history_store(keep) as store:
        verification = verify(plan, diff(), chosen, os.environ, store=store)
        for problem in verification.problems:
            warn(problem)
        return apply(plan, replan, verification, chosen)


@contextmanager
def history_store(recorder: Recorder | None) -> Iterator[Store | None]:
    """With `--db` (`recorder`), the answers kept in the history database; a caller
    given `--verify-cache` passes None."""
    if recorder is None:
        yield None
        return
    from review_quorum.history import open_history
    from review_quorum.history.answers import AnswerStore

    database = open_history(recorder.target)
    try:
        yield AnswerStore(database)
    finally:
        database.close()


def evaluator(args: argparse.Namespace) -> Verifier | None:
    """`quorum evaluate`'s verifier: each planned review verified (no diff: every finding
    counts as in it), or None without `--verify-url` or `--verifier-cmd`."""
    chosen = options(args, {})
    if not chosen.wanted:
        return None

    from review_quorum.verifier.stage import apply, verify

    def verified(plan: ReviewPlan, replan: Replan) -> ReviewPlan:
        verification = verify(plan, None, chosen, os.environ)
        return apply(plan, replan, verification, chosen)

    return verified


def _fields(chosen: VerifyOptions) -> dict[str, Any]:
    return {name: getattr(chosen, name) for name in chosen.__struct_fields__}


# --- quorum verify ---------------------------------------------------------------------


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="verify a saved plan's uncertain findings and write a verdicts file",
        description="Ask a verifier about the findings of a plan saved with "
        "`quorum review --format json`, and write what `quorum review --verdicts` reads.",
    )
    parser.add_argument("plan", metavar="PLAN.json", help="a plan saved by quorum review")
    parser.add_argument("--diff", metavar="FILE", help="the pull request's unified diff")
    parser.add_argument("-o", "--output", help="write the verdicts to this file")
    parser.add_argument("--config", metavar="FILE", help="configuration file to read")
    add_arguments(parser, review=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from review_quorum.saved_plan import read_saved_plan
    from review_quorum.verifier.stage import verify

    settings = config.load(args.config or None)
    source = "<stdin>" if args.plan == "-" else args.plan
    plan_file = Source(source, read_bytes(args.plan))
    plan = read_saved_plan(plan_file.json(), source, data=plan_file.data)
    chosen = options(args, settings)
    if args.verify_cache is None and args.plan != "-":
        beside = _beside(args.plan)  # the plan's folder, not -o's
        chosen = VerifyOptions(**{**_fields(chosen), "cache": beside})
    if not chosen.wanted:
        wanted = "give --verify-url (and --verify-model) or --verifier-cmd"
        raise InputError("quorum verify", "", wanted)
    verification = verify(plan, diff_text(args.diff), chosen, os.environ)
    for problem in verification.problems:
        warn(problem)
    verdicts = [
        {
            "verdict": item.verdict.verdict.value,
            "file": item.file,
            "line": item.line,
            "severity": item.verdict.severity.value,
            "in_changed_code": item.verdict.in_changed_code,
            "evidence_strength": item.verdict.evidence_strength.value,
            "context_completeness": item.verdict.context_completeness.value,
            "issue": item.verdict.issue,
            "details": item.verdict.details,
        }
        for item in verification.verdicts
    ]
    audit = [
        {
            "file": plan.findings[o.index].finding.file,
            "line": plan.findings[o.index].finding.line,
            "verdict": o.verdict,
            "why_not_applied": o.reason,
        }
        for o in verification.outcomes
        if o.status == "audit"
    ]
    document = {"verdicts": verdicts, "not_applied": audit}
    write_output(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n", args.output)
    counts = dict.fromkeys(("verified", "cached", "not verified", "skipped", "audit"), 0)
    failures: dict[str, int] = {}
    for outcome in verification.outcomes:
        counts[outcome.status] += 1
        if outcome.status == "not verified":
            failures[outcome.reason] = failures.get(outcome.reason, 0) + 1
    why = ", ".join(f"{reason}: {n}" for reason, n in failures.items())
    summary = ", ".join(
        f"{n} {status}" + (f" ({why})" if status == "not verified" and why else "")
        for status, n in counts.items()
    )
    print(f"quorum verify: {summary}", file=sys.stderr)
    return ExitCode.OK
