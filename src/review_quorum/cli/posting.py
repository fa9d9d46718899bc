"""Posting a plan, shared by `quorum post`, `quorum review --post` and the reporters: the
posting options read once from the command line (`PostingOptions`, which the reporters
get instead of the parsed arguments), the HTTP client every command posts with
(`make_http_client`), a plan posted to a GitHub pull request as those options say
(`post_to_github`), the review event
(`choose_event`: COMMENT, or REQUEST_CHANGES when `--request-changes-on LEVEL` is given
and the plan has findings at or above LEVEL; never an approval), and what a run reports
afterwards (`report_outcome`). httpx and the platform clients are imported only when
something is posted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from review_quorum.cli import progress
from review_quorum.cli.common import ExitCode, warn, write_output
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import ReadOptions
from review_quorum.model import ConsensusLevel
from review_quorum.plan import InlineMode, ReviewPlan, gate_at

if TYPE_CHECKING:
    import httpx

    from review_quorum.checked_plan import CheckedPlan, Fresh
    from review_quorum.delivery.draft import ReviewDraft
    from review_quorum.identity import CodeLines


class PostingOptions(msgspec.Struct, frozen=True):
    """Where and how a plan is posted: the options `cli.post.add_post_arguments` defines,
    read once, with the check run's name from the configuration when not given."""

    reporter: str | None = None
    check_name: str | None = None
    repo: str | None = None
    pr: int | None = None
    project: str | None = None
    mr: int | None = None
    organization: str | None = None  # Azure DevOps
    bot_login: str | None = None
    resolve_fixed: bool = False
    hide_duplicates: bool = False
    inline_mode: InlineMode | None = None
    dry_run: bool = False
    request_changes_on: str | None = None
    output: str | None = None  # `local`: where the markdown goes (`quorum review -o`)

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, file_settings: Mapping[str, Any]
    ) -> PostingOptions:
        """The posting options of a parsed command line and its configuration."""
        check_name = args.check_name
        if check_name is None:
            check_name = file_settings.get("check-name")
        return cls(
            reporter=args.reporter,
            check_name=check_name,
            repo=args.repo,
            pr=args.pr,
            project=args.project,
            mr=args.mr,
            organization=getattr(args, "organization", None),
            bot_login=args.bot_login,
            resolve_fixed=args.resolve_fixed,
            hide_duplicates=args.hide_duplicates,
            inline_mode=args.inline_mode,
            dry_run=args.dry_run,
            request_changes_on=args.request_changes_on,
            output=getattr(args, "output", None),  # `quorum post` has no -o
        )


def post_to_github(
    options: PostingOptions,
    plan: ReviewPlan,
    source: str,
    *,
    env: Mapping[str, str] | None = None,
    http: httpx.Client | None = None,
    reading: ReadOptions | None = None,
    rebuild: Callable[[Fresh], CheckedPlan] | None = None,
    lines: CodeLines | None = None,
) -> int:
    """Post `plan` (`source` names it) as `options` say; returns the exit status.
    `reading` goes to `post_review`, and `rebuild` too, as the maker of the draft of the
    checked plan, which gets its event and the head's code `lines` the same way."""
    # Imported here so that commands which never post do not pay for httpx.
    from review_quorum.github import GitHubClient, post_review, resolve_target

    env = os.environ if env is None else env
    draft = _draft(plan, source, options, lines=lines)
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    if options.inline_mode is not None and options.inline_mode != draft.inline_mode:
        raise ConfigError(
            f"--inline-mode {options.inline_mode}: the plan was made with --inline-mode "
            f"{draft.inline_mode}; make it again with --inline-mode {options.inline_mode}"
        )
    target = resolve_target(options.repo, options.pr, env)
    owned = http is None
    http_client = make_http_client() if http is None else http
    try:
        client = GitHubClient.from_env(
            http_client, env, dry_run=options.dry_run, on_wait=progress.note
        )
        with nullcontext() if client.offline else progress.stage(f"posting to {target}"):
            result = post_review(
                client,
                target,
                draft,
                resolve_fixed=options.resolve_fixed,
                hide_duplicates=options.hide_duplicates,
                dry_run=options.dry_run,
                bot_login=options.bot_login,
                env=env,
                reading=reading,
                rebuild=None if rebuild is None else _redraft(rebuild, source, options, lines),
            )
    finally:
        if owned:
            http_client.close()
    return report_outcome(options.dry_run, client, result, "GITHUB_TOKEN")


class _Client(Protocol):
    @property
    def unsent(self) -> list[httpx.Request]: ...

    @property
    def offline(self) -> bool: ...


class _Outcome(Protocol):
    @property
    def warnings(self) -> tuple[str, ...]: ...

    def describe(self) -> str: ...


def report_outcome(dry_run: bool, client: _Client, result: _Outcome, variable: str) -> int:
    """After posting: the unsent requests of a dry run on standard output, the warnings and
    the one-line result on standard error."""
    from review_quorum.github.client import format_request

    if dry_run:
        write_output("".join(f"{format_request(request)}\n" for request in client.unsent), None)
        if client.offline:
            warn(f"no {variable}: nothing was read, so this shows a first run")
    for message in result.warnings:
        warn(message)
    print(f"quorum: {result.describe()}", file=sys.stderr)
    return ExitCode.OK


def _draft(
    plan: ReviewPlan,
    source: str,
    options: PostingOptions,
    mismatched: int = 0,
    *,
    lines: CodeLines | None = None,
) -> ReviewDraft:
    from review_quorum.delivery.draft import ReviewDraft

    event = choose_event(plan, options.request_changes_on)
    return ReviewDraft.from_plan(
        plan, source=source, event=event, mismatched=mismatched, lines=lines
    )


def _redraft(
    rebuild: Callable[[Fresh], CheckedPlan],
    source: str,
    options: PostingOptions,
    lines: CodeLines | None = None,
) -> Callable[[Fresh], ReviewDraft]:
    """The draft of the plan `rebuild` checks against the comments the poster reads."""

    def rebuilt(fresh: Fresh) -> ReviewDraft:
        checked = rebuild(fresh)
        draft = _draft(checked.plan, source, options, len(checked.mismatched), lines=lines)
        for skipped in draft.skipped:
            warn(f"not posted: {skipped.describe()}")
        return draft

    return rebuilt


def choose_event(plan: ReviewPlan, request_changes_on: str | None) -> str:
    """COMMENT, or REQUEST_CHANGES when opted in and the plan's gate at that level (whatever
    level it was gated at) counts findings."""
    if request_changes_on is None:
        return "COMMENT"
    failed = gate_at(plan.findings, ConsensusLevel.parse(request_changes_on)).failed
    return "REQUEST_CHANGES" if failed else "COMMENT"


def make_http_client() -> httpx.Client:
    """The HTTP client `quorum post` uses; tests replace this function."""
    import importlib.metadata

    import httpx

    try:
        version = importlib.metadata.version("review-quorum")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return httpx.Client(
        timeout=httpx.Timeout(30.0, connect=10.0),
        headers={"User-Agent": f"review-quorum/{version}"},
    )
