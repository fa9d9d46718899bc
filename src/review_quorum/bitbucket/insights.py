"""A Code Insights report and its annotations on the pull request's head commit: the
Bitbucket analogue of the check run, idempotent by our own report id.

`post_insights` asks for the pull request's head commit, creates or updates the report
under our id (``PUT .../reports/{id}``), reads the report's annotations already there,
deletes those of findings no longer annotated, and sends the new or changed ones in bulk
(at most 100 a request); annotations are keyed by ``external_id`` (the finding's
fingerprint), so a re-run updates them in place and an unchanged one is not sent again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import msgspec

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.poster import head_commit
from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot
from review_quorum.bitbucket.target import BitbucketPullRequest
from review_quorum.errors import BitbucketError, ConfigError
from review_quorum.render.code_insights import InsightsReport

BULK = 100
REPORT_ID = "review-quorum"
_REPORT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class InsightsResult(msgspec.Struct, frozen=True):
    """What one run did (or, in a dry run, would do)."""

    target: str
    report: str
    commit: str
    sent: int
    unchanged: int
    deleted: int
    left_out: int
    dry_run: bool
    warnings: tuple[str, ...] = ()

    def describe(self) -> str:
        verb = "would send" if self.dry_run else "sent"
        text = (
            f"{self.target}: report {self.report} on {self.commit[:12]}: {verb} "
            f"{self.sent} annotation(s), {self.unchanged} unchanged, {self.deleted} removed"
        )
        if self.left_out:
            text += f", {self.left_out} past Bitbucket's 1,000 left out"
        return text


def report_id(name: str) -> str:
    """Our report's id, from the check name: letters, digits, dot, dash, underscore."""
    if not _REPORT_ID.fullmatch(name):
        raise ConfigError(
            f"--check-name: a Code Insights report id is letters, digits, '.', '-' and '_' "
            f"(at most 100), not {name!r}"
        )
    return name


def post_insights(
    client: BitbucketClient,
    target: BitbucketPullRequest,
    insights: InsightsReport,
    *,
    name: str = REPORT_ID,
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> InsightsResult:
    """Create or update our report on the head commit and bring its annotations in line."""
    dry_run = dry_run or client.dry_run
    identifier = report_id(name)
    snapshot = None if client.offline else _head(client, target)
    commit = head_commit(snapshot, env or {})
    path = (
        f"{target.repository_path}/commit/{quote(commit, safe='')}/reports/"
        f"{quote(identifier, safe='')}"
    )
    client.write("PUT", path, insights.report, dry_run=dry_run)
    existing = {
        item.get("external_id"): item
        for item in client.paginate(f"{path}/annotations")
        if isinstance(item, dict)
    }
    wanted = {item["external_id"]: item for item in insights.annotations}
    stale = [key for key in existing if isinstance(key, str) and key not in wanted]
    for key in stale:
        try:
            client.write("DELETE", f"{path}/annotations/{quote(key, safe='')}", dry_run=dry_run)
        except BitbucketError as err:
            if err.status != 404:  # already gone: what we wanted
                raise
    changed = [item for key, item in wanted.items() if not _same(existing.get(key), item)]
    for start in range(0, len(changed), BULK):
        client.write("POST", f"{path}/annotations", changed[start : start + BULK], dry_run=dry_run)
    warnings: tuple[str, ...] = ()
    if insights.left_out:
        warnings = (
            f"{insights.left_out} finding(s) past Bitbucket's 1,000 annotations per report "
            "are not annotated (the report counts them)",
        )
    return InsightsResult(
        target=str(target),
        report=identifier,
        commit=commit,
        sent=len(changed),
        unchanged=len(wanted) - len(changed),
        deleted=len(stale),
        left_out=insights.left_out,
        dry_run=dry_run,
        warnings=warnings,
    )


def _head(client: BitbucketClient, target: BitbucketPullRequest) -> BitbucketPullSnapshot:
    pull = client.get(target.path)
    source = pull.get("source") if isinstance(pull, dict) else None
    commit = source.get("commit") if isinstance(source, dict) else None
    sha = commit.get("hash") if isinstance(commit, dict) else None
    if not isinstance(sha, str) or not sha:
        raise BitbucketError(f"Bitbucket API GET {target.path}: no source commit")
    return BitbucketPullSnapshot(target=target, head_sha=sha)


def _same(existing: object, wanted: Mapping[str, Any]) -> bool:
    """Whether an annotation already says what we would send (every field we send)."""
    if not isinstance(existing, dict):
        return False
    return all(existing.get(key) == value for key, value in wanted.items()) and (
        "result" in wanted or existing.get("result") is None
    )
