"""`quorum review --bitbucket`: a pull request's comments as an input, read at the CLI edge.

The pull request is named by ``--repo WORKSPACE/REPOSITORY``/``--pr`` or the pipeline's
variables (`bitbucket.target`). Its comments are read page by page through the Bitbucket
client (``BITBUCKET_TOKEN``, else ``BITBUCKET_USERNAME`` with ``BITBUCKET_APP_PASSWORD``)
and handed to the comment reader (`ingest.bitbucket_comments`), which tells bots from
people and feeds the comments to the same bot readers as GitHub's. Our own comments (the
token's account's, opening with our marker) are never read as findings.
`read_bitbucket_fresh` reads the comments the same way for `quorum post --reporter
bitbucket-pr` or ``bitbucket-insights``, which rebuild a saved plan's bot findings from
them (`checked_plan`).
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
    from review_quorum.bitbucket.client import BitbucketClient
    from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot
    from review_quorum.bitbucket.target import BitbucketPullRequest
    from review_quorum.checked_plan import Fresh
    from review_quorum.ingest.bitbucket_comments import BitbucketConversation


def add_bitbucket_arguments(parser: argparse.ArgumentParser) -> None:
    """--bitbucket (the pull request is named by --repo WORKSPACE/REPOSITORY and --pr)."""
    group = parser.add_argument_group("Bitbucket Cloud pull requests")
    group.add_argument(
        "--bitbucket",
        action="store_true",
        help="also read the pull request's comments on Bitbucket Cloud (needs BITBUCKET_TOKEN "
        "or BITBUCKET_USERNAME and BITBUCKET_APP_PASSWORD; --repo/--pr or the pipeline name it)",
    )


def read_bitbucket(
    pull: PullSource,
    options: ReadOptions,
    env: Mapping[str, str] | None = None,
    *,
    triagers: Sequence[str] | None = None,
) -> PullInput:
    """Read the pull request's comments into a batch of findings; with `triagers` (a run
    recorded in the history), the triagers' decisions too."""
    from review_quorum.bitbucket.client import BitbucketClient
    from review_quorum.bitbucket.snapshot import read_pull_request
    from review_quorum.bitbucket.target import resolve_pull_request
    from review_quorum.ingest.bitbucket_comments import read_pull_comments

    env = os.environ if env is None else env
    if pull.wait_for is not None:
        raise ConfigError("--wait-for: waiting for bots is for GitHub and GitLab only")
    target = resolve_pull_request(pull.repo, pull.pr, env)
    with github_input.client_for(BitbucketClient.from_env, env) as client:
        own = _own(client)
        with progress.stage(f"reading {target} from Bitbucket"):
            snapshot = read_pull_request(client, target)
    if own:
        options = msgspec.structs.replace(options, own_login=own)
    talk = _conversation(snapshot, own, env)
    batch = read_pull_comments(talk, name=str(target), options=options)
    screened = None
    if triagers is not None:
        from review_quorum.cli.history_platforms import triage

        screened = triage("bitbucket", None, snapshot, own, triagers, options.bot_logins)
    from review_quorum.history.coverage import Activity

    # Bitbucket says neither which commit a comment was made on nor when the head was
    # pushed: every bot comment counts as covering the head.
    records = tuple(c.record for c in talk.comments if isinstance(c.record, dict))
    activity = Activity(talk.head_sha, None, issue_comments=records)
    return with_triage(PullInput(batch, talk.head_sha, None, talk=activity), screened)


def read_bitbucket_fresh(
    client: BitbucketClient,
    target: BitbucketPullRequest,
    options: ReadOptions,
    env: Mapping[str, str],
) -> Fresh:
    """The bots' findings in `target`'s comments as Bitbucket serves them now, read as
    `read_bitbucket` reads them (none offline: a dry run without a token reads nothing)."""
    from review_quorum.bitbucket.snapshot import read_pull_request
    from review_quorum.checked_plan import Fresh
    from review_quorum.ingest.bitbucket_comments import read_pull_comments

    if client.offline:
        return Fresh((), platform="Bitbucket")
    own = _own(client)
    if own:
        options = msgspec.structs.replace(options, own_login=own)
    talk = _conversation(read_pull_request(client, target), own, env)
    batch = read_pull_comments(talk, name=str(target), options=options)
    return Fresh(tuple(batch.findings), platform="Bitbucket")


def _own(client: BitbucketClient) -> str:
    """Our own account's uuid (the credentials'), or "" when Bitbucket does not say."""
    account = client.current_account()
    return account.uuid if account is not None else ""


def _conversation(
    snapshot: BitbucketPullSnapshot, own: str, env: Mapping[str, str]
) -> BitbucketConversation:
    from review_quorum.bitbucket.poster import head_commit
    from review_quorum.ingest.bitbucket_comments import conversation

    # Bitbucket names the head commit abbreviated: the pipeline's full hash, when it is
    # that commit, is the one a plan can name; else the plan names none.
    head = head_commit(snapshot, env)
    return conversation(snapshot.comments, head_sha=head if len(head) == 40 else "", own_uuid=own)
