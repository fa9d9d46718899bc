"""The `bitbucket-pr` reporter: inline comments, one summary comment and a build status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the pull request
that ``--repo WORKSPACE/REPOSITORY``/``--pr`` or the pipeline's variables name, by
`bitbucket.poster.post_pull_request`, with ``BITBUCKET_TOKEN`` (a repository access token)
or ``BITBUCKET_USERNAME`` and ``BITBUCKET_APP_PASSWORD``. The gate becomes the commit build
status keyed ``--check-name`` (default review-quorum) on the head commit, which merge
checks read. ``--dry-run`` prints the write requests instead of sending them (the reads are
made when credentials are there). ``--resolve-fixed`` resolves the threads of findings no
longer reported. What GitHub alone has is refused: ``--hide-duplicates`` and
``--inline-mode link``. A saved plan (`quorum post`) is rebuilt from the pull request's
comments as Bitbucket serves them now (`Delivery.rebuild`, `checked_plan`), read as
``quorum review --bitbucket`` reads them: the bots' findings are Bitbucket's, never the plan's.
"""

from __future__ import annotations

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.poster import STATUS_KEY, post_pull_request
from review_quorum.bitbucket.target import resolve_pull_request
from review_quorum.cli import posting
from review_quorum.cli.bitbucket_input import read_bitbucket_fresh
from review_quorum.cli.reporters.base import Delivery
from review_quorum.cli.reporters.threads import (
    checked_plan,
    connected,
    refuse_github_only,
    thread_draft,
)


def report(delivery: Delivery) -> int:
    options = delivery.options
    refuse_github_only(delivery, "Bitbucket", "Bitbucket comments")
    target = resolve_pull_request(options.repo, options.pr, delivery.env)
    with connected(delivery, BitbucketClient.from_env, target) as client:
        plan = checked_plan(
            delivery,
            lambda reading: read_bitbucket_fresh(client, target, reading, delivery.env),
        )
        result = post_pull_request(
            client,
            target,
            thread_draft(delivery, plan),
            resolve_fixed=options.resolve_fixed,
            dry_run=options.dry_run,
            status_key=options.check_name or STATUS_KEY,
            env=delivery.env,
        )
    return posting.report_outcome(options.dry_run, client, result, "BITBUCKET_TOKEN")
