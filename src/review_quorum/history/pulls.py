"""One past pull request, read and labelled: its bot comments, their findings, their signals.

Pure functions, no I/O. `bot_comments` reads a pull request's comments through the same
bot readers as `quorum review` (so the same comments count as findings, attributed to the
same bots) and groups the findings by the comment they came from. `label` then gathers each
comment's signals — thread resolved, the author's replies, people's reactions, minimized
(unless quorum hid it), and per finding whether a later commit changed its lines — and
clusters the pull request's findings with the consensus engine, so every finding knows how
many bots said the same thing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from review_quorum.comment_kinds import CommentKind
from review_quorum.history.changes import Change, Commit, Span, follow
from review_quorum.history.outcomes import author_reply, count_reactions
from review_quorum.ingest.base import ReadOptions
from review_quorum.ingest.comments import PullComment, read_comments
from review_quorum.model import NormalizedFinding
from review_quorum.scoring import compute_consensus

INLINE = CommentKind.INLINE.source_kind  # the kind of a BotComment whose key starts so


class PullInfo(msgspec.Struct, frozen=True):
    """A pull request as the list of pull requests describes it."""

    number: int
    title: str
    author: str
    state: str  # open | merged | closed
    created_at: str
    updated_at: str
    closed_at: str | None = None
    merged_at: str | None = None

    @classmethod
    def from_rest(cls, item: Mapping[str, Any]) -> PullInfo:
        user = item.get("user") or {}
        merged_at = item.get("merged_at")
        state = "merged" if merged_at else str(item.get("state") or "open")
        return cls(
            number=int(item["number"]),
            title=str(item.get("title") or ""),
            author=str(user.get("login") or ""),
            state=state,
            created_at=str(item.get("created_at") or ""),
            updated_at=str(item.get("updated_at") or ""),
            closed_at=item.get("closed_at"),
            merged_at=merged_at,
        )


class ThreadState(msgspec.Struct, frozen=True):
    resolved: bool
    resolved_by: str = ""


class PullReading(msgspec.Struct, frozen=True):
    """Everything read from the platform about one pull request."""

    info: PullInfo
    records: tuple[Mapping[str, Any], ...]
    commits: tuple[Commit, ...] = ()
    reactions: Mapping[str, Sequence[Mapping[str, Any]]] = msgspec.field(default_factory=dict)
    threads: Mapping[int, ThreadState] = msgspec.field(default_factory=dict)
    minimized: Mapping[str, str] = msgspec.field(default_factory=dict)
    quorum_hidden: frozenset[str] = frozenset()
    # Where the platform itself tracks a comment's lines (GitLab): by comment key, whether
    # they changed (1), did not (0) and the commit that changed them; a key missing here is
    # unknown. None (GitHub): follow the lines through `commits`' patches.
    tracked: Mapping[str, tuple[int, str]] | None = None


class BotComment(msgspec.Struct, frozen=True):
    """One bot comment and the findings read from it."""

    key: str  # kind:rest_id
    record: Mapping[str, Any]
    bot: str
    findings: tuple[NormalizedFinding, ...]

    @property
    def kind(self) -> str:
        return self.key.partition(":")[0]

    @property
    def rest_id(self) -> int:
        return int(self.key.partition(":")[2])


class LabelledFinding(msgspec.Struct, frozen=True):
    finding: NormalizedFinding
    lines_changed: int | None
    changed_by: str
    cluster: int
    cluster_bots: int


class LabelledComment(msgspec.Struct, frozen=True):
    comment: BotComment
    thread_resolved: int | None
    resolved_by: str
    author_reply: str
    reactions_up: int
    reactions_down: int
    minimized_reason: str | None
    minimized_by_quorum: bool
    findings: tuple[LabelledFinding, ...]


class PullHistory(msgspec.Struct, frozen=True):
    info: PullInfo
    comments: tuple[LabelledComment, ...]


def reading_as(options: ReadOptions | None, own: str) -> ReadOptions | None:
    """`options` reading as our own account `own`, unless the caller named one."""
    if own and options is not None and options.own_login is None:
        return replace(options, own_login=own)
    return options


def bot_comments(
    comments: Sequence[PullComment], name: str, options: ReadOptions | None = None
) -> list[BotComment]:
    """The bot comments among `comments`, each with its findings, in the same order."""
    batch = read_comments(comments, name=name, options=options)
    by_key: dict[str, list[NormalizedFinding]] = defaultdict(list)
    for finding in batch.findings:
        if finding.source is not None:
            by_key[f"{finding.source.kind}:{finding.source.rest_id}"].append(finding)
    found = []
    for comment in comments:
        record = comment.record
        if comment.kind is None or not isinstance(record, Mapping):
            continue
        key = f"{comment.kind.source_kind}:{record.get('id')}"
        if key in by_key:
            found.append(BotComment(key, record, by_key[key][0].bot, tuple(by_key[key])))
    return found


def anchor_index(comment: BotComment, commits: Sequence[Commit]) -> int:
    """The index of the commit the comment was written against (-1 when before them all)."""
    record = comment.record
    sha = record.get("original_commit_id") or record.get("commit_id")
    for index, commit in enumerate(commits):
        if commit.sha == sha:
            return index
    created = str(record.get("created_at") or record.get("submitted_at") or "")
    earlier = [i for i, commit in enumerate(commits) if commit.committed_at <= created]
    return earlier[-1] if earlier else -1


def label(reading: PullReading, comments: Sequence[BotComment]) -> PullHistory:
    """The pull request's bot comments with their signals and clusters."""
    clusters = _clusters(comments)
    replies = _author_replies(reading)
    labelled = [
        _label_comment(reading, comment, clusters, replies.get(comment.rest_id, []))
        for comment in comments
    ]
    return PullHistory(reading.info, tuple(labelled))


def _label_comment(
    reading: PullReading,
    comment: BotComment,
    clusters: Mapping[str, tuple[int, int]],
    replies: list[str],
) -> LabelledComment:
    thread = reading.threads.get(comment.rest_id) if comment.kind == INLINE else None
    up, down = count_reactions(reading.reactions.get(comment.key, ()))
    reason = reading.minimized.get(comment.key)
    by_quorum = reason is not None and comment.key in reading.quorum_hidden
    later = reading.commits[anchor_index(comment, reading.commits) + 1 :]
    findings = []
    for finding in comment.findings:
        verdict: tuple[int | None, str]
        if reading.tracked is None:
            verdict = _lines_verdict(comment, finding, later)
        else:
            verdict = reading.tracked.get(comment.key, (None, ""))
        cluster, bots = clusters[finding.finding_id]
        findings.append(LabelledFinding(finding, verdict[0], verdict[1], cluster, bots))
    return LabelledComment(
        comment=comment,
        thread_resolved=None if thread is None else int(thread.resolved),
        resolved_by=thread.resolved_by if thread else "",
        author_reply=author_reply(replies),
        reactions_up=up,
        reactions_down=down,
        minimized_reason=None if by_quorum else reason,
        minimized_by_quorum=by_quorum,
        findings=tuple(findings),
    )


def _lines_verdict(
    comment: BotComment, finding: NormalizedFinding, later: Sequence[Commit]
) -> tuple[int | None, str]:
    span = _span(comment, finding)
    if span is None:
        return None, ""
    verdict = follow(span, later)
    if verdict.change is Change.UNKNOWN:
        return None, ""
    return int(verdict.change is Change.CHANGED), verdict.commit


def _span(comment: BotComment, finding: NormalizedFinding) -> Span | None:
    """Where the finding points, in the coordinates of the commit it was written against."""
    record = comment.record
    if comment.kind == INLINE:
        if record.get("side", "RIGHT") != "RIGHT" or not record.get("original_line"):
            return None
        end = int(record["original_line"])
        start = int(record.get("original_start_line") or end)
        return Span(str(record.get("path") or finding.file), start, end)
    if not finding.file or finding.line is None:
        return None
    return Span(finding.file, finding.line, finding.evidence.end_line or finding.line)


def _clusters(comments: Sequence[BotComment]) -> dict[str, tuple[int, int]]:
    """Per finding id: its cluster's number and how many distinct bots the cluster holds."""
    findings = [finding for comment in comments for finding in comment.findings]
    result: dict[str, tuple[int, int]] = {}
    for number, cluster in enumerate(compute_consensus(findings)):
        for member in cluster.members:
            result[member.finding_id] = (number, len(cluster.detected_by))
    return result


def _author_replies(reading: PullReading) -> dict[int, list[str]]:
    """The PR author's replies in review threads, by the id of the comment replied to."""
    replies: dict[int, list[str]] = defaultdict(list)
    author = reading.info.author
    for record in reading.records:
        parent = record.get("in_reply_to_id")
        user = record.get("user") or {}
        if parent is not None and author and user.get("login") == author:
            replies[int(parent)].append(str(record.get("body") or ""))
    return replies
