"""The `azure-devops-pr` reporter: threads, one summary thread and a pull request status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the pull request
that ``--organization``/``--project``/``--repo``/``--pr`` or the pipeline's variables name,
by `azure_devops.poster.post_pull_request`, with ``AZURE_DEVOPS_TOKEN`` (a personal access
token) or ``SYSTEM_ACCESSTOKEN`` (the build service identity, which needs "Contribute to
pull requests"). The gate becomes the pull request status named ``--check-name`` (default
review-quorum), which a branch policy can require. ``--dry-run`` prints the write requests
instead of sending them (the reads are made when a token is there). ``--resolve-fixed``
sets the threads of findings no longer reported to fixed. What GitHub alone has is
refused: ``--hide-duplicates`` and ``--inline-mode link``.
"""

from __future__ import annotations

from contextlib import nullcontext

from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.poster import STATUS_NAME, post_pull_request
from review_quorum.azure_devops.target import resolve_pull_request
from review_quorum.cli import github_input, posting, progress
from review_quorum.cli.common import warn
from review_quorum.cli.reporters.base import Delivery
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.errors import ConfigError


def report(delivery: Delivery) -> int:
    options = delivery.options
    if options.hide_duplicates:
        raise ConfigError("--hide-duplicates: Azure DevOps comments cannot be minimized")
    draft = ReviewDraft.from_plan(delivery.plan, source=delivery.source, lines=delivery.lines)
    if draft.inline_mode != "post":
        raise ConfigError("--inline-mode link links to GitHub comments: use post on Azure DevOps")
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    target = resolve_pull_request(
        options.organization, options.project, options.repo, options.pr, delivery.env
    )
    http = posting.make_http_client() if delivery.http is None else delivery.http
    try:
        timing = github_input.TIMING  # the CLI's clock and sleeper, which tests replace
        client = AzureDevOpsClient.from_env(
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
                status_name=options.check_name or STATUS_NAME,
            )
    finally:
        if delivery.http is None:
            http.close()
    return posting.report_outcome(
        options.dry_run, client, result, "AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN"
    )
