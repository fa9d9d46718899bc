"""Which pull request: from `--organization --project --repo --pr` or a pipeline's variables.

In a pipeline run for a pull request Azure Pipelines sets ``SYSTEM_COLLECTIONURI``
(``https://dev.azure.com/ORG/``, or ``https://ORG.visualstudio.com/``), ``SYSTEM_TEAMPROJECT``,
``BUILD_REPOSITORY_NAME`` and ``SYSTEM_PULLREQUEST_PULLREQUESTID``; command-line values win.
Each name becomes one URL-encoded path segment, so a name can never reach another route.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

import httpx
import msgspec

from review_quorum.errors import ConfigError

_NUMBER = re.compile(r"[0-9]{1,10}")  # a request number from a pipeline variable

# Azure DevOps forbids these in organisation, project and repository names.
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|;#$%&@+=,{}\[\]^`~]")


class AzurePullRequest(msgspec.Struct, frozen=True):
    """One pull request of one repository of one project of one organisation."""

    organization: str
    project: str
    repository: str
    pull_id: int

    @classmethod
    def create(
        cls, organization: str, project: str, repository: str, pull_id: int
    ) -> AzurePullRequest:
        """A pull request from its names and id, validated."""
        names = {"--organization": organization, "--project": project, "--repo": repository}
        for flag, value in names.items():
            text = value.strip()
            if not text or text in (".", "..") or _FORBIDDEN.search(text.replace(" ", "")):
                raise ConfigError(f"{flag}: not an Azure DevOps name: {value!r}")
        if pull_id < 1:
            raise ConfigError(f"--pr: expected a pull request id >= 1, not {pull_id}")
        return cls(organization.strip(), project.strip(), repository.strip(), pull_id)

    @property
    def project_path(self) -> str:
        """``/{organization}/{project}``, each segment encoded."""
        return f"/{quote(self.organization, safe='')}/{quote(self.project, safe='')}"

    @property
    def repository_path(self) -> str:
        return f"{self.project_path}/_apis/git/repositories/{quote(self.repository, safe='')}"

    @property
    def path(self) -> str:
        """The API path of the pull request (``pullRequests``, as the thread routes spell it)."""
        return f"{self.repository_path}/pullRequests/{self.pull_id}"

    def __str__(self) -> str:
        return f"{self.organization}/{self.project}/{self.repository}!{self.pull_id}"


def organization_from(collection_uri: str) -> str | None:
    """The organisation a collection URI names: ``https://dev.azure.com/ORG/``,
    ``https://ORG.visualstudio.com/``, or an Azure DevOps Server's collection (its last
    path segment)."""
    try:
        url = httpx.URL(collection_uri.strip())
    except httpx.InvalidURL:
        return None
    host = url.host or ""
    if url.scheme not in ("https", "http") or not host:
        return None
    if host.endswith(".visualstudio.com"):
        return host.removesuffix(".visualstudio.com") or None
    segments = [part for part in url.path.split("/") if part]
    if not segments:
        return None
    return segments[0] if host == "dev.azure.com" else segments[-1]


def resolve_pull_request(
    organization: str | None,
    project: str | None,
    repository: str | None,
    pull_id: int | None,
    env: Mapping[str, str],
) -> AzurePullRequest:
    """The pull request named on the command line, completed from the pipeline's variables."""
    organization = organization or organization_from(env.get("SYSTEM_COLLECTIONURI", ""))
    project = project or env.get("SYSTEM_TEAMPROJECT", "").strip()
    repository = repository or env.get("BUILD_REPOSITORY_NAME", "").strip()
    if pull_id is None:
        text = env.get("SYSTEM_PULLREQUEST_PULLREQUESTID", "").strip()
        pull_id = int(text) if _NUMBER.fullmatch(text) else None  # not '²', not 4,300 digits
    missing = [
        flag
        for flag, value in (
            ("--organization", organization),
            ("--project", project),
            ("--repo", repository),
            ("--pr", pull_id),
        )
        if not value
    ]
    if missing or organization is None or pull_id is None:
        raise ConfigError(
            f"no Azure DevOps pull request ({', '.join(missing)} missing): pass "
            "--organization ORG --project PROJECT --repo REPOSITORY --pr ID, or run in a "
            "pipeline triggered by a pull request"
        )
    return AzurePullRequest.create(organization, project, repository, pull_id)


def pull_request_page(target: AzurePullRequest, env: Mapping[str, str]) -> str:
    """The pull request's web address: under the pipeline's collection URI when it is the
    target's organisation, else under the API root (``https://dev.azure.com``)."""
    collection = env.get("SYSTEM_COLLECTIONURI", "").strip().rstrip("/")
    if not collection or organization_from(collection) != target.organization:
        api = env.get("AZURE_DEVOPS_API_URL", "").strip().rstrip("/") or "https://dev.azure.com"
        collection = f"{api}/{quote(target.organization, safe='')}"
    project, repository = quote(target.project, safe=""), quote(target.repository, safe="")
    return f"{collection}/{project}/_git/{repository}/pullrequest/{target.pull_id}"
