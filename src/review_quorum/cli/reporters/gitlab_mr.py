"""The `gitlab-mr` reporter: diff discussions, one sticky summary note and a commit status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the merge request
that ``--project``/``--mr`` or the merge request pipeline names, by
`gitlab.poster.post_merge_request`, with ``GITLAB_TOKEN`` (a project access token: a CI job
token cannot write notes). The gate becomes the commit status named ``--check-name``
(default review-quorum) on the head commit. ``--dry-run`` prints the write requests instead
of sending them (the reads are made when a token is there). ``--resolve-fixed`` resolves
the threads of findings no longer reported. What GitHub alone has is refused:
``--hide-duplicates`` and ``--inline-mode link`` (GitLab notes cannot be minimized, and the
plan's links point at GitHub comments).
"""

from __future__ import annotations

from contextlib import nullcontext

from review_quorum.cli import github_input, posting, progress
from review_quorum.cli.common import warn
from review_quorum.cli.reporters.base import Delivery
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.errors import ConfigError
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.poster import STATUS_NAME, post_merge_request
from review_quorum.gitlab.target import resolve_merge_request


def report(delivery: Delivery) -> int:
    options = delivery.options
    if options.hide_duplicates:
        raise ConfigError("--hide-duplicates: GitLab notes cannot be minimized (GitHub only)")
    draft = ReviewDraft.from_plan(delivery.plan, source=delivery.source, lines=delivery.lines)
    if draft.inline_mode != "post":
        raise ConfigError("--inline-mode link links to GitHub comments: use post on GitLab")
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    target = resolve_merge_request(options.project, options.mr, delivery.env)
    http = posting.make_http_client() if delivery.http is None else delivery.http
    try:
        timing = github_input.TIMING  # the CLI's clock and sleeper, which tests replace
        client = GitLabClient.from_env(
            http,
            delivery.env,
            dry_run=options.dry_run,
            on_wait=progress.note,
            sleep=timing.sleep,
            clock=timing.clock,
        )
        with nullcontext() if client.offline else progress.stage(f"posting to {target}"):
            result = post_merge_request(
                client,
                target,
                draft,
                resolve_fixed=options.resolve_fixed,
                dry_run=options.dry_run,
                env=delivery.env,
                status_name=options.check_name or STATUS_NAME,
            )
    finally:
        if delivery.http is None:
            http.close()
    return posting.report_outcome(options.dry_run, client, result, "GITLAB_TOKEN")
