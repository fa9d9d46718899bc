"""`quorum post`: deliver a saved review plan to a GitHub pull request, idempotently.

`quorum post PLAN.json` reads what `quorum review --format json` wrote and posts it with
`review_quorum.github.post_review`. The plan may come from someone else (a fork's
artifact): it is rebuilt from its findings (`review_quorum.saved_plan`, which refuses a
plan whose structure is off) and every body is rendered afresh, never taken from the file.
`add_post_arguments` and `deliver` (given the `cli.posting.PostingOptions` read once) let
`quorum review --post` do the same without a file. The review event is a COMMENT, or
REQUEST_CHANGES when `--request-changes-on LEVEL` is given and the plan has findings at or
above LEVEL (`cli.posting.choose_event`); this command never approves. `--hide-duplicates`
minimizes the bots' comments that repeat a reported finding; `--inline-mode` must agree
with the plan's (a plan made with `--inline-mode link` posts no inline comments of its
own, its summary links to the bots' comments instead). `--dry-run` performs the reads
(when a token is available) and prints every write request instead of sending it, with the
Authorization header redacted. The printed requests go to standard output, the one-line
result to standard error. A saved plan's bot findings are checked against the comments
the posting run reads from the platform it posts to (GitHub, GitLab, Azure DevOps or
Bitbucket): the plan is a proposal (`checked_plan`), every finding from a bot is rebuilt
from the platform's comments, the plan adds only its analysers' findings,
what it claims of a bot that no comment says is left out and counted, and only comments
the posted review shows are hidden. Its verdicts are not used (`--verdicts FILE` gives the
run its own; with the verifier's flags and `--diff` the run verifies the plan as it rebuilt
it, `verified`) and its gate only lowers this run's (`--gate-level`, else the
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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from review_quorum import config
from review_quorum.cli import verifying
from review_quorum.cli.azure_devops_input import add_organization_argument
from review_quorum.cli.common import ExitCode, login, read_bytes, request_number, warn
from review_quorum.cli.gitlab_input import add_merge_request_arguments
from review_quorum.cli.record import Recorder, add_record_arguments
from review_quorum.identity import CodeLines
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.model import ConsensusLevel
from review_quorum.plan import INLINE_MODES, UNHELD, ReviewPlan, unheld

if TYPE_CHECKING:
    from review_quorum.checked_plan import CheckedPlan, Fresh
    from review_quorum.cli.posting import PostingOptions
    from review_quorum.github import PullRequest
    from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
    from review_quorum.verifier.stage import VerifyOptions

LEVELS = [level.value for level in ConsensusLevel]


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "post",
        help="post a saved review plan to GitHub, GitLab, Azure DevOps or Bitbucket",
        description=(
            "Post a plan saved by `quorum review --format json`: to a GitHub pull request as "
            "one review plus one sticky summary comment (--reporter github-review, the "
            "default) or as a check run (github-check); to a GitLab merge request as "
            "discussions and a note (gitlab-mr); to an Azure DevOps pull request as threads "
            "and a summary thread (azure-devops-pr); to a Bitbucket Cloud pull request as "
            "comments and a summary comment (bitbucket-pr) or as a Code Insights report "
            "(bitbucket-insights); `local` prints the review instead. Re-running never "
            "duplicates a comment. Needs GITHUB_TOKEN, GITLAB_TOKEN, AZURE_DEVOPS_TOKEN (or "
            "SYSTEM_ACCESSTOKEN in a pipeline), or BITBUCKET_TOKEN (or BITBUCKET_USERNAME with "
            "BITBUCKET_APP_PASSWORD)."
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
    parser.add_argument(
        "--checkout",
        metavar="DIR",
        help="the head commit's checkout: with --resolve-fixed, a finding no longer reported "
        "is marked fixed only when its flagged line changed or is gone there (without it, "
        "GitHub's and GitLab's own tracking of the line decides, and Azure DevOps and "
        "Bitbucket keep such threads open)",
    )
    parser.add_argument(
        "--diff",
        metavar="FILE",
        help="the pull request's unified diff, for the verifier (with --verify-url or "
        "--verifier-cmd)",
    )
    add_post_arguments(parser)
    add_record_arguments(parser)
    verifying.add_arguments(parser)
    parser.set_defaults(run=run)


def add_post_arguments(parser: argparse.ArgumentParser) -> None:
    """The posting options shared by `quorum post` and `quorum review --post`."""
    group = parser.add_argument_group(
        "posting the review (GitHub, GitLab, Azure DevOps or Bitbucket)"
    )
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
    group.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="GitHub: OWNER/NAME (default: $GITHUB_REPOSITORY); Azure DevOps: the repository "
        "(default: $BUILD_REPOSITORY_NAME); Bitbucket: WORKSPACE/REPOSITORY (default: "
        "$BITBUCKET_WORKSPACE/$BITBUCKET_REPO_SLUG)",
    )
    add_merge_request_arguments(group)
    add_organization_argument(group)
    group.add_argument(
        "--pr",
        type=request_number("pull request number"),
        metavar="N",
        help="the pull request (default: the Actions event's, else "
        "$SYSTEM_PULLREQUEST_PULLREQUESTID on Azure DevOps, $BITBUCKET_PR_ID on Bitbucket)",
    )
    group.add_argument(
        "--bot-login",
        type=login,
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
        help="GitHub: minimize the bots' comments that repeat a finding quorum reports (shown "
        "again when the finding changes; humans' comments and replied threads are never hidden)",
    )
    group.add_argument(
        "--inline-mode",
        choices=INLINE_MODES,
        help="post: quorum's own inline comments (default); link (GitHub): none, the summary "
        "links each finding to the bot comment that raised it",
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
    from review_quorum.cli import history_review
    from review_quorum.cli.common import load_verdicts
    from review_quorum.cli.posting import PostingOptions
    from review_quorum.github import resolve_target
    from review_quorum.saved_plan import read_saved_plan

    source = "<stdin>" if args.plan == "-" else args.plan
    plan_file = Source(source, read_bytes(args.plan))
    document = plan_file.json()
    settings = config.load(None)
    reporter = args.reporter or settings.get("reporter")
    if reporter == "gitlab-mr":
        from review_quorum.gitlab.target import merge_request_page, resolve_merge_request

        merge_request = resolve_merge_request(args.project, args.mr, os.environ)
        page = merge_request_page(merge_request, os.environ)
    elif reporter == "azure-devops-pr":
        from review_quorum.azure_devops import target as azure

        named = (args.organization, args.project, args.repo, args.pr)
        page = azure.pull_request_page(azure.resolve_pull_request(*named, os.environ), os.environ)
    elif reporter in ("bitbucket-pr", "bitbucket-insights"):
        from review_quorum.bitbucket import target as bitbucket

        page = bitbucket.pull_request_page(
            bitbucket.resolve_pull_request(args.repo, args.pr, os.environ)
        )
    else:
        page = pull_page(resolve_target(args.repo, args.pr, os.environ), os.environ)
    recorder = Recorder.from_args(args)
    # The triage this run's own history holds (none without --db), never the plan's claim.
    held = history_review.triage_for(recorder, None)
    plans = [read_saved_plan(document, source, pull_page=page, data=plan_file.data, triage=held)]
    if plans[0].extra.get(UNHELD):
        warn(unheld(plans[0].extra[UNHELD]))
    faithful: list[bool] = []

    reading = ReadOptions(bot_logins=settings.get("bot-logins") or {})

    gate = args.gate_level or settings.get("gate-level", "confirmed")  # a plan only lowers it
    gate_level = None if gate == "none" else ConsensusLevel.parse(gate)
    verdicts = load_verdicts(args.verdicts)
    lines = CodeLines(root=args.checkout) if args.checkout else None
    chosen = verifying.options(args, settings)

    def rebuild(fresh: Fresh) -> CheckedPlan:
        """The saved plan rebuilt from the comments the platform shows now (`checked_plan`),
        and verified when a verifier is given (this run's own verdicts, on the plan as
        rebuilt)."""
        names = reading.bot_logins.values()

        def checked_with(bound: Sequence[tuple[str, AttachedVerdictInput]] = ()) -> CheckedPlan:
            return check_plan(
                plans[0],
                fresh,
                bot_names=names,
                gate_level=gate_level,
                verdicts=verdicts,
                bound=bound,
                lines=lines,
            )

        checked = checked_with()
        if chosen.wanted:
            checked = verified(args, chosen, checked, checked_with, recorder)
        warn_checked(checked, "and no comment is hidden this run")
        unused = checked.plan.skipped[len(plans[0].skipped) + len(checked.mismatched) :]
        for record in unused:  # this run's verdicts that no finding took
            warn(f"{record.source}:{record.position}: {record.reason}: not used")
        plans.append(checked.plan)
        faithful.append(checked.faithful)
        return checked

    options = PostingOptions.from_args(args, settings)
    status = deliver(
        options,
        plans[0],
        source,
        settings,
        default="github-review",
        reading=reading,
        rebuild=rebuild,
        lines=lines,
    )
    if recorder is not None:
        if args.dry_run:
            warn("--dry-run: the run is not recorded in the history")
        else:
            # The plan as saved when what it says of the bots is what the platform shows (so a
            # review and a post of its plan are one run), else the plan as posted.
            recorder.record(plans[0] if faithful[-1:] == [True] else plans[-1])
    return status


def verified(
    args: argparse.Namespace,
    chosen: VerifyOptions,
    checked: CheckedPlan,
    checked_with: Callable[[Sequence[tuple[str, AttachedVerdictInput]]], CheckedPlan],
    recorder: Recorder | None = None,
) -> CheckedPlan:
    """`checked` verified by this run: the clusters it rebuilt from the platform's comments (never
    the plan's word for them) are asked about, and each verdict goes to the cluster it was
    asked about, as `quorum review --verify-url` applies them (with `--db`, the answers are
    kept in the history)."""
    from review_quorum.checked_plan import cluster_key
    from review_quorum.scoring.confidence.attach import AttachedVerdictInput
    from review_quorum.verifier.stage import apply, verify

    plan = checked.plan
    keep = None if getattr(args, "verify_cache", None) is not None else recorder
    diff = verifying.diff_text(args.diff)
    with verifying.history_store(keep) as store:
        verification = verify(plan, diff, chosen, os.environ, store=store)
    for problem in verification.problems:
        warn(problem)

    def replan(placed: Mapping[int, AttachedVerdict]) -> ReviewPlan:
        bound = []
        for index, verdict in placed.items():
            finding = plan.findings[index].finding
            at = AttachedVerdictInput(finding.file, finding.line or 0, verdict)
            bound.append((cluster_key(finding.members), at))
        return checked_with(bound).plan

    return replace(checked, plan=apply(plan, replan, verification, chosen))


def warn_checked(checked: CheckedPlan, hidden: str = "") -> None:
    """Warn about what a saved plan said that the pull request's comments do not."""
    if checked.mismatched:
        warn(
            f"{len(checked.mismatched)} finding(s) of the plan do not match the pull "
            f"request's comments as {checked.platform} shows them now: left out (counted as "
            f"skipped); the bots' findings are {checked.platform}'s"
            + (f", {hidden}" if hidden else "")
        )
    if checked.ghosts:
        warn(f"not credited: {', '.join(checked.ghosts)} (named by the plan, no comment here)")
    if checked.differing:
        warn(
            f"{checked.differing} finding(s) from the bots in the plan differ from what their "
            "comments say (grouping, title, severity or place): not used"
        )


def deliver(
    options: PostingOptions,
    plan: ReviewPlan,
    source: str,
    file_settings: Mapping[str, Any],
    *,
    default: str,
    written: bool = False,
    reading: ReadOptions | None = None,
    rebuild: Callable[[Fresh], CheckedPlan] | None = None,
    lines: CodeLines | None = None,
) -> int:
    """Deliver `plan` as `options` say (read once, `PostingOptions.from_args`): with
    `--reporter`, else the configuration's reporter, else `default`. `written` says the
    command already wrote the review locally (so `local` has no more to do); `reading` is
    how the poster reads the pull request's comments, and `rebuild` checks a saved plan
    against them (see `post_review`); `lines` is the head's code, if at hand."""
    from review_quorum.cli.reporters import REPORTERS, Delivery

    name = options.reporter or file_settings.get("reporter") or default
    if name == "local" and written:
        return ExitCode.OK
    delivery = Delivery(
        plan, source, options, os.environ, reading=reading, rebuild=rebuild, lines=lines
    )
    return REPORTERS[name](delivery)


def pull_page(target: PullRequest, env: Mapping[str, str]) -> str:
    """The pull request's web address: on GITHUB_SERVER_URL, else the API's host."""
    server = env.get("GITHUB_SERVER_URL", "").strip().rstrip("/")
    if not server:
        api = env.get("GITHUB_API_URL", "").strip().rstrip("/") or "https://api.github.com"
        server = "https://github.com" if api == "https://api.github.com" else api
        server = server.removesuffix("/api/v3")
    return f"{server}/{target.owner}/{target.repo}/pull/{target.number}"
