"""The `bitbucket-pr` reporter: inline comments, one summary comment and a build status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the pull request
that ``--repo WORKSPACE/REPOSITORY``/``--pr`` or the pipeline's variables name, by
`bitbucket.poster.post_pull_request`, with ``BITBUCKET_TOKEN`` (a repository access token)
or ``BITBUCKET_USERNAME`` and ``BITBUCKET_APP_PASSWORD``. The gate becomes the commit build
status keyed ``--check-name`` (default review-quorum) on the head commit, which merge
checks read. ``--dry-run`` prints the write requests instead of sending them (the reads are
made when credentials are there). ``--resolve-fixed`` resolves the threads of findings no
longer reported. What GitHub alone has is refused: ``--hide-duplicates`` and
``--inline-mode link``.
"""

from __future__ import annotations

from contextlib import nullcontext

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.poster import STATUS_KEY, post_pull_request
from review_quorum.bitbucket.target import resolve_pull_request
from review_quorum.cli import github_input, posting, progress
from review_quorum.cli.common import warn
from review_quorum.cli.reporters.base import Delivery
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.errors import ConfigError


def report(delivery: Delivery) -> int:
    options = delivery.options
    if options.hide_duplicates:
        raise ConfigError("--hide-duplicates: Bitbucket comments cannot be minimized")
    draft = ReviewDraft.from_plan(delivery.plan, source=delivery.source, lines=delivery.lines)
    if draft.inline_mode != "post":
        raise ConfigError("--inline-mode link links to GitHub comments: use post on Bitbucket")
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    target = resolve_pull_request(options.repo, options.pr, delivery.env)
    http = posting.make_http_client() if delivery.http is None else delivery.http
    try:
        timing = github_input.TIMING  # the CLI's clock and sleeper, which tests replace
        client = BitbucketClient.from_env(
            http,
            delivery.env,
            dry_run=options.dry_run,
            on_wait=progress.note,
            sleep=timing.sleep,
            clock=timing.clock,
        )
        with nullcontext() if client.offline else progress.stage(f"posting to {target}"):
            result = post_pull_request(
                client,
                target,
                draft,
                resolve_fixed=options.resolve_fixed,
                dry_run=options.dry_run,
                status_key=options.check_name or STATUS_KEY,
                env=delivery.env,
            )
    finally:
        if delivery.http is None:
            http.close()
    return posting.report_outcome(options.dry_run, client, result, "BITBUCKET_TOKEN")
