"""The `github-check` reporter: the review as one check run on the pull request's head commit.

The run is named after the configuration: `--check-name`, else the configuration's
`check-name`, else ``review-quorum``; a commit reviewed with two configurations gets two
runs when each has its own name, and a re-run with the same name updates its run. The head
commit is the one the review read (`--github`), else the Actions event's, else the one
GitHub names for the pull request. What the run shows is `render.check_run`; creating,
batching and updating it is `github.checks`. `--dry-run` prints the write requests.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext

from review_quorum.cli import post as post_command
from review_quorum.cli import progress
from review_quorum.cli.common import ExitCode
from review_quorum.errors import ConfigError
from review_quorum.github.checks import post_check_run
from review_quorum.github.client import GitHubClient, format_request
from review_quorum.github.target import PullRequest, resolve_target
from review_quorum.render import escape
from review_quorum.render.check_run import check_output
from review_quorum.reporters.base import Delivery

DEFAULT_NAME = "review-quorum"


def report(delivery: Delivery) -> int:
    args = delivery.args
    name = check_name(getattr(args, "check_name", None))
    target = resolve_target(args.repo, args.pr, delivery.env)
    http = post_command.make_http_client() if delivery.http is None else delivery.http
    try:
        client = GitHubClient.from_env(
            http, delivery.env, dry_run=args.dry_run, on_wait=progress.note
        )
        sha = head_sha(client, target, delivery.plan.commit_id)
        stage = f"checking {target.owner}/{target.repo}@{sha[:12]}"
        with nullcontext() if client.offline else progress.stage(stage):
            repository = f"{target.owner}/{target.repo}"
            output = check_output(delivery.plan)
            result = post_check_run(client, repository, sha, name, output, dry_run=args.dry_run)
    finally:
        if delivery.http is None:
            http.close()
    if args.dry_run:
        sys.stdout.write("".join(f"{format_request(request)}\n" for request in client.unsent))
    print(f"quorum: {result.describe()}", file=sys.stderr)
    return ExitCode.OK


def check_name(configured: str | None) -> str:
    """The check run's name: as configured, else `DEFAULT_NAME`; one line, not empty."""
    if configured is None:
        return DEFAULT_NAME
    name = configured.strip()
    if not name or escape.one_line(name) != name:
        raise ConfigError(f"--check-name: expected a name on one line, not {configured!r}")
    return name


def head_sha(client: GitHubClient, target: PullRequest, reviewed: str | None) -> str:
    """The commit the check run goes on: the one reviewed, else the pull request's head."""
    sha = reviewed or target.head_sha
    if sha is None:
        pull = client.get(f"{target.path}/pulls/{target.number}")
        head = pull.get("head") if isinstance(pull, dict) else None
        found = head.get("sha") if isinstance(head, dict) else None
        sha = found if isinstance(found, str) else None
    if sha is None:
        raise ConfigError(
            f"no head commit for {target}: a check run needs one; run in a pull_request "
            "workflow, or with GITHUB_TOKEN so that the pull request can be read"
        )
    return sha
