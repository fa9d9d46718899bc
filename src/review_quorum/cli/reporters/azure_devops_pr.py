"""The `azure-devops-pr` reporter: threads, one summary thread and a pull request status.

The plan's bodies are rendered afresh into a `ReviewDraft` and posted to the pull request
that ``--organization``/``--project``/``--repo``/``--pr`` or the pipeline's variables name,
by `azure_devops.poster.post_pull_request`, with ``AZURE_DEVOPS_TOKEN`` (a personal access
token) or ``SYSTEM_ACCESSTOKEN`` (the build service identity, which needs "Contribute to
pull requests"). The gate becomes the pull request status named ``--check-name`` (default
review-quorum), which a branch policy can require. ``--dry-run`` prints the write requests
instead of sending them (the reads are made when a token is there). ``--resolve-fixed``
sets the threads of findings no longer reported to fixed. What GitHub alone has is
refused: ``--hide-duplicates`` and ``--inline-mode link``. A saved plan (`quorum post`) is
rebuilt from the pull request's threads as Azure DevOps serves them now
(`Delivery.rebuild`, `checked_plan`), read as ``quorum review --azure-devops`` reads them:
the bots' findings are Azure DevOps', never the plan's.
"""

from __future__ import annotations

from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.poster import STATUS_NAME, post_pull_request
from review_quorum.azure_devops.target import resolve_pull_request
from review_quorum.cli import posting
from review_quorum.cli.azure_devops_input import read_azure_devops_fresh
from review_quorum.cli.reporters.base import Delivery
from review_quorum.cli.reporters.threads import (
    checked_plan,
    connected,
    refuse_github_only,
    thread_draft,
)


def report(delivery: Delivery) -> int:
    options = delivery.options
    refuse_github_only(delivery, "Azure DevOps", "Azure DevOps comments")
    target = resolve_pull_request(
        options.organization, options.project, options.repo, options.pr, delivery.env
    )
    with connected(delivery, AzureDevOpsClient.from_env, target) as client:
        plan = checked_plan(
            delivery, lambda reading: read_azure_devops_fresh(client, target, reading)
        )
        result = post_pull_request(
            client,
            target,
            thread_draft(delivery, plan),
            resolve_fixed=options.resolve_fixed,
            dry_run=options.dry_run,
            status_name=options.check_name or STATUS_NAME,
        )
    return posting.report_outcome(
        options.dry_run, client, result, "AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN"
    )
