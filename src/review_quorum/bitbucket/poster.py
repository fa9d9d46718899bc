"""Posting a `ReviewDraft` to a Bitbucket Cloud pull request, idempotently: `post_pull_request`.

One run reads who the credentials are (``GET /user``), the pull request and every comment,
and finds what is ours: comments whose author is that account (by uuid) AND whose text
opens with our marker (a marker quoted by anyone else is inert). Then, in this order: the
one summary comment (a comment on no line) is created or updated in place (first, so that
credentials that cannot write are found out before anything else); each inline finding
becomes one inline comment (``inline.path`` and ``inline.to``, its line in the new file;
a range is anchored on its last line), unless one of ours already sits on that line; a
finding whose anchor Bitbucket refuses (400: a file or line the pull request does not
change) or that is on an old line is listed in the summary instead; a comment of ours left
on an old line by a push is re-anchored (a new comment on the new line, the old one
deleted unless someone replied to it); a still-reported finding's text is refreshed; with
`resolve_fixed`, the threads of findings no longer reported are resolved, then their text
says so (a thread someone replied to is left alone); and the gate becomes a commit build
status keyed by its name on the head commit (what merge checks read), updated in place on
a re-run. A create that fails in a way that may have been applied (5xx, lost connection)
re-reads before retrying, so a retry never duplicates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import msgspec

from review_quorum.bitbucket.client import TOKEN_HELP, BitbucketClient
from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot, read_pull_request
from review_quorum.bitbucket.target import BitbucketPullRequest, pull_request_page
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
from review_quorum.errors import BitbucketError
from review_quorum.markup import dialects
from review_quorum.markup.markers import SUMMARY, find_markers, opens_with_marker
from review_quorum.retrying import create_once, unless_done

STATUS_KEY = "review-quorum"
# Bitbucket's build status: a key of at most 40 characters, a name of at most 255.
MAX_KEY = 40
NOT_IN_DIFF = (
    "These findings are on lines the pull request's diff does not show, so they are listed here."
)


class BitbucketPostResult(ThreadPostResult, frozen=True):
    """What one run did on Bitbucket (`ThreadPostResult`)."""

    words = Words(
        "new inline comment(s)",
        "resolved as fixed",
        "someone replied",
        "summary comment",
        "build status",
    )


class BitbucketThread(msgspec.Struct, frozen=True):
    """One of our inline comments: its id, text, anchor, and whether it is resolved."""

    id: int
    body: str
    inline: Mapping[str, Any] | None
    resolved: bool
    replied: bool


class BitbucketOurs(msgspec.Struct, frozen=True):
    sticky: int | None = None
    live: dict[str, list[BitbucketThread]] = msgspec.field(default_factory=dict)


def find_ours(own_uuid: str, comments: Sequence[Mapping[str, Any]]) -> BitbucketOurs:
    """Our summary comment and live finding comments: by our account, opening with a marker."""
    replied_to = {
        _parent(c) for c in comments if _author(c) != own_uuid and c.get("deleted") is not True
    }
    sticky: int | None = None
    live: dict[str, list[BitbucketThread]] = {}
    for comment in comments:
        body, comment_id = _raw(comment), comment.get("id")
        if (
            not own_uuid
            or _author(comment) != own_uuid
            or comment.get("deleted") is True
            or _parent(comment) is not None
            or not isinstance(comment_id, int)
            or not opens_with_marker(body)
        ):
            continue
        inline = comment.get("inline")
        if sticky is None and inline is None and (SUMMARY, "") in find_markers(body):
            sticky = comment_id
            continue
        fingerprint = live_fingerprint(body)
        if fingerprint is not None:
            live.setdefault(fingerprint, []).append(
                BitbucketThread(
                    id=comment_id,
                    body=body,
                    inline=inline if isinstance(inline, dict) else None,
                    resolved=comment.get("resolution") is not None,
                    replied=comment_id in replied_to,
                )
            )
    return BitbucketOurs(sticky, live)


def anchored_at(inline: Mapping[str, Any] | None, comment: DraftComment) -> bool:
    return (
        inline is not None
        and inline.get("path") == comment.path
        and inline.get("to") == comment.line
    )


def post_pull_request(
    client: BitbucketClient,
    target: BitbucketPullRequest,
    draft: ReviewDraft,
    *,
    resolve_fixed: bool = False,
    dry_run: bool = False,
    status_key: str = STATUS_KEY,
    env: Mapping[str, str] | None = None,
) -> BitbucketPostResult:
    """Post `draft` to `target`, completing (never repeating) any earlier run."""
    draft = draft.with_bodies(dialects.bitbucket)
    run = _Run(client, target, draft, dry_run=dry_run or client.dry_run, env=env or {})
    return run.post(resolve_fixed=resolve_fixed, status_key=status_key)


def head_commit(snapshot: BitbucketPullSnapshot | None, env: Mapping[str, str]) -> str:
    """The head commit: the pipeline's full hash when it is the pull request's (abbreviated)
    one, else the pull request's; offline, the pipeline's or a placeholder."""
    pipeline = env.get("BITBUCKET_COMMIT", "").strip()
    if snapshot is None:
        return pipeline or "HEAD_COMMIT"
    if pipeline and pipeline.startswith(snapshot.head_sha):
        return pipeline
    return snapshot.head_sha


_Work = ThreadWork[BitbucketThread]


class _Run:
    def __init__(
        self,
        client: BitbucketClient,
        target: BitbucketPullRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
        env: Mapping[str, str],
    ) -> None:
        self.client, self.target, self.draft, self.dry_run = client, target, draft, dry_run
        account = client.current_account()
        self.own = account.uuid if account is not None else ""
        self.snapshot = None if client.offline else read_pull_request(client, target)
        self.head = head_commit(self.snapshot, env)
        self.warnings: list[str] = []

    def post(self, *, resolve_fixed: bool, status_key: str) -> BitbucketPostResult:
        ours = find_ours(self.own, self.snapshot.comments if self.snapshot else ())
        work = self._plan(ours, resolve_fixed=resolve_fixed)
        planned_moves = len(work.moved)
        sticky, sticky_id = self._sticky(ours, work.moved)
        created = self._create(work)
        if len(work.moved) > planned_moves and sticky_id is not None:
            self._write_sticky(sticky_id, work.moved)
        replaced = self._delete(work.replace)
        for thread, body in work.update:
            self._edit(thread.id, body)
        fixed = [(t, fixed_body(t.body, fp, self.head)) for t, fp in work.fixed]
        resolved = self._resolve(fixed)
        status = self._status(status_key, sticky_id)
        return BitbucketPostResult(
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

    def _plan(self, ours: BitbucketOurs, *, resolve_fixed: bool) -> _Work:
        return reconcile_threads(
            self.draft,
            ours.live,
            stands_at=lambda t, c: anchored_at(t.inline, c),
            said=lambda t: ((t.inline or {}).get("path", ""), t.body),
            postable=lambda c: c.side == "RIGHT",
            left_alone=lambda t: t.replied,
            resolve_fixed=resolve_fixed,
            now=lambda t: line_at(t.inline, "to"),
            head=self.head,
        )

    def _sticky(self, ours: BitbucketOurs, moved: Sequence[DraftComment]) -> tuple[str, int | None]:
        try:
            if ours.sticky is not None:
                self._write_sticky(ours.sticky, moved)
                return "updated", ours.sticky
            created = self._create_once(
                {"content": {"raw": self._summary(moved)}},
                lambda: _as_created(find_ours(self.own, self._comments()).sticky),
            )
        except BitbucketError as err:
            if err.status not in (401, 403):
                raise
            raise BitbucketError(
                f"{err}: these credentials may not comment on {self.target}, so nothing was "
                f"posted; {TOKEN_HELP}",
                status=err.status,
            ) from err
        comment_id = created.get("id") if isinstance(created, dict) else None
        return "created", comment_id if isinstance(comment_id, int) else None

    def _write_sticky(self, comment_id: int, moved: Sequence[DraftComment]) -> None:
        self._edit(comment_id, self._summary(moved))

    def _summary(self, moved: Sequence[DraftComment]) -> str:
        if not moved:
            return self.draft.summary
        section = moved_section(moved, NOT_IN_DIFF)
        return fit_body("\n\n".join([self.draft.summary.rstrip(), section]))

    def _create(self, work: _Work) -> int:
        created = 0
        for comment in work.create:
            body = {
                "content": {"raw": comment.body},
                "inline": {"path": comment.path, "to": comment.line},
            }

            def applied(comment: DraftComment = comment) -> object | None:
                threads = find_ours(self.own, self._comments()).live.get(comment.fingerprint, [])
                found = next((t for t in threads if anchored_at(t.inline, comment)), None)
                return _as_created(found.id if found is not None else None)

            try:
                self._create_once(body, applied)
                created += 1
            except BitbucketError as err:
                if err.status != 400:
                    raise
                self.warnings.append(f"Bitbucket refused the anchor {comment.anchor}: {err}")
                work.moved.append(comment)
        return created

    def _delete(self, threads: Sequence[BitbucketThread]) -> int:
        for thread in threads:
            path = f"{self.target.path}/comments/{thread.id}"
            unless_done(partial(self._write, "DELETE", path), 404)
        return len(threads)

    def _edit(self, comment_id: int, body: str) -> None:
        self._write("PUT", f"{self.target.path}/comments/{comment_id}", {"content": {"raw": body}})

    def _resolve(self, fixed: Sequence[tuple[BitbucketThread, str]]) -> int:
        """Resolve first, then rewrite: an interrupted run still finishes the thread."""
        for thread, body in fixed:
            if not thread.resolved:
                path = f"{self.target.path}/comments/{thread.id}/resolve"
                unless_done(partial(self._write, "POST", path), 409)
            self._edit(thread.id, body)
        return len(fixed)

    def _status(self, key: str, sticky_id: int | None) -> str:
        gate = self.draft.gate
        if gate is None:
            return "not set (the plan has no gate)"
        state = "FAILED" if gate.failed else "SUCCESSFUL"
        url = self.snapshot.web_url if self.snapshot and self.snapshot.web_url else ""
        url = url or pull_request_page(self.target)
        if sticky_id is not None:
            url = f"{url}#comment-{sticky_id}"
        body = {
            "key": key[:MAX_KEY],
            "state": state,
            "name": key,
            "description": gate.describe(),
            "url": url,
        }
        path = f"{self.target.repository_path}/commit/{self.head}/statuses/build"
        self._write("POST", path, body)
        return state

    def _comments(self) -> Sequence[Mapping[str, Any]]:
        return tuple(self.client.paginate(f"{self.target.path}/comments"))

    def _create_once(self, body: Mapping[str, Any], applied: Callable[[], object | None]) -> Any:
        path = f"{self.target.path}/comments"
        return create_once(self._write, self.client.wait_before_retry, path, body, applied)

    def _write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self.client.write(method, path, body, dry_run=self.dry_run)


def _as_created(comment_id: int | None) -> dict[str, Any] | None:
    return {"id": comment_id} if comment_id is not None else None


def _author(comment: Mapping[str, Any]) -> str:
    user = comment.get("user")
    uuid = user.get("uuid") if isinstance(user, dict) else None
    return uuid if isinstance(uuid, str) else ""


def _parent(comment: Mapping[str, Any]) -> int | None:
    parent = comment.get("parent")
    value = parent.get("id") if isinstance(parent, dict) else None
    return value if isinstance(value, int) else None


def _raw(comment: Mapping[str, Any]) -> str:
    content = comment.get("content")
    raw = content.get("raw") if isinstance(content, dict) else None
    return raw.replace("\r\n", "\n") if isinstance(raw, str) else ""
