"""The `github-check` reporter: the review as one check run on the pull request's head commit.

The run is named after the configuration: `--check-name`, else the configuration's
`check-name`, else ``review-quorum``; a commit reviewed with two configurations gets two
runs when each has its own name, and a re-run with the same name updates its run. The run goes
on the pull request's head commit as GitHub names it (the Actions event's, else asked for),
never on a commit a plan names: a saved plan may come from a fork, and a check run on
another commit could pass another pull request's required check. For the same reason a
saved plan is rebuilt from the pull request's comments as GitHub serves them now
(`Delivery.rebuild`, `checked_plan`): the run never attributes to a bot what it did not
say, and the plan cannot lift the posting run's gate.
A plan about an older commit than the head is not posted (a warning says so; the run for
the head posts). What the run shows is `render.check_run`; creating, batching and
updating it is `github.checks`.
`--dry-run` prints the write requests.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext

from review_quorum.cli import posting, progress
from review_quorum.cli.common import ExitCode, warn
from review_quorum.cli.reporters.base import Delivery
from review_quorum.errors import ConfigError
from review_quorum.github.checks import CheckResult, post_check_run
from review_quorum.github.client import GitHubClient, format_request
from review_quorum.github.snapshot import read_pull_fresh
from review_quorum.github.target import PullRequest, resolve_target
from review_quorum.ingest.base import ReadOptions
from review_quorum.markup import escape
from review_quorum.plan import ReviewPlan
from review_quorum.render.check_run import check_output

DEFAULT_NAME = "review-quorum"


def report(delivery: Delivery) -> int:
    options = delivery.options
    name = check_name(options.check_name)
    target = resolve_target(options.repo, options.pr, delivery.env)
    http = posting.make_http_client() if delivery.http is None else delivery.http
    try:
        client = GitHubClient.from_env(
            http, delivery.env, dry_run=options.dry_run, on_wait=progress.note
        )
        plan = delivery.plan
        if delivery.rebuild is not None:  # a saved plan: rebuilt from the comments on GitHub
            fresh = read_pull_fresh(client, target, delivery.reading or ReadOptions())
            plan = delivery.rebuild(fresh).plan
        result = _post(client, target, name, plan, dry_run=options.dry_run)
    finally:
        if delivery.http is None:
            http.close()
    if options.dry_run:
        sys.stdout.write("".join(f"{format_request(request)}\n" for request in client.unsent))
    if result is not None:
        print(f"quorum: {result.describe()}", file=sys.stderr)
    return ExitCode.OK


def _post(
    client: GitHubClient, target: PullRequest, name: str, plan: ReviewPlan, *, dry_run: bool
) -> CheckResult | None:
    sha = head_sha(client, target, plan.commit_id)
    if plan.commit_id not in (None, sha):
        # A saved plan may come from a fork: it never chooses the commit to mark.
        warn(
            f"not posted: the plan reviewed {plan.commit_id}, but the head of {target} is "
            f"{sha}; a check run goes only on the head (a later run reviews it)"
        )
        return None
    repository = f"{target.owner}/{target.repo}"
    with nullcontext() if client.offline else progress.stage(f"checking {repository}@{sha[:12]}"):
        return post_check_run(client, repository, sha, name, check_output(plan), dry_run=dry_run)


def check_name(configured: str | None) -> str:
    """The check run's name: as configured, else `DEFAULT_NAME`; one line, not empty."""
    if configured is None:
        return DEFAULT_NAME
    name = configured.strip()
    if not name or escape.one_line(name) != name:
        raise ConfigError(f"--check-name: expected a name on one line, not {configured!r}")
    return name


def head_sha(client: GitHubClient, target: PullRequest, reviewed: str | None) -> str:
    """The pull request's head commit as GitHub says it (the event's, else asked for); only a
    dry run without a token, which sends nothing, falls back on the commit the plan names."""
    sha = target.head_sha
    if sha is None and not client.offline:
        pull = client.get(f"{target.path}/pulls/{target.number}")
        head = pull.get("head") if isinstance(pull, dict) else None
        found = head.get("sha") if isinstance(head, dict) else None
        sha = found if isinstance(found, str) else None
    if sha is None and client.offline:
        sha = reviewed
    if sha is None:
        raise ConfigError(
            f"no head commit for {target}: a check run needs one; run in a pull_request "
            "workflow, or with GITHUB_TOKEN so that the pull request can be read"
        )
    return sha
