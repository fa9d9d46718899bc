"""The `gitlab-mr` reporter: diff discussions, one sticky summary note and a commit status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the merge request
that ``--project``/``--mr`` or the merge request pipeline names, by
`gitlab.poster.post_merge_request`, with ``GITLAB_TOKEN`` (a project access token: a CI job
token cannot write notes). The gate becomes the commit status named ``--check-name``
(default review-quorum) on the head commit. ``--dry-run`` prints the write requests instead
of sending them (the reads are made when a token is there). ``--resolve-fixed`` resolves
the threads of findings no longer reported. What GitHub alone has is refused:
``--hide-duplicates`` and ``--inline-mode link`` (GitLab notes cannot be minimized, and the
plan's links point at GitHub comments). A saved plan (`quorum post`) is rebuilt from the
merge request's notes as GitLab serves them now (`Delivery.rebuild`, `checked_plan`), read
as ``quorum review --gitlab`` reads them: the bots' findings are GitLab's, never the plan's.
"""

from __future__ import annotations

from review_quorum.cli import posting
from review_quorum.cli.gitlab_input import read_gitlab_fresh
from review_quorum.cli.reporters.base import Delivery
from review_quorum.cli.reporters.threads import (
    checked_plan,
    connected,
    refuse_github_only,
    thread_draft,
)
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.poster import STATUS_NAME, post_merge_request
from review_quorum.gitlab.target import resolve_merge_request


def report(delivery: Delivery) -> int:
    options = delivery.options
    refuse_github_only(delivery, "GitLab", "GitLab notes")
    target = resolve_merge_request(options.project, options.mr, delivery.env)
    with connected(delivery, GitLabClient.from_env, target) as client:
        plan = checked_plan(delivery, lambda reading: read_gitlab_fresh(client, target, reading))
        result = post_merge_request(
            client,
            target,
            thread_draft(delivery, plan),
            resolve_fixed=options.resolve_fixed,
            dry_run=options.dry_run,
            env=delivery.env,
            status_name=options.check_name or STATUS_NAME,
        )
    return posting.report_outcome(options.dry_run, client, result, "GITLAB_TOKEN")
