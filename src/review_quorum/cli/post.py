"""`quorum post`: deliver a saved review plan to a GitHub pull request, idempotently.

`quorum post PLAN.json` reads what `quorum review --format json` wrote and posts it with
`review_quorum.github.post_review`. The plan may come from someone else (a fork's
artifact): it is rebuilt from its findings (`review_quorum.saved_plan`, which refuses a
plan whose structure is off) and every body is rendered afresh, never taken from the
file. `add_post_arguments` and `post_from_args` let `quorum review --post` do the same
without a file. The review event is decided here: a COMMENT, or REQUEST_CHANGES when
`--request-changes-on LEVEL` is given and the plan has findings at or above LEVEL; this
command never approves. `--hide-duplicates` minimizes the bots' comments that repeat a
reported finding; `--inline-mode` must agree with the plan's (a plan made with
`--inline-mode link` posts no inline comments of its own, its summary links to the bots'
comments instead). `--dry-run` performs the reads
(when a token is available) and prints every write request instead of sending it, with the
Authorization header redacted. The printed requests go to standard output, the one-line
result to standard error. A saved plan's bot findings are checked against the comments
the posting run reads from GitHub: the plan is a proposal (`checked_plan`), every finding
from a bot is rebuilt from GitHub's comments, the plan adds only its analysers' findings,
what it claims of a bot that no comment says is left out and counted, and only comments
the posted review shows are hidden. Its verdicts are not used (`--verdicts FILE` gives the
run its own) and its gate only lowers this run's (`--gate-level`, else the
configuration's). The review goes on the head commit GitHub names, and a plan about
another commit is not posted. The configuration found in the working directory says
which bot each login is, as for `quorum review`. GitHub failures raise `GitHubError` and
exit 2. httpx and the GitHub client are imported only when something is posted. With
`--db` the plan is recorded in the history as a run (see `cli.record`), except in a dry
run.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, Protocol

from review_quorum import config
from review_quorum.cli import progress
from review_quorum.cli.common import ExitCode, read_bytes, warn, write_output
from review_quorum.cli.gitlab_input import add_merge_request_arguments
from review_quorum.cli.record import Recorder, add_record_arguments
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.model import ConsensusLevel
from review_quorum.plan import INLINE_MODES, ReviewPlan, gate_at

if TYPE_CHECKING:
    import httpx

    from review_quorum.checked_plan import CheckedPlan, Fresh
    from review_quorum.github import PullRequest, ReviewDraft

LEVELS = [level.value for level in ConsensusLevel]


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "post",
        help="post a saved review plan to a GitHub pull request",
        description=(
            "Post a plan saved by `quorum review --format json` as one review plus one sticky "
            "summary comment. Re-running never duplicates a comment. Needs GITHUB_TOKEN."
        ),
    )
    parser.add_argument("plan", metavar="PLAN.json", help="the plan ('-' reads standard input)")
    parser.add_argument(
        "--verdicts",
        metavar="FILE",
        help="this run's own verifier verdicts (JSON); a plan's own verdicts are not used",
    )
    parser.add_argument(
        "--gate-level",
        choices=[*config.LEVELS, "none"],
        help="this run's gate (default: the configuration's gate-level, else confirmed); "
        "a plan may lower it, never lift it",
    )
    add_post_arguments(parser)
    add_record_arguments(parser)
    parser.set_defaults(run=run)


def add_post_arguments(parser: argparse.ArgumentParser) -> None:
    """The posting options shared by `quorum post` and `quorum review --post`."""
    group = parser.add_argument_group("posting to GitHub")
    group.add_argument(
        "--reporter",
        choices=config.REPORTERS,
        help="where the review goes (default: the configuration's reporter, else github-review)",
    )
    group.add_argument(
        "--check-name",
        metavar="NAME",
        help="github-check: the check run's name (default: the configuration's check-name, "
        "else review-quorum)",
    )
    group.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    add_merge_request_arguments(group)
    group.add_argument(
        "--pr", type=_pull_number, metavar="N", help="default: the Actions event's pull request"
    )
    group.add_argument(
        "--bot-login",
        metavar="LOGIN",
        help="the login the token posts as, when GET /user cannot say (app tokens)",
    )
    group.add_argument(
        "--resolve-fixed",
        action="store_true",
        help="mark our earlier comments whose finding is gone as fixed and resolve their threads",
    )
    group.add_argument(
        "--hide-duplicates",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="minimize the bots' comments that repeat a finding quorum reports (shown again "
        "when the finding changes; humans' comments and replied threads are never hidden)",
    )
    group.add_argument(
        "--inline-mode",
        choices=INLINE_MODES,
        help="post: quorum's own inline comments (default); link: none, the summary links each "
        "finding to the bot comment that raised it",
    )
    group.add_argument(
        "--dry-run",
        action="store_true",
        help="print the write requests instead of sending them",
    )
    group.add_argument(
        "--request-changes-on",
        choices=LEVELS,
        metavar="LEVEL",
        help=f"request changes when findings at or above LEVEL exist ({', '.join(LEVELS)})",
    )


def run(args: argparse.Namespace) -> int:
    from review_quorum.checked_plan import check_plan
    from review_quorum.cli.review import load_verdicts
    from review_quorum.github import resolve_target
    from review_quorum.saved_plan import read_saved_plan

    source = "<stdin>" if args.plan == "-" else args.plan
    document = Source(source, read_bytes(args.plan)).json()
    settings = config.load(None)
    if (args.reporter or settings.get("reporter")) == "gitlab-mr":
        from review_quorum.gitlab.target import merge_request_page, resolve_merge_request

        merge_request = resolve_merge_request(args.project, args.mr, os.environ)
        page = merge_request_page(merge_request, os.environ)
    else:
        page = pull_page(resolve_target(args.repo, args.pr, os.environ), os.environ)
    plans = [read_saved_plan(document, source, pull_page=page)]
    faithful: list[bool] = []
    recorder = Recorder.from_args(args)

    reading = ReadOptions(bot_logins=settings.get("bot-logins") or {})

    gate = args.gate_level or settings.get("gate-level", "confirmed")  # a plan only lowers it
    gate_level = None if gate == "none" else ConsensusLevel.parse(gate)
    verdicts = load_verdicts(args.verdicts)

    def rebuild(fresh: Fresh) -> CheckedPlan:
        """The saved plan rebuilt from the comments GitHub shows now (`checked_plan`)."""
        names = reading.bot_logins.values()
        checked = check_plan(
            plans[0], fresh, bot_names=names, gate_level=gate_level, verdicts=verdicts
        )
        warn_checked(checked, "and no comment is hidden this run")
        plans.append(checked.plan)
        faithful.append(checked.faithful)
        return checked

    status = deliver(
        args, plans[0], source, settings, default="github-review", reading=reading, rebuild=rebuild
    )
    if recorder is not None:
        if args.dry_run:
            warn("--dry-run: the run is not recorded in the history")
        else:
            # The plan as saved when what it says of the bots is what GitHub shows (so a
            # review and a post of its plan are one run), else the plan as posted.
            recorder.record(plans[0] if faithful[-1:] == [True] else plans[-1])
    return status


def warn_checked(checked: CheckedPlan, hidden: str = "") -> None:
    """Warn about what a saved plan said that the pull request's comments do not."""
    if checked.mismatched:
        warn(
            f"{len(checked.mismatched)} finding(s) of the plan do not match the pull "
            "request's comments as GitHub shows them now: left out (counted as skipped); "
            "the bots' findings are GitHub's" + (f", {hidden}" if hidden else "")
        )
    if checked.ghosts:
        warn(f"not credited: {', '.join(checked.ghosts)} (named by the plan, no comment here)")
    if checked.differing:
        warn(
            f"{checked.differing} finding(s) from the bots in the plan differ from what their "
            "comments say (grouping, title, severity or place): not used"
        )


def deliver(
    args: argparse.Namespace,
    plan: ReviewPlan,
    source: str,
    file_settings: Mapping[str, Any],
    *,
    default: str,
    written: bool = False,
    reading: ReadOptions | None = None,
    rebuild: Callable[[Fresh], CheckedPlan] | None = None,
) -> int:
    """Deliver `plan` with `--reporter`, else the configuration's reporter, else `default`;
    `written` says the command already wrote the review locally (so `local` has no more to
    do); `reading` is how the poster reads the pull request's comments, and `rebuild` checks
    a saved plan against them (see `post_review`)."""
    from review_quorum.cli.reporters import REPORTERS, Delivery

    name = args.reporter or file_settings.get("reporter") or default
    if name == "local" and written:
        return ExitCode.OK
    if args.check_name is None:
        args.check_name = file_settings.get("check-name")
    delivery = Delivery(plan, source, args, os.environ, reading=reading, rebuild=rebuild)
    return REPORTERS[name](delivery)


def post_from_args(
    args: argparse.Namespace,
    plan: ReviewPlan,
    source: str,
    *,
    env: Mapping[str, str] | None = None,
    http: httpx.Client | None = None,
    reading: ReadOptions | None = None,
    rebuild: Callable[[Fresh], CheckedPlan] | None = None,
) -> int:
    """Post `plan` (`source` names it) as the parsed posting options say; returns the exit
    status. `reading` goes to `post_review`, and `rebuild` too, as the maker of the draft of
    the checked plan, which gets its event the same way."""
    # Imported here so that commands which never post do not pay for httpx.
    from review_quorum.github import GitHubClient, post_review, resolve_target

    env = os.environ if env is None else env
    draft = _draft(plan, source, args)
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    if args.inline_mode is not None and args.inline_mode != draft.inline_mode:
        raise ConfigError(
            f"--inline-mode {args.inline_mode}: the plan was made with --inline-mode "
            f"{draft.inline_mode}; make it again with --inline-mode {args.inline_mode}"
        )
    target = resolve_target(args.repo, args.pr, env)
    owned = http is None
    http_client = make_http_client() if http is None else http
    try:
        client = GitHubClient.from_env(
            http_client, env, dry_run=args.dry_run, on_wait=progress.note
        )
        with nullcontext() if client.offline else progress.stage(f"posting to {target}"):
            result = post_review(
                client,
                target,
                draft,
                resolve_fixed=args.resolve_fixed,
                hide_duplicates=args.hide_duplicates,
                dry_run=args.dry_run,
                bot_login=args.bot_login,
                env=env,
                reading=reading,
                rebuild=None if rebuild is None else _redraft(rebuild, source, args),
            )
    finally:
        if owned:
            http_client.close()
    return report_outcome(args.dry_run, client, result, "GITHUB_TOKEN")


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
    plan: ReviewPlan, source: str, args: argparse.Namespace, mismatched: int = 0
) -> ReviewDraft:
    from review_quorum.github import ReviewDraft

    event = choose_event(plan, args.request_changes_on)
    return ReviewDraft.from_plan(plan, source=source, event=event, mismatched=mismatched)


def _redraft(
    rebuild: Callable[[Fresh], CheckedPlan], source: str, args: argparse.Namespace
) -> Callable[[Fresh], ReviewDraft]:
    """The draft of the plan `rebuild` checks against the comments the poster reads."""

    def rebuilt(fresh: Fresh) -> ReviewDraft:
        checked = rebuild(fresh)
        draft = _draft(checked.plan, source, args, len(checked.mismatched))
        for skipped in draft.skipped:
            warn(f"not posted: {skipped.describe()}")
        return draft

    return rebuilt


def pull_page(target: PullRequest, env: Mapping[str, str]) -> str:
    """The pull request's web address: on GITHUB_SERVER_URL, else the API's host."""
    server = env.get("GITHUB_SERVER_URL", "").strip().rstrip("/")
    if not server:
        api = env.get("GITHUB_API_URL", "").strip().rstrip("/") or "https://api.github.com"
        server = "https://github.com" if api == "https://api.github.com" else api
        server = server.removesuffix("/api/v3")
    return f"{server}/{target.owner}/{target.repo}/pull/{target.number}"


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


def _pull_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a pull request number >= 1, not {text!r}")
    return int(text)
