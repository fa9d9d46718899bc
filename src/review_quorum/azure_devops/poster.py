"""Posting a `ReviewDraft` to an Azure DevOps pull request, idempotently: `post_pull_request`.

One run reads who the token is (``connectionData``), the pull request, its latest iteration
with the files it changes, and every thread (positions tracked to that iteration), and
finds what is ours: threads whose first comment's author is the token's identity AND whose
content opens with our marker (a marker quoted by anyone else is inert). Then, in this
order: the one summary thread (a thread on no file) is created or its comment updated in
place (first, so that a token that cannot write is found out before anything else); each
inline finding becomes one thread anchored with ``threadContext`` (the path with its
leading ``/``, ``rightFileStart``/``rightFileEnd``) and ``pullRequestThreadContext`` (the
file's ``changeTrackingId``, comparing iteration 1 with the latest), unless one of ours
already sits on that line (Azure DevOps tracks threads through pushes); a finding on a
file the latest iteration does not change, or whose anchor Azure DevOps refuses (400), is
listed in the summary instead; a thread of ours left on an old line by a push is
re-anchored (a new thread on the new line, the old one deleted by deleting its comment,
unless someone replied to it); a still-reported finding's text is refreshed; with
`resolve_fixed`, the threads of findings no longer reported get status ``fixed`` (a thread
someone replied to, or a person already set to won't fix, by design or closed, is left
alone); and the gate becomes a pull request status (``context`` genre and name, on the
latest iteration), which a branch policy can require. Enums are sent as strings. A create
that fails in a way that may have been applied (5xx, lost connection) re-reads before
retrying, so a retry never duplicates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.azure_devops.client import TOKEN_HELP, AzureDevOpsClient
from review_quorum.azure_devops.snapshot import AzurePullSnapshot, ChangedFile, read_pull_request
from review_quorum.azure_devops.target import AzurePullRequest
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fixing import line_at, path_at
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import ThreadWork, live_fingerprint, reconcile_threads
from review_quorum.delivery.threads import Ours, WritesThrough, post_threads
from review_quorum.errors import AzureDevOpsError
from review_quorum.markup import dialects
from review_quorum.markup.markers import SUMMARY, find_markers, opens_with_marker

STATUS_NAME = "review-quorum"
STATUS_GENRE = "review-quorum"
# A person's triage: a thread set to one of these is never changed by a run.
TRIAGED = frozenset({"wontFix", "byDesign", "closed"})
NOT_IN_DIFF = (
    "These findings are on files or lines the pull request's latest iteration does not "
    "show, so they are listed here."
)


class AzurePostResult(ThreadPostResult, frozen=True):
    """What one run did on Azure DevOps (`ThreadPostResult`)."""

    words = Words(
        "new thread(s)",
        "set to fixed",
        "replied to or triaged",
        "summary thread",
        "pull request status",
    )


class AzureThread(msgspec.Struct, frozen=True):
    """One of our finding threads: its id, its first comment, where it sits, its status."""

    id: int
    comment: int
    body: str
    context: Mapping[str, Any] | None
    status: str
    replied: bool


def find_ours(
    own_id: str, threads: Sequence[Mapping[str, Any]]
) -> Ours[AzureThread, tuple[int, int]]:
    """Our summary thread and live finding threads among `threads`: the first comment's
    author is our identity and its content opens with our marker."""
    sticky: tuple[int, int] | None = None
    live: dict[str, list[AzureThread]] = {}
    for thread in threads:
        comments = _comments(thread)
        if not comments or not own_id or thread.get("isDeleted") is True:
            continue
        first = comments[0]
        body = _content(first)
        if _author(first) != own_id or not opens_with_marker(body):
            continue
        thread_id, comment_id = thread.get("id"), first.get("id")
        if not isinstance(thread_id, int) or not isinstance(comment_id, int):
            continue
        context = thread.get("threadContext")
        if sticky is None and context is None and (SUMMARY, "") in find_markers(body):
            sticky = (thread_id, comment_id)
            continue
        fingerprint = live_fingerprint(body)
        if fingerprint is None:
            continue
        status = thread.get("status")
        live.setdefault(fingerprint, []).append(
            AzureThread(
                id=thread_id,
                comment=comment_id,
                body=body,
                context=context if isinstance(context, dict) else None,
                status=status if isinstance(status, str) else "unknown",
                replied=any(_author(c) != own_id for c in comments[1:]),
            )
        )
    return Ours(sticky, live)


def thread_context(comment: DraftComment, path: str) -> dict[str, Any]:
    """Where a thread on `comment`'s right-side lines sits (offsets start at 1, as
    Microsoft's own example has them)."""
    start = comment.start_line or comment.line
    return {
        "filePath": path,
        "rightFileStart": {"line": start, "offset": 1},
        "rightFileEnd": {"line": comment.line, "offset": 1},
    }


def anchored_at(context: Mapping[str, Any] | None, comment: DraftComment) -> bool:
    """Whether a thread's (tracked) context is `comment`'s lines."""
    if context is None or context.get("filePath") != "/" + comment.path:
        return False
    start, end = context.get("rightFileStart"), context.get("rightFileEnd")
    if not isinstance(start, dict) or not isinstance(end, dict):
        return False
    return end.get("line") == comment.line and start.get("line") == (
        comment.start_line or comment.line
    )


def post_pull_request(
    client: AzureDevOpsClient,
    target: AzurePullRequest,
    draft: ReviewDraft,
    *,
    resolve_fixed: bool = False,
    dry_run: bool = False,
    status_name: str = STATUS_NAME,
) -> AzurePostResult:
    """Post `draft` to `target`, completing (never repeating) any earlier run."""
    draft = draft.with_bodies(dialects.azure_devops)
    platform = _Azure(client, target, draft, dry_run=dry_run or client.dry_run)
    return post_threads(
        platform, draft, AzurePostResult, resolve_fixed=resolve_fixed, status_name=status_name
    )


class _Azure(WritesThrough[AzureDevOpsClient]):
    """Azure DevOps as `delivery.threads` drives it (`ThreadPlatform`)."""

    name = "Azure DevOps"
    error = AzureDevOpsError
    cannot_write = "this token may not comment on"
    token_help = TOKEN_HELP
    not_in_diff = NOT_IN_DIFF
    fit_summary = True

    def __init__(
        self,
        client: AzureDevOpsClient,
        target: AzurePullRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
    ) -> None:
        self.client, self.pull, self.draft, self.dry_run = client, target, draft, dry_run
        self.target = str(target)
        identity = client.identity(target.organization)
        self.own = identity.id if identity is not None else ""
        self.snapshot: AzurePullSnapshot | None = None
        if not client.offline:
            self.snapshot = read_pull_request(client, target)

    @property
    def iteration(self) -> int:
        return self.snapshot.iteration if self.snapshot is not None else 1

    @property
    def head(self) -> str | None:
        return self.snapshot.head_sha if self.snapshot is not None else None

    def ours(self) -> Ours[AzureThread, tuple[int, int]]:
        return find_ours(self.own, self.snapshot.threads if self.snapshot is not None else ())

    def plan(
        self, live: Mapping[str, Sequence[AzureThread]], *, resolve_fixed: bool
    ) -> ThreadWork[AzureThread]:
        return reconcile_threads(
            self.draft,
            live,
            stands_at=lambda t, c: anchored_at(t.context, c),
            said=lambda t: (path_at(t.context, "filePath").lstrip("/"), t.body),
            postable=lambda c: self._context(c) is not None,
            left_alone=lambda t: t.replied or t.status in TRIAGED,
            resolve_fixed=resolve_fixed,
            now=lambda t: line_at((t.context or {}).get("rightFileStart")),
            head=self.head,
        )

    def body(self, thread: AzureThread) -> str:
        return thread.body

    def _context(self, comment: DraftComment) -> dict[str, Any] | None:
        """The body of a new thread on `comment`'s lines, or None when its file is not one
        the latest iteration changes (without a reading, every file is taken for one)."""
        if comment.side != "RIGHT":
            return None
        path = "/" + comment.path
        files = self.snapshot.files if self.snapshot is not None else None
        changed = files.get(path) if files is not None else ChangedFile(1)
        if changed is None or changed.deleted:
            return None
        return {
            "comments": [{"parentCommentId": 0, "content": comment.body, "commentType": "text"}],
            "status": "active",
            "threadContext": thread_context(comment, path),
            "pullRequestThreadContext": {
                "changeTrackingId": changed.tracking_id,
                "iterationContext": {
                    "firstComparingIteration": 1,
                    "secondComparingIteration": self.iteration,
                },
            },
        }

    def create_summary(self, text: str) -> tuple[int, int] | None:
        def applied() -> object | None:
            sticky = find_ours(self.own, self._threads()).sticky
            return {"id": sticky[0], "comments": [{"id": sticky[1]}]} if sticky else None

        body = {"comments": [{"parentCommentId": 0, "content": text, "commentType": "text"}]}
        return _ids(self._create_once(f"{self.pull.path}/threads", body, applied))

    def update_summary(self, sticky: tuple[int, int], text: str) -> None:
        path = f"{self.pull.path}/threads/{sticky[0]}/comments/{sticky[1]}"
        self._write("PATCH", path, {"content": text})

    def create_thread(self, comment: DraftComment) -> bool:
        body = self._context(comment)
        if body is None:  # it was postable when planned: the snapshot does not change
            return False

        def applied() -> object | None:
            for thread in find_ours(self.own, self._threads()).live.get(comment.fingerprint, []):
                if anchored_at(thread.context, comment):
                    return {"id": thread.id}
            return None

        self._create_once(f"{self.pull.path}/threads", body, applied)
        return True

    def delete(self, thread: AzureThread) -> None:
        """Delete a thread by deleting its one comment (a thread cannot be deleted)."""
        self._delete(self._first_comment(thread))

    def edit(self, thread: AzureThread, body: str) -> None:
        self._write("PATCH", self._first_comment(thread), {"content": body})

    def _first_comment(self, thread: AzureThread) -> str:
        return f"{self.pull.path}/threads/{thread.id}/comments/{thread.comment}"

    def resolve(self, thread: AzureThread) -> None:
        if thread.status != "fixed":
            self._write("PATCH", f"{self.pull.path}/threads/{thread.id}", {"status": "fixed"})

    def set_status(self, name: str, sticky: tuple[int, int] | None) -> str:
        gate = self.draft.gate
        if gate is None:
            return "not set (the plan has no gate)"
        state = "failed" if gate.failed else "succeeded"
        body: dict[str, Any] = {
            "context": {"genre": STATUS_GENRE, "name": name},
            "state": state,
            "description": gate.describe(),
            "iterationId": self.iteration,
        }
        web_url = self.snapshot.web_url if self.snapshot is not None else ""
        if web_url and sticky is not None:
            body["targetUrl"] = f"{web_url}?discussionId={sticky[0]}"
        if self._status_is(body):
            return f"{state} (unchanged)"
        self._write("POST", f"{self.pull.path}/statuses", body)
        return state

    def _status_is(self, body: Mapping[str, Any]) -> bool:
        """Whether our latest status of this name already says the same on this iteration."""
        if self.client.offline:
            return False
        ours = [
            status
            for status in self.client.values(f"{self.pull.path}/statuses")
            if isinstance(status, dict) and status.get("context") == body["context"]
        ]
        if not ours:
            return False
        latest = max(ours, key=lambda status: _number(status.get("id")))
        keys = ("state", "description", "iterationId")
        return all(latest.get(key) == body[key] for key in keys)

    def _threads(self) -> Sequence[Mapping[str, Any]]:
        params = {"$iteration": str(self.iteration)}
        return tuple(self.client.values(f"{self.pull.path}/threads", params))


def _ids(created: object) -> tuple[int, int] | None:
    """The thread and first comment ids of a created thread (None in a dry run)."""
    if not isinstance(created, dict):
        return None
    comments = created.get("comments")
    first = comments[0] if isinstance(comments, list) and comments else None
    thread_id, comment_id = created.get("id"), first.get("id") if isinstance(first, dict) else None
    if isinstance(thread_id, int) and isinstance(comment_id, int):
        return thread_id, comment_id
    return None


def _comments(thread: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    comments = thread.get("comments")
    if not isinstance(comments, list):
        return []
    return [
        c
        for c in comments
        if isinstance(c, dict)
        and c.get("commentType") != "system"
        and c.get("isDeleted") is not True
    ]


def _author(comment: Mapping[str, Any]) -> str:
    author = comment.get("author")
    value = author.get("id") if isinstance(author, dict) else None
    return value if isinstance(value, str) else ""


def _content(comment: Mapping[str, Any]) -> str:
    content = comment.get("content")
    return content.replace("\r\n", "\n") if isinstance(content, str) else ""


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
