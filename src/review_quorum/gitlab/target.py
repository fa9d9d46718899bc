"""Which merge request: from `--project ID|PATH --mr IID` or a merge request pipeline.

In a merge request pipeline GitLab sets ``CI_PROJECT_ID`` and ``CI_MERGE_REQUEST_IID``;
command-line values win. A project is its numeric id or its full path
(``group/subgroup/project``), which is URL-encoded into one path segment, as GitLab
requires (an unencoded ``/`` matches no route). Merge requests are addressed by their
``iid``, the number shown in the web interface.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote

import msgspec

from review_quorum.errors import ConfigError

_NUMBER = re.compile(r"[0-9]{1,10}")  # a request number from a pipeline variable

_PROJECT = re.compile(r"[0-9]+|[A-Za-z0-9_.][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.][A-Za-z0-9_.-]*)+")


class MergeRequest(msgspec.Struct, frozen=True):
    """One merge request of one project."""

    project: str
    iid: int

    @classmethod
    def create(cls, project: str, iid: int) -> MergeRequest:
        """A merge request from a project id or path and its iid, validated."""
        project = project.strip().strip("/")
        if not _PROJECT.fullmatch(project) or ".." in project.split("/"):
            raise ConfigError(f"--project: expected a project id or GROUP/PROJECT, not {project!r}")
        if iid < 1:
            raise ConfigError(f"--mr: expected a merge request iid >= 1, not {iid}")
        return cls(project, iid)

    @property
    def project_path(self) -> str:
        """The API path of the project, ``/projects/<id or encoded path>``."""
        return f"/projects/{quote(self.project, safe='')}"

    @property
    def path(self) -> str:
        """The API path of the merge request."""
        return f"{self.project_path}/merge_requests/{self.iid}"

    def __str__(self) -> str:
        return f"{self.project}!{self.iid}"


def resolve_merge_request(
    project: str | None, iid: int | None, env: Mapping[str, str]
) -> MergeRequest:
    """The merge request named on the command line, completed from the pipeline's variables."""
    project = project or env.get("CI_MERGE_REQUEST_PROJECT_ID") or env.get("CI_PROJECT_ID")
    if iid is None:
        text = env.get("CI_MERGE_REQUEST_IID", "").strip()
        iid = int(text) if _NUMBER.fullmatch(text) else None  # not '²', not 4,300 digits
    if not project or iid is None:
        raise ConfigError(
            "no merge request: pass --project ID|GROUP/PROJECT --mr IID, "
            "or run in a GitLab merge request pipeline"
        )
    return MergeRequest.create(project, iid)


def merge_request_page(target: MergeRequest, env: Mapping[str, str]) -> str:
    """The merge request's web address: from the pipeline's project URL, else the API's
    host and the project path. A numeric project outside a pipeline has no address known
    here: a page no link can be on, so that a saved plan's links are refused, not trusted."""
    project_url = (
        env.get("CI_MERGE_REQUEST_PROJECT_URL", "").strip() or env.get("CI_PROJECT_URL", "").strip()
    )
    if not project_url and not target.project.isdigit():
        api = env.get("GITLAB_API_URL", "").strip() or env.get("CI_API_V4_URL", "").strip()
        host = (api or "https://gitlab.com/api/v4").rstrip("/").removesuffix("/api/v4")
        project_url = f"{host}/{target.project}"
    if not project_url:
        return f"gitlab:{target}"
    return f"{project_url.rstrip('/')}/-/merge_requests/{target.iid}"
