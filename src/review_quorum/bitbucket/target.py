"""Which pull request: from `--repo WORKSPACE/REPO --pr ID` or a pipeline's variables.

In a pull request pipeline Bitbucket sets ``BITBUCKET_WORKSPACE``, ``BITBUCKET_REPO_SLUG``,
``BITBUCKET_PR_ID`` and ``BITBUCKET_COMMIT``; command-line values win. The workspace and
the repository slug are each one URL path segment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

import msgspec

from review_quorum.errors import ConfigError

_NUMBER = re.compile(r"[0-9]{1,10}")  # a request number from a pipeline variable

_SLUG = re.compile(r"[A-Za-z0-9_.{}-][A-Za-z0-9_.{}-]*")


class BitbucketPullRequest(msgspec.Struct, frozen=True):
    """One pull request of one repository of one workspace."""

    workspace: str
    repo_slug: str
    pull_id: int

    @classmethod
    def create(cls, workspace: str, repo_slug: str, pull_id: int) -> BitbucketPullRequest:
        for flag, value in (("workspace", workspace), ("repository", repo_slug)):
            if not _SLUG.fullmatch(value) or value in (".", ".."):
                raise ConfigError(f"--repo: not a Bitbucket {flag}: {value!r}")
        if pull_id < 1:
            raise ConfigError(f"--pr: expected a pull request id >= 1, not {pull_id}")
        return cls(workspace, repo_slug, pull_id)

    @property
    def repository_path(self) -> str:
        return f"/repositories/{quote(self.workspace, safe='')}/{quote(self.repo_slug, safe='')}"

    @property
    def path(self) -> str:
        return f"{self.repository_path}/pullrequests/{self.pull_id}"

    def __str__(self) -> str:
        return f"{self.workspace}/{self.repo_slug}#{self.pull_id}"


def resolve_pull_request(
    repo: str | None, pull_id: int | None, env: Mapping[str, str]
) -> BitbucketPullRequest:
    """The pull request named on the command line, completed from the pipeline's variables."""
    if repo:
        workspace, _, slug = repo.strip().partition("/")
        if not slug or "/" in slug:
            raise ConfigError(f"--repo: expected WORKSPACE/REPOSITORY, not {repo!r}")
    else:
        workspace = env.get("BITBUCKET_WORKSPACE", "").strip()
        slug = env.get("BITBUCKET_REPO_SLUG", "").strip()
    if pull_id is None:
        text = env.get("BITBUCKET_PR_ID", "").strip()
        pull_id = int(text) if _NUMBER.fullmatch(text) else None  # not '²', not 4,300 digits
    if not workspace or not slug or pull_id is None:
        raise ConfigError(
            "no Bitbucket pull request: pass --repo WORKSPACE/REPOSITORY --pr ID, or run in "
            "a pull request pipeline (BITBUCKET_WORKSPACE, BITBUCKET_REPO_SLUG, BITBUCKET_PR_ID)"
        )
    return BitbucketPullRequest.create(workspace, slug, pull_id)


def pull_request_page(target: BitbucketPullRequest) -> str:
    """The pull request's web address."""
    return (
        f"https://bitbucket.org/{quote(target.workspace, safe='')}/"
        f"{quote(target.repo_slug, safe='')}/pull-requests/{target.pull_id}"
    )
