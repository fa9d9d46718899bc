"""The history on GitLab, Azure DevOps and Bitbucket: names, `history sync` and triage.

A repository of each platform has one name in the history, a platform prefix on its
owner so that it never mixes with a GitHub repository of the same name:
``gitlab:GROUP/PROJECT`` (the project's path; a numeric id is read from the pipeline's
``CI_PROJECT_PATH``), ``azure-devops:ORGANIZATION/PROJECT/REPOSITORY`` and
``bitbucket:WORKSPACE/REPOSITORY``. ``--repo`` of `history show` and `stats` takes that
name. `history sync --gitlab|--azure-devops|--bitbucket` reads the pull requests named
with ``--pr`` and every one of the repository the history already holds (recorded runs,
earlier syncs): the APIs quorum reads on those platforms list no pull requests. `triage`
reads a pull request's ``/quorum`` commands for `quorum review --db`, kept only from the
accounts the configuration's ``triagers`` lists.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from review_quorum.cli import progress
from review_quorum.errors import ConfigError

if TYPE_CHECKING:
    from review_quorum.history.sync import PlatformPulls, SyncReport
    from review_quorum.history.triage import Screened
    from review_quorum.ingest.base import ReadOptions

PLATFORMS = ("gitlab", "azure_devops", "bitbucket")


def platform_of(args: argparse.Namespace) -> str | None:
    """The one platform flag given (None: GitHub); two are an error."""
    given = [name for name in PLATFORMS if getattr(args, name, False)]
    if len(given) > 1:
        flags = " and ".join(f"--{name.replace('_', '-')}" for name in given)
        raise ConfigError(f"{flags} name different platforms: give one")
    return given[0] if given else None


def gitlab_name(project: str, env: Mapping[str, str]) -> tuple[str, str]:
    """A GitLab project's name in the history, by its path."""
    if project.isdigit():
        path = env.get("CI_PROJECT_PATH", "").strip()
        if not path or env.get("CI_PROJECT_ID", "").strip() != project:
            raise ConfigError(
                f"GitLab project {project} is named by its number: the history names a "
                "project by its path, so pass --project GROUP/PROJECT"
            )
        project = path
    group, _, rest = project.strip("/").partition("/")
    return f"gitlab:{group}", rest


def azure_devops_name(organization: str, project: str, repository: str) -> tuple[str, str]:
    return f"azure-devops:{organization}", f"{project}/{repository}"


def bitbucket_name(workspace: str, repo_slug: str) -> tuple[str, str]:
    return f"bitbucket:{workspace}", repo_slug


def where(
    args: argparse.Namespace, platform: str, env: Mapping[str, str], number: int | None
) -> Any:
    """The platform's pull request `number` (None: the one the pipeline names) in the
    repository `args` and the pipeline's variables name."""
    if platform == "gitlab":
        from review_quorum.gitlab.target import resolve_merge_request

        return resolve_merge_request(args.project, number, env)
    if platform == "azure_devops":
        from review_quorum.azure_devops.target import resolve_pull_request

        return resolve_pull_request(args.organization, args.project, args.repo, number, env)
    from review_quorum.bitbucket.target import resolve_pull_request as bitbucket_pull

    return bitbucket_pull(args.repo, number, env)


def name_of(target: Any, platform: str, env: Mapping[str, str]) -> tuple[str, str]:
    """The history's name of the repository `target` is in."""
    if platform == "gitlab":
        return gitlab_name(target.project, env)
    if platform == "azure_devops":
        return azure_devops_name(target.organization, target.project, target.repository)
    return bitbucket_name(target.workspace, target.repo_slug)


def sync(
    args: argparse.Namespace,
    platform: str,
    database: Any,
    options: ReadOptions,
    env: Mapping[str, str] | None = None,
) -> tuple[str, SyncReport]:
    """`quorum history sync` on GitLab, Azure DevOps or Bitbucket: (repository, report)."""
    from review_quorum.cli.posting import make_http_client
    from review_quorum.history.sync import known_pulls, sync_pulls

    env = os.environ if env is None else env
    if args.since is not None or args.last is not None:
        raise ConfigError(
            "--since and --last choose among the pull requests GitHub lists; on this platform "
            "name them with --pr N (and the history's own are read again)"
        )
    named = list(args.pr or [])
    target = where(args, platform, env, (named or [1])[0])  # only its repository is used
    owner, repo = name_of(target, platform, env)
    if not named and not known_pulls(database, owner, repo):
        raise ConfigError(
            f"nothing to read for {owner}/{repo}: name pull requests with --pr N (quorum "
            "does not list them on this platform), or record runs with --db first"
        )
    http = make_http_client()
    try:
        source = _source(platform, target, owner, repo, http, env)
        report = sync_pulls(
            database,
            source,
            named,
            progress=_progress if sys.stderr.isatty() else None,
            options=options,
        )
    finally:
        http.close()
    return f"{owner}/{repo}", report


def _source(
    platform: str, target: Any, owner: str, repo: str, http: Any, env: Mapping[str, str]
) -> PlatformPulls:
    from review_quorum.cli import github_input

    timing = github_input.TIMING  # read at call time, so that tests can replace it
    waits = {"sleep": timing.sleep, "clock": timing.clock, "on_wait": progress.note}
    if platform == "gitlab":
        from review_quorum.gitlab.client import GitLabClient
        from review_quorum.history.gitlab_reads import GitLabSource

        client = GitLabClient.from_env(http, env, **waits)
        user = client.current_user()
        return GitLabSource(client, target.project, owner, repo, user.username if user else "")
    if platform == "azure_devops":
        from review_quorum.azure_devops.client import AzureDevOpsClient
        from review_quorum.history.azure_devops_reads import AzureDevOpsSource

        ado = AzureDevOpsClient.from_env(http, env, **waits)
        identity = ado.identity(target.organization)
        return AzureDevOpsSource(ado, target, owner, repo, identity.id if identity else "")
    from review_quorum.bitbucket.client import BitbucketClient
    from review_quorum.history.bitbucket_reads import BitbucketSource

    bitbucket = BitbucketClient.from_env(http, env, **waits)
    account = bitbucket.current_account()
    return BitbucketSource(bitbucket, target, owner, repo, account.uuid if account else "")


def _progress(index: int, total: int, info: Any) -> None:
    end = "\n" if index + 1 == total else ""
    print(
        f"\rquorum: reading pull request {index + 1}/{total} (#{info.number})",
        end=end,
        file=sys.stderr,
    )


def triage(
    platform: str,
    client: Any,
    snapshot: Any,
    own: str,
    triagers: Sequence[str],
    bot_logins: Mapping[str, str],
) -> Screened:
    """The configured triagers' decisions on a pull request read for `quorum review`."""
    if platform == "gitlab":
        from review_quorum.history import gitlab_reads

        return gitlab_reads.read_decisions(client, snapshot, own, triagers, bot_logins)
    if platform == "azure_devops":
        from review_quorum.history import azure_devops_reads

        return azure_devops_reads.read_decisions(snapshot, own, triagers, bot_logins)
    from review_quorum.history import bitbucket_reads

    return bitbucket_reads.read_decisions(snapshot, own, triagers, bot_logins)
