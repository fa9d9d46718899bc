"""Reading a pull request: its head commit, its latest iteration, that iteration's files and
every thread.

`read_pull_request(client, target)` asks for the pull request (the head commit is
``lastMergeSourceCommit.commitId``), its iterations (the newest one: a thread anchors on
it), the files that iteration changes (each file's ``changeTrackingId``, which anchors a
thread on it; paged with ``$top``/``$skip`` until ``nextTop`` is 0) and every thread, with
positions tracked to the newest iteration (``$iteration``). Threads are kept as Azure
DevOps' JSON: the thread reader (`ingest.azure_devops_threads`) decides what they mean.
"""

from __future__ import annotations

from typing import Any

import msgspec

from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.target import AzurePullRequest
from review_quorum.errors import AzureDevOpsError

PAGE = 1000
MAX_PAGES = 100


class ChangedFile(msgspec.Struct, frozen=True):
    """A file of the latest iteration: its tracking id, and whether it was deleted."""

    tracking_id: int
    deleted: bool = False


class AzurePullSnapshot(msgspec.Struct, frozen=True):
    """One reading of a pull request."""

    target: AzurePullRequest
    head_sha: str
    iteration: int
    files: dict[str, ChangedFile] = msgspec.field(default_factory=dict)  # "/path" -> file
    threads: tuple[dict[str, Any], ...] = ()
    web_url: str = ""
    pull: dict[str, Any] = msgspec.field(default_factory=dict)  # as Azure DevOps gave it
    iterations: tuple[dict[str, Any], ...] = ()


def read_pull_request(
    client: AzureDevOpsClient, target: AzurePullRequest, *, changes: bool = True
) -> AzurePullSnapshot:
    """Read `target` now (the latest iteration's changed files too when `changes`)."""
    pull = client.get(
        f"{target.repository_path}/pullrequests/{target.pull_id}",
    )
    if not isinstance(pull, dict):
        raise AzureDevOpsError(f"Azure DevOps API: no pull request {target}")
    source = pull.get("lastMergeSourceCommit")
    head = source.get("commitId") if isinstance(source, dict) else None
    if not isinstance(head, str) or not head:
        raise AzureDevOpsError(
            f"Azure DevOps API: pull request {target} names no source commit yet; run again "
            "when it shows its changes"
        )
    iterations = _objects(client.values(f"{target.path}/iterations"), "iterations")
    latest = max((_number(item.get("id")) for item in iterations), default=0)
    files = read_changes(client, target, latest) if changes and latest else {}
    threads = _objects(
        client.values(f"{target.path}/threads", {"$iteration": str(latest)} if latest else None),
        "threads",
    )
    return AzurePullSnapshot(
        target=target,
        head_sha=head,
        iteration=latest,
        files=files,
        threads=threads,
        web_url=_web_url(pull, target),
        pull=pull,
        iterations=iterations,
    )


def read_changes(
    client: AzureDevOpsClient, target: AzurePullRequest, iteration: int
) -> dict[str, ChangedFile]:
    """The files `iteration` changes, by path (with its leading ``/``)."""
    files: dict[str, ChangedFile] = {}
    skip = 0
    for _ in range(MAX_PAGES):
        page = client.get(
            f"{target.path}/iterations/{iteration}/changes",
            {"$top": str(PAGE), "$skip": str(skip)},
        )
        entries = page.get("changeEntries") if isinstance(page, dict) else None
        if not isinstance(entries, list):
            raise AzureDevOpsError(f"Azure DevOps API: iteration {iteration} listed no changes")
        for entry in entries:
            item = entry.get("item") if isinstance(entry, dict) else None
            path = item.get("path") if isinstance(item, dict) else None
            tracking = entry.get("changeTrackingId") if isinstance(entry, dict) else None
            if isinstance(path, str) and isinstance(tracking, int):
                deleted = "delete" in str(entry.get("changeType", ""))
                files[path] = ChangedFile(tracking, deleted)
        following = page.get("nextTop") if isinstance(page, dict) else 0
        if not isinstance(following, int) or following <= 0:
            return files
        next_skip = page.get("nextSkip")
        if not isinstance(next_skip, int) or next_skip <= skip:
            raise AzureDevOpsError(f"Azure DevOps API: iteration {iteration}'s changes repeat")
        skip = next_skip
    raise AzureDevOpsError(f"Azure DevOps API: iteration {iteration} has too many changes")


def _web_url(pull: dict[str, Any], target: AzurePullRequest) -> str:
    repository = pull.get("repository")
    web = repository.get("webUrl") if isinstance(repository, dict) else None
    return f"{web}/pullrequest/{target.pull_id}" if isinstance(web, str) and web else ""


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _objects(items: list[Any], what: str) -> tuple[dict[str, Any], ...]:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise AzureDevOpsError(f"Azure DevOps API listed {what} item {index} that is no object")
    return tuple(items)
