"""`quorum history sync`: past pull requests and what happened to their bot comments.

`sync` lists the repository's pull requests (``--since`` a date, the ``--last`` N, or all),
and for each one not already stored in its current state reads it from GitHub, labels it
(`pulls.label`) and stores it in one transaction: the pull request's row, its bot comments
and findings (replacing what an earlier sync stored) and its progress mark. A sync that is
interrupted loses at most the pull request it was reading; run again, it skips what is
stored and redoes the rest, so the database ends as an uninterrupted sync leaves it. A
merged or closed pull request is stored once per `updated_at`; an open one is read again
on every sync, since its outcomes are still being decided.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import msgspec

from review_quorum.github.client import GitHubClient
from review_quorum.history.database import Database
from review_quorum.history.github_reads import list_pulls, read_pull_comments, read_reading
from review_quorum.history.pulls import LabelledComment, PullHistory, PullInfo, bot_comments, label
from review_quorum.history.recording import ensure_pull_request
from review_quorum.ingest.base import ReadOptions

Progress = Callable[[int, int, PullInfo], None]


class SyncReport(msgspec.Struct, frozen=True):
    listed: int
    read: int
    up_to_date: int
    comments: int
    findings: int

    def describe(self, repository: str) -> str:
        return (
            f"history sync {repository}: {self.listed} pull request(s) listed, {self.read} read, "
            f"{self.up_to_date} already up to date; {self.comments} bot comment(s) with "
            f"{self.findings} finding(s) stored"
        )


def sync(
    database: Database,
    client: GitHubClient,
    owner: str,
    repo: str,
    *,
    since: str | None = None,
    last: int | None = None,
    progress: Progress | None = None,
    options: ReadOptions | None = None,
) -> SyncReport:
    """Bring the stored history of `owner/repo` up to date with GitHub.

    `options` are the reading options bot comments are read with (bot logins, categories).
    """
    pulls = list_pulls(client, owner, repo, since=since, last=last)
    read = comments = findings = 0
    for index, info in enumerate(pulls):
        if progress is not None:
            progress(index, len(pulls), info)
        if is_stored(database, owner, repo, info):
            continue
        history = read_pull_history(client, owner, repo, info, options)
        save_pull(database, owner, repo, history)
        read += 1
        comments += len(history.comments)
        findings += sum(len(comment.findings) for comment in history.comments)
    return SyncReport(len(pulls), read, len(pulls) - read, comments, findings)


class PlatformPulls(Protocol):
    """A platform whose pull requests the history reads one at a time (GitLab, Azure DevOps
    and Bitbucket: the APIs quorum reads there have no list of pull requests). `owner`
    and `repo` name the repository in the history."""

    owner: str
    repo: str

    def info(self, number: int) -> PullInfo: ...

    def history(self, number: int, options: ReadOptions | None) -> PullHistory: ...


def sync_pulls(
    database: Database,
    source: PlatformPulls,
    numbers: Iterable[int] = (),
    *,
    progress: Progress | None = None,
    options: ReadOptions | None = None,
) -> SyncReport:
    """Bring the stored history of `numbers` and of every pull request of the source's
    repository the history already holds (recorded runs, earlier syncs) up to date."""
    wanted = sorted({*numbers, *known_pulls(database, source.owner, source.repo)})
    read = comments = findings = 0
    for index, number in enumerate(wanted):
        info = source.info(number)
        if progress is not None:
            progress(index, len(wanted), info)
        if is_stored(database, source.owner, source.repo, info):
            continue
        history = source.history(number, options)
        save_pull(database, source.owner, source.repo, history)
        read += 1
        comments += len(history.comments)
        findings += sum(len(comment.findings) for comment in history.comments)
    return SyncReport(len(wanted), read, len(wanted) - read, comments, findings)


def known_pulls(database: Database, owner: str, repo: str) -> list[int]:
    """The numbers of the repository's pull requests the history holds."""
    rows = database.rows(
        "SELECT p.number FROM pull_requests p JOIN repositories r ON r.id = p.repository_id"
        " WHERE r.owner = ? AND r.name = ? ORDER BY p.number",
        (owner, repo),
    )
    return [int(number) for (number,) in rows]


def read_pull_history(
    client: GitHubClient,
    owner: str,
    repo: str,
    info: PullInfo,
    options: ReadOptions | None = None,
) -> PullHistory:
    """One pull request read from GitHub and labelled."""
    pulled = read_pull_comments(client, owner, repo, info.number)
    name = f"{owner}/{repo}#{info.number} (GitHub comments)"
    comments = bot_comments(pulled, name, options)
    records = [item.record for item in pulled if isinstance(item.record, Mapping)]
    reading = read_reading(client, owner, repo, info, records, comments)
    return label(reading, comments)


def is_stored(database: Database, owner: str, repo: str, info: PullInfo) -> bool:
    """Whether this closed pull request is stored as it is now (open ones never are)."""
    if info.state == "open":
        return False
    stored = database.value(
        "SELECT s.updated_at FROM sync_progress s"
        " JOIN pull_requests p ON p.id = s.pull_request_id"
        " JOIN repositories r ON r.id = p.repository_id"
        " WHERE r.owner = ? AND r.name = ? AND p.number = ?",
        (owner, repo, info.number),
    )
    return bool(stored == info.updated_at)


def save_pull(database: Database, owner: str, repo: str, history: PullHistory) -> None:
    """Store one pull request's history, replacing what was stored of it, in one transaction."""
    info = history.info
    with database.transaction():
        pull_id = ensure_pull_request(database, owner, repo, info.number)
        database.execute(
            "UPDATE pull_requests SET title = ?, author = ?, state = ?, created_at = ?,"
            " updated_at = ?, closed_at = ?, merged_at = ? WHERE id = ?",
            (
                info.title,
                info.author,
                info.state,
                info.created_at,
                info.updated_at,
                info.closed_at,
                info.merged_at,
                pull_id,
            ),
        )
        database.execute("DELETE FROM comments WHERE pull_request_id = ?", (pull_id,))
        database.execute_many(
            "INSERT INTO comments (pull_request_id, kind, rest_id, node_id, author, bot,"
            " created_at, html_url, path, line, thread_resolved, resolved_by, author_reply,"
            " reactions_up, reactions_down, minimized_reason, minimized_by_quorum)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_comment_row(pull_id, comment) for comment in history.comments],
        )
        _save_findings(database, pull_id, history.comments)
        database.execute(
            "INSERT INTO sync_progress (pull_request_id, updated_at) VALUES (?, ?)"
            " ON CONFLICT (pull_request_id) DO UPDATE SET updated_at = excluded.updated_at",
            (pull_id, info.updated_at),
        )


def _comment_row(pull_id: int, labelled: LabelledComment) -> tuple[Any, ...]:
    comment = labelled.comment
    record = comment.record
    user = record.get("user") or {}
    line = record.get("original_line") or record.get("line")
    return (
        pull_id,
        comment.kind,
        comment.rest_id,
        str(record.get("node_id") or ""),
        str(user.get("login") or ""),
        comment.bot,
        str(record.get("created_at") or record.get("submitted_at") or ""),
        str(record.get("html_url") or ""),
        str(record.get("path") or ""),
        line if isinstance(line, int) else None,
        labelled.thread_resolved,
        labelled.resolved_by,
        labelled.author_reply,
        labelled.reactions_up,
        labelled.reactions_down,
        labelled.minimized_reason,
        int(labelled.minimized_by_quorum),
    )


def _save_findings(database: Database, pull_id: int, comments: tuple[LabelledComment, ...]) -> None:
    rows = database.rows(
        "SELECT kind, rest_id, id FROM comments WHERE pull_request_id = ?", (pull_id,)
    )
    ids = {(kind, int(rest_id)): int(row_id) for kind, rest_id, row_id in rows}
    database.execute_many(
        "INSERT INTO comment_findings (comment_id, position, finding_key, rule_id, category,"
        " title, severity, file, line, end_line, lines_changed, changed_by, cluster,"
        " cluster_bots) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                ids[(labelled.comment.kind, labelled.comment.rest_id)],
                position,
                item.finding.finding_id,
                item.finding.rule_id,
                item.finding.category,
                item.finding.title,
                item.finding.severity.label,
                item.finding.file,
                item.finding.line,
                item.finding.evidence.end_line,
                item.lines_changed,
                item.changed_by,
                item.cluster,
                item.cluster_bots,
            )
            for labelled in comments
            for position, item in enumerate(labelled.findings)
        ],
    )
