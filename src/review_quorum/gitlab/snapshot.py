"""Reading a merge request: its diff refs, its latest version and every discussion.

`read_merge_request(client, target)` asks for the merge request (``diff_refs``: the base,
start and head SHAs a diff note is anchored with; ``web_url``), its versions (the newest
one, whose creation tells which notes came after the latest push) and all of its
discussions, page by page. Discussions are kept as GitLab's JSON, untouched: the GitLab
note reader (`ingest.gitlab_notes`) decides what they mean. With `diff=True` the newest
version's file diffs are read as well, which tell the poster what lines can carry a note.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from review_quorum.delivery.timestamps import parse_timestamp
from review_quorum.errors import GitLabError
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.target import MergeRequest

if TYPE_CHECKING:
    from review_quorum.ingest.gitlab_notes import MergeRequestConversation


class DiffRefs(msgspec.Struct, frozen=True):
    """The three commits a diff note's position names."""

    base_sha: str
    start_sha: str
    head_sha: str


class MergeRequestSnapshot(msgspec.Struct, frozen=True):
    """One reading of a merge request."""

    target: MergeRequest
    refs: DiffRefs
    web_url: str = ""
    discussions: tuple[dict[str, Any], ...] = ()
    version_created_at: datetime | None = None
    diffs: tuple[dict[str, Any], ...] | None = None
    merge_request: dict[str, Any] = msgspec.field(default_factory=dict)  # as GitLab gave it
    versions: tuple[dict[str, Any], ...] = ()

    @property
    def head_sha(self) -> str:
        return self.refs.head_sha

    def conversation(self) -> MergeRequestConversation:
        """The notes of this reading as the GitLab note reader takes them (`review --gitlab`,
        `quorum post`'s rebuild and the history's sync read them alike)."""
        from review_quorum.ingest.gitlab_notes import conversation

        return conversation(
            self.discussions,
            head_sha=self.head_sha,
            web_url=self.web_url,
            head_committed_at=self.version_created_at,
        )


def read_merge_request(
    client: GitLabClient, target: MergeRequest, *, diff: bool = False
) -> MergeRequestSnapshot:
    """Read `target` now (its diff too when `diff`)."""
    merge_request = client.get(target.path)
    if not isinstance(merge_request, dict):
        raise GitLabError(f"GitLab API GET {target.path} returned no merge request")
    refs = diff_refs(merge_request, target)
    versions = _objects(client.paginate(f"{target.path}/versions"), "versions")
    newest = max(versions, key=lambda version: _number(version.get("id")), default=None)
    diffs = None
    if diff and newest is not None:
        diffs = version_diffs(client, target, _number(newest.get("id")))
    web_url = merge_request.get("web_url")
    return MergeRequestSnapshot(
        target=target,
        refs=refs,
        web_url=web_url if isinstance(web_url, str) else "",
        discussions=_objects(client.paginate(f"{target.path}/discussions"), "discussions"),
        version_created_at=parse_timestamp(newest.get("created_at")) if newest else None,
        diffs=diffs,
        merge_request=merge_request,
        versions=versions,
    )


def diff_refs(merge_request: dict[str, Any], target: MergeRequest) -> DiffRefs:
    """The merge request's ``diff_refs``; a merge request still being prepared has none."""
    refs = merge_request.get("diff_refs")
    values = [refs.get(name) if isinstance(refs, dict) else None for name in _REF_NAMES]
    if not all(isinstance(value, str) and value for value in values):
        raise GitLabError(
            f"GitLab API GET {target.path} returned no diff_refs: the merge request has no "
            "diff yet (GitLab is still preparing it); run again when it shows its changes"
        )
    base, start, head = (str(value) for value in values)
    return DiffRefs(base, start, head)


def version_diffs(
    client: GitLabClient, target: MergeRequest, version: int
) -> tuple[dict[str, Any], ...]:
    """The file diffs of one merge request version."""
    data = client.get(f"{target.path}/versions/{version}")
    files = data.get("diffs") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise GitLabError(f"GitLab API GET {target.path}/versions/{version} returned no diffs")
    return _objects(files, "diffs")


_REF_NAMES = ("base_sha", "start_sha", "head_sha")


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _objects(items: list[Any], what: str) -> tuple[dict[str, Any], ...]:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise GitLabError(f"GitLab API listed {what} item {index} that is not an object")
    return tuple(items)
