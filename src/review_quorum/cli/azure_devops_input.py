"""`quorum review --azure-devops`: a pull request's threads as an input, read at the CLI edge.

The pull request is named by ``--organization``/``--project``/``--repo``/``--pr`` or the
pipeline's predefined variables (`azure_devops.target`). Its threads are read through the
Azure DevOps client (``AZURE_DEVOPS_TOKEN``, else ``SYSTEM_ACCESSTOKEN``) and handed to the
thread reader (`ingest.azure_devops_threads`), which tells bots from people and feeds the
comments to the same bot readers as GitHub's. Our own comments are those of the token's
identity that open with our marker; they are never read as findings.
`read_azure_devops_fresh` reads the threads the same way for `quorum post --reporter
azure-devops-pr`, which rebuilds a saved plan's bot findings from them (`checked_plan`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from review_quorum.cli import github_input, progress
from review_quorum.cli.common import PullSource
from review_quorum.cli.github_input import PullInput, with_triage
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import ReadOptions

if TYPE_CHECKING:
    from review_quorum.azure_devops.client import AzureDevOpsClient
    from review_quorum.azure_devops.snapshot import AzurePullSnapshot
    from review_quorum.azure_devops.target import AzurePullRequest
    from review_quorum.checked_plan import Fresh
    from review_quorum.history.coverage import Activity
    from review_quorum.ingest.azure_devops_threads import AzureThreadsConversation
    from review_quorum.ingest.comments import PullComment


def add_azure_devops_arguments(parser: argparse.ArgumentParser) -> None:
    """--azure-devops (the pull request is named by --organization/--project/--repo/--pr)."""
    group = parser.add_argument_group("Azure DevOps pull requests")
    group.add_argument(
        "--azure-devops",
        action="store_true",
        help="also read the pull request's threads on Azure DevOps (needs AZURE_DEVOPS_TOKEN "
        "or SYSTEM_ACCESSTOKEN; --organization/--project/--repo/--pr or the pipeline name it)",
    )


def add_organization_argument(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--organization",
        metavar="ORG",
        help="Azure DevOps: the organisation (default: from $SYSTEM_COLLECTIONURI)",
    )


def read_azure_devops(
    pull: PullSource,
    options: ReadOptions,
    env: Mapping[str, str] | None = None,
    *,
    triagers: Sequence[str] | None = None,
) -> PullInput:
    """Read the pull request's threads into a batch of findings; with `triagers` (a run
    recorded in the history), the triagers' decisions too."""
    from review_quorum.azure_devops.client import AzureDevOpsClient
    from review_quorum.azure_devops.target import resolve_pull_request
    from review_quorum.ingest.azure_devops_threads import read_threads

    env = os.environ if env is None else env
    if pull.wait_for is not None:
        raise ConfigError("--wait-for: waiting for bots is for GitHub and GitLab only")
    target = resolve_pull_request(pull.organization, pull.project, pull.repo, pull.pr, env)
    with (
        github_input.client_for(AzureDevOpsClient.from_env, env) as client,
        progress.stage(f"reading {target} from Azure DevOps"),
    ):
        own, snapshot, talk = _read(client, target)
    if own:
        options = msgspec.structs.replace(options, own_login=own)
    batch = read_threads(talk, name=str(target), options=options)
    screened = None
    if triagers is not None:
        from review_quorum.cli.history_platforms import triage

        screened = triage("azure_devops", None, snapshot, own, triagers, options.bot_logins)
    activity = _activity(snapshot, talk.comments)
    return with_triage(PullInput(batch, talk.head_sha, None, talk=activity), screened)


def read_azure_devops_fresh(
    client: AzureDevOpsClient, target: AzurePullRequest, options: ReadOptions
) -> Fresh:
    """The bots' findings in `target`'s threads as Azure DevOps serves them now, read as
    `read_azure_devops` reads them (none offline: a dry run without a token reads nothing)."""
    from review_quorum.checked_plan import Fresh
    from review_quorum.ingest.azure_devops_threads import read_threads

    if client.offline:
        return Fresh((), platform="Azure DevOps")
    own, _, talk = _read(client, target)
    if own:
        options = msgspec.structs.replace(options, own_login=own)
    batch = read_threads(talk, name=str(target), options=options)
    return Fresh(tuple(batch.findings), platform="Azure DevOps")


def _read(
    client: AzureDevOpsClient, target: AzurePullRequest
) -> tuple[str, AzurePullSnapshot, AzureThreadsConversation]:
    """Our own identity's id (the token's), the pull request and its threads as comments."""
    from review_quorum.azure_devops.snapshot import read_pull_request
    from review_quorum.ingest.azure_devops_threads import conversation

    identity = client.identity(target.organization)
    own = identity.id if identity is not None else ""
    snapshot = read_pull_request(client, target, changes=False)
    talk = conversation(
        snapshot.threads, head_sha=snapshot.head_sha, web_url=snapshot.web_url, own_id=own
    )
    return own, snapshot, talk


def _activity(snapshot: AzurePullSnapshot, comments: Sequence[PullComment]) -> Activity:
    """The comments for coverage: each on the head when made after the latest iteration."""
    from review_quorum.delivery.timestamps import parse_timestamp
    from review_quorum.history.coverage import Activity

    latest = max(snapshot.iterations, key=lambda i: i.get("id") or 0, default={})
    records = tuple(c.record for c in comments if isinstance(c.record, dict))
    pushed = parse_timestamp(latest.get("createdDate"))
    return Activity(snapshot.head_sha, pushed, issue_comments=records)
