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

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import msgspec

from review_quorum.bitbucket.client import TOKEN_HELP, BitbucketClient
from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot, read_pull_request
from review_quorum.bitbucket.target import BitbucketPullRequest, pull_request_page
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fixing import line_at, path_at
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import ThreadWork, live_fingerprint, reconcile_threads
from review_quorum.delivery.threads import Ours, WritesThrough, post_threads
from review_quorum.errors import BitbucketError
from review_quorum.markup import dialects
from review_quorum.markup.markers import SUMMARY, find_markers, opens_with_marker
from review_quorum.retrying import unless_done

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


def find_ours(own_uuid: str, comments: Sequence[Mapping[str, Any]]) -> Ours[BitbucketThread, int]:
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
    return Ours(sticky, live)


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
    platform = _Bitbucket(client, target, draft, dry_run=dry_run or client.dry_run, env=env or {})
    return post_threads(
        platform, draft, BitbucketPostResult, resolve_fixed=resolve_fixed, status_name=status_key
    )


def head_commit(snapshot: BitbucketPullSnapshot | None, env: Mapping[str, str]) -> str:
    """The head commit: the pipeline's full hash when it is the pull request's (abbreviated)
    one, else the pull request's; offline, the pipeline's or a placeholder."""
    pipeline = env.get("BITBUCKET_COMMIT", "").strip()
    if snapshot is None:
        return pipeline or "HEAD_COMMIT"
    if pipeline and pipeline.startswith(snapshot.head_sha):
        return pipeline
    return snapshot.head_sha


class _Bitbucket(WritesThrough[BitbucketClient]):
    """Bitbucket Cloud as `delivery.threads` drives it (`ThreadPlatform`)."""

    name = "Bitbucket"
    error = BitbucketError
    cannot_write = "these credentials may not comment on"
    token_help = TOKEN_HELP
    not_in_diff = NOT_IN_DIFF
    fit_summary = True

    def __init__(
        self,
        client: BitbucketClient,
        target: BitbucketPullRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
        env: Mapping[str, str],
    ) -> None:
        self.client, self.pull, self.draft, self.dry_run = client, target, draft, dry_run
        self.target = str(target)
        account = client.current_account()
        self.own = account.uuid if account is not None else ""
        self.snapshot = None if client.offline else read_pull_request(client, target)
        self.head = head_commit(self.snapshot, env)

    def ours(self) -> Ours[BitbucketThread, int]:
        return find_ours(self.own, self.snapshot.comments if self.snapshot else ())

    def plan(
        self, live: Mapping[str, Sequence[BitbucketThread]], *, resolve_fixed: bool
    ) -> ThreadWork[BitbucketThread]:
        return reconcile_threads(
            self.draft,
            live,
            stands_at=lambda t, c: anchored_at(t.inline, c),
            said=lambda t: (path_at(t.inline, "path"), t.body),
            postable=lambda c: c.side == "RIGHT",
            left_alone=lambda t: t.replied,
            resolve_fixed=resolve_fixed,
            now=lambda t: line_at(t.inline, "to"),
            head=self.head,
        )

    def body(self, thread: BitbucketThread) -> str:
        return thread.body

    def create_summary(self, text: str) -> int | None:
        created = self._create_once(
            f"{self.pull.path}/comments",
            {"content": {"raw": text}},
            lambda: _as_created(find_ours(self.own, self._comments()).sticky),
        )
        comment_id = created.get("id") if isinstance(created, dict) else None
        return comment_id if isinstance(comment_id, int) else None

    def update_summary(self, sticky: int, text: str) -> None:
        self._edit(sticky, text)

    def create_thread(self, comment: DraftComment) -> bool:
        body = {
            "content": {"raw": comment.body},
            "inline": {"path": comment.path, "to": comment.line},
        }

        def applied() -> object | None:
            threads = find_ours(self.own, self._comments()).live.get(comment.fingerprint, [])
            found = next((t for t in threads if anchored_at(t.inline, comment)), None)
            return _as_created(found.id if found is not None else None)

        self._create_once(f"{self.pull.path}/comments", body, applied)
        return True

    def delete(self, thread: BitbucketThread) -> None:
        self._delete(f"{self.pull.path}/comments/{thread.id}")

    def edit(self, thread: BitbucketThread, body: str) -> None:
        self._edit(thread.id, body)

    def _edit(self, comment_id: int, body: str) -> None:
        self._write("PUT", f"{self.pull.path}/comments/{comment_id}", {"content": {"raw": body}})

    def resolve(self, thread: BitbucketThread) -> None:
        if not thread.resolved:
            path = f"{self.pull.path}/comments/{thread.id}/resolve"
            unless_done(partial(self._write, "POST", path), 409)

    def set_status(self, name: str, sticky: int | None) -> str:
        gate = self.draft.gate
        if gate is None:
            return "not set (the plan has no gate)"
        state = "FAILED" if gate.failed else "SUCCESSFUL"
        url = self.snapshot.web_url if self.snapshot and self.snapshot.web_url else ""
        url = url or pull_request_page(self.pull)
        if sticky is not None:
            url = f"{url}#comment-{sticky}"
        body = {
            "key": name[:MAX_KEY],
            "state": state,
            "name": name,
            "description": gate.describe(),
            "url": url,
        }
        path = f"{self.pull.repository_path}/commit/{self.head}/statuses/build"
        self._write("POST", path, body)
        return state

    def _comments(self) -> Sequence[Mapping[str, Any]]:
        return tuple(self.client.paginate(f"{self.pull.path}/comments"))


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
