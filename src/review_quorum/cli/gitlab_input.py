"""`quorum review --gitlab`: a merge request's discussions as an input, read at the CLI edge.

The merge request is named by ``--project``/``--mr`` or a merge request pipeline's
variables. Its discussions are read through the GitLab client (``GITLAB_TOKEN``, API root
``GITLAB_API_URL`` or ``CI_API_V4_URL``) and handed to the GitLab note reader
(`ingest.gitlab_notes`), which tells bots from people and feeds the bodies to the same
bot readers as GitHub's comments. ``--wait-for BOT,...`` first polls, as on GitHub
(`cli.github_input.wait`), until those bots have noted the head commit or said they
skipped: a diff note on the head version, or a note written after the newest version.
`read_gitlab_fresh` reads the notes the same way for `quorum post --reporter gitlab-mr`,
which rebuilds a saved plan's bot findings from them (`checked_plan`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import msgspec

from review_quorum.cli import github_input, progress
from review_quorum.cli.common import PullSource, request_number
from review_quorum.cli.github_input import PullInput, wait, with_triage
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import ReadOptions

if TYPE_CHECKING:
    from review_quorum.checked_plan import Fresh
    from review_quorum.gitlab.client import GitLabClient
    from review_quorum.gitlab.snapshot import MergeRequestSnapshot
    from review_quorum.gitlab.target import MergeRequest
    from review_quorum.ingest.gitlab_notes import MergeRequestConversation


def add_gitlab_arguments(parser: argparse.ArgumentParser) -> None:
    """--gitlab (the merge request itself is named by `add_merge_request_arguments`)."""
    group = parser.add_argument_group("GitLab merge requests")
    group.add_argument(
        "--gitlab",
        action="store_true",
        help="also read the merge request's discussions and notes (needs GITLAB_TOKEN; "
        "--project/--mr or the merge request pipeline name it); --wait-for then waits on it",
    )


def add_merge_request_arguments(group: argparse._ArgumentGroup) -> None:
    """--project and --mr, which name the merge request to read from or post to."""
    group.add_argument(
        "--project",
        metavar="ID|PATH",
        help="GitLab: the project (default: $CI_PROJECT_ID); Azure DevOps: the project "
        "(default: $SYSTEM_TEAMPROJECT)",
    )
    group.add_argument(
        "--mr",
        type=request_number("merge request iid"),
        metavar="IID",
        help="GitLab: the merge request's number (default: $CI_MERGE_REQUEST_IID)",
    )


def read_gitlab(
    pull: PullSource,
    options: ReadOptions,
    env: Mapping[str, str] | None = None,
    *,
    triagers: Sequence[str] | None = None,
) -> PullInput:
    """Read (after waiting, if asked) the merge request's notes into a batch of findings;
    with `triagers` (a run recorded in the history), the triagers' decisions too."""
    from review_quorum.github.waiting import parse_bot_list
    from review_quorum.gitlab.client import GitLabClient
    from review_quorum.gitlab.snapshot import read_merge_request
    from review_quorum.gitlab.target import resolve_merge_request
    from review_quorum.ingest.gitlab_notes import read_notes

    env = os.environ if env is None else env
    target = resolve_merge_request(pull.project, pull.mr, env)
    bots = parse_bot_list(pull.wait_for or "", options.bot_logins)
    if pull.wait_for is not None and not bots:
        raise ConfigError(
            f"--wait-for: expected bot names separated by commas, not {pull.wait_for!r}"
        )
    with github_input.client_for(GitLabClient.from_env, env) as client:
        options = _own(client, options)
        snapshots: list[MergeRequestSnapshot] = []

        def read() -> MergeRequestConversation:
            snapshot = read_merge_request(client, target)
            snapshots.append(snapshot)
            return snapshot.conversation()

        with progress.stage(f"reading {target} from GitLab"):
            if bots:
                talk, awaited = wait(read, bots, pull.wait_timeout, options.bot_logins)
            else:
                talk, awaited = read(), None
        screened = None
        if triagers is not None:
            from review_quorum.cli.history_platforms import triage

            own = options.own_login or ""
            screened = triage("gitlab", client, snapshots[-1], own, triagers, options.bot_logins)
    batch = read_notes(talk, name=str(target), options=options)
    return with_triage(PullInput(batch, talk.head_sha, awaited, talk=talk), screened)


def read_gitlab_fresh(client: GitLabClient, target: MergeRequest, options: ReadOptions) -> Fresh:
    """The bots' findings in `target`'s notes as GitLab serves them now, read as
    `read_gitlab` reads them (none offline: a dry run without a token reads nothing)."""
    from review_quorum.checked_plan import Fresh
    from review_quorum.gitlab.snapshot import read_merge_request
    from review_quorum.ingest.gitlab_notes import read_notes

    if client.offline:
        return Fresh((), platform="GitLab")
    options = _own(client, options)
    talk = read_merge_request(client, target).conversation()
    batch = read_notes(talk, name=str(target), options=options)
    return Fresh(tuple(batch.findings), platform="GitLab")


def _own(client: GitLabClient, options: ReadOptions) -> ReadOptions:
    """`options` with our own login: our notes are the token's account's, and only
    those, marked, are ours."""
    if options.own_login is None:
        user = client.current_user()
        if user is not None:
            options = msgspec.structs.replace(options, own_login=user.username)
    return options
