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

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import msgspec

from review_quorum.azure_devops.client import TOKEN_HELP, AzureDevOpsClient
from review_quorum.azure_devops.snapshot import AzurePullSnapshot, ChangedFile, read_pull_request
from review_quorum.azure_devops.target import AzurePullRequest
from review_quorum.delivery.bodies import fixed_body, moved_section
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import fit_body
from review_quorum.delivery.fixing import line_at
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import (
    ThreadWork,
    live_fingerprint,
    reconcile_threads,
)
from review_quorum.errors import AzureDevOpsError
from review_quorum.markup import dialects
from review_quorum.markup.markers import SUMMARY, find_markers, opens_with_marker
from review_quorum.retrying import create_once, unless_done

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


class AzureOurs(msgspec.Struct, frozen=True):
    """Our summary thread (thread id, comment id) and our live finding threads."""

    sticky: tuple[int, int] | None = None
    live: dict[str, list[AzureThread]] = msgspec.field(default_factory=dict)


def find_ours(own_id: str, threads: Sequence[Mapping[str, Any]]) -> AzureOurs:
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
    return AzureOurs(sticky, live)


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
    run = _Run(client, target, draft, dry_run=dry_run or client.dry_run)
    return run.post(resolve_fixed=resolve_fixed, status_name=status_name)


_Work = ThreadWork[AzureThread]


class _Run:
    def __init__(
        self,
        client: AzureDevOpsClient,
        target: AzurePullRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
    ) -> None:
        self.client, self.target, self.draft, self.dry_run = client, target, draft, dry_run
        identity = client.identity(target.organization)
        self.own = identity.id if identity is not None else ""
        self.snapshot: AzurePullSnapshot | None = None
        if not client.offline:
            self.snapshot = read_pull_request(client, target)
        self.warnings: list[str] = []

    @property
    def iteration(self) -> int:
        return self.snapshot.iteration if self.snapshot is not None else 1

    def post(self, *, resolve_fixed: bool, status_name: str) -> AzurePostResult:
        threads = self.snapshot.threads if self.snapshot is not None else ()
        ours = find_ours(self.own, threads)
        work = self._plan(ours, resolve_fixed=resolve_fixed)
        planned_moves = len(work.moved)
        sticky, sticky_id = self._sticky(ours, work.moved)
        created = self._create(work)
        if len(work.moved) > planned_moves and sticky_id is not None:
            self._write_sticky(sticky_id, work.moved)
        replaced = self._delete(work.replace)
        for thread, body in work.update:
            self._edit(thread, body)
        head = self.snapshot.head_sha if self.snapshot is not None else None
        resolved = self._resolve([(t, fixed_body(t.body, fp, head)) for t, fp in work.fixed])
        status = self._status(status_name, sticky_id)
        return AzurePostResult(
            target=str(self.target),
            created=created,
            skipped_existing=work.skipped,
            moved_to_summary=len(work.moved),
            reanchored=replaced,
            updated=len(work.update),
            resolved=resolved,
            kept_replied=work.kept,
            unchecked=work.unchecked,
            sticky=sticky,
            status=status,
            dry_run=self.dry_run,
            warnings=tuple(self.warnings),
        )

    def _plan(self, ours: AzureOurs, *, resolve_fixed: bool) -> _Work:
        return reconcile_threads(
            self.draft,
            ours.live,
            stands_at=lambda t, c: anchored_at(t.context, c),
            said=lambda t: ((t.context or {}).get("filePath", "").lstrip("/"), t.body),
            postable=lambda c: self._context(c) is not None,
            left_alone=lambda t: t.replied or t.status in TRIAGED,
            resolve_fixed=resolve_fixed,
            now=lambda t: line_at((t.context or {}).get("rightFileStart")),
            head=self.snapshot.head_sha if self.snapshot is not None else None,
        )

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

    def _sticky(
        self, ours: AzureOurs, moved: Sequence[DraftComment]
    ) -> tuple[str, tuple[int, int] | None]:
        """Write the summary first: a token that cannot write is found out at once."""
        try:
            if ours.sticky is not None:
                self._write_sticky(ours.sticky, moved)
                return "updated", ours.sticky
            created = self._create_summary(self._summary(moved))
        except AzureDevOpsError as err:
            if err.status not in (401, 403):
                raise
            raise AzureDevOpsError(
                f"{err}: this token may not comment on {self.target}, so nothing was "
                f"posted; {TOKEN_HELP}",
                status=err.status,
            ) from err
        return "created", _ids(created)

    def _create_summary(self, text: str) -> Any:
        def applied() -> object | None:
            sticky = find_ours(self.own, self._threads()).sticky
            return {"id": sticky[0], "comments": [{"id": sticky[1]}]} if sticky else None

        body = {"comments": [{"parentCommentId": 0, "content": text, "commentType": "text"}]}
        return self._create_once(f"{self.target.path}/threads", body, applied)

    def _write_sticky(self, sticky: tuple[int, int], moved: Sequence[DraftComment]) -> None:
        path = f"{self.target.path}/threads/{sticky[0]}/comments/{sticky[1]}"
        self._write("PATCH", path, {"content": self._summary(moved)})

    def _summary(self, moved: Sequence[DraftComment]) -> str:
        if not moved:
            return self.draft.summary
        section = moved_section(moved, NOT_IN_DIFF)
        return fit_body("\n\n".join([self.draft.summary.rstrip(), section]))

    def _create(self, work: _Work) -> int:
        created = 0
        for comment in work.create:
            body = self._context(comment)
            if body is None:  # it was postable when planned: the snapshot does not change
                work.moved.append(comment)
                continue
            try:
                self._create_thread(comment, body)
                created += 1
            except AzureDevOpsError as err:
                if err.status != 400:
                    raise
                self.warnings.append(f"Azure DevOps refused the anchor {comment.anchor}: {err}")
                work.moved.append(comment)
        return created

    def _create_thread(self, comment: DraftComment, body: Mapping[str, Any]) -> None:
        def applied() -> object | None:
            for thread in find_ours(self.own, self._threads()).live.get(comment.fingerprint, []):
                if anchored_at(thread.context, comment):
                    return {"id": thread.id}
            return None

        self._create_once(f"{self.target.path}/threads", body, applied)

    def _delete(self, threads: Sequence[AzureThread]) -> int:
        """Delete a thread by deleting its one comment (a thread cannot be deleted)."""
        for thread in threads:
            path = f"{self.target.path}/threads/{thread.id}/comments/{thread.comment}"
            unless_done(partial(self._write, "DELETE", path), 404)
        return len(threads)

    def _edit(self, thread: AzureThread, body: str) -> None:
        path = f"{self.target.path}/threads/{thread.id}/comments/{thread.comment}"
        self._write("PATCH", path, {"content": body})

    def _resolve(self, fixed: Sequence[tuple[AzureThread, str]]) -> int:
        """Set the status first, then rewrite: an interrupted run still finishes the thread."""
        for thread, body in fixed:
            if thread.status != "fixed":
                path = f"{self.target.path}/threads/{thread.id}"
                self._write("PATCH", path, {"status": "fixed"})
            self._edit(thread, body)
        return len(fixed)

    def _status(self, name: str, sticky: tuple[int, int] | None) -> str:
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
        self._write("POST", f"{self.target.path}/statuses", body)
        return state

    def _status_is(self, body: Mapping[str, Any]) -> bool:
        """Whether our latest status of this name already says the same on this iteration."""
        if self.client.offline:
            return False
        ours = [
            status
            for status in self.client.values(f"{self.target.path}/statuses")
            if isinstance(status, dict) and status.get("context") == body["context"]
        ]
        if not ours:
            return False
        latest = max(ours, key=lambda status: _number(status.get("id")))
        keys = ("state", "description", "iterationId")
        return all(latest.get(key) == body[key] for key in keys)

    def _threads(self) -> Sequence[Mapping[str, Any]]:
        params = {"$iteration": str(self.iteration)}
        return tuple(self.client.values(f"{self.target.path}/threads", params))

    def _create_once(
        self, path: str, body: Mapping[str, Any], applied: Callable[[], object | None]
    ) -> Any:
        """POST `body`; after a failure that may have been applied, ask `applied`."""
        return create_once(self._write, self.client.wait_before_retry, path, body, applied)

    def _write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self.client.write(method, path, body, dry_run=self.dry_run)


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
