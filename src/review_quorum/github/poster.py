"""Posting a `ReviewDraft` to a pull request, idempotently: `post_review`.

One run reads what our identity already posted (reviews, inline comments, issue comments,
every page), then: creates or edits the one sticky summary comment; posts only the inline
comments whose fingerprint is not already there, at most 30 per review (the rest go into
further reviews, so no finding is lost or pushed out of the diff); refreshes the text of
comments whose finding is still reported; with `resolve_fixed`, rewrites the comments whose
finding is gone into a struck-through "fixed" note; and dismisses our own earlier "changes
requested" review once the run no longer requests changes. A thread someone else replied
to is never edited. With `resolve_fixed` the thread of a fixed finding's comment is also
resolved (GraphQL), before its text changes, so an interrupted run still finishes it. With
`hide_duplicates`, bot comments that repeat a reported finding are minimized once quorum's
own review is up, and brought back when their finding changes (see `hiding`); what is
hidden is decided from the bot-comment readers' findings in the comments this run reads
(`reading` says how to read them), never from the draft's claims. `rebuild`, when given,
makes the draft again from those findings before anything is written (`quorum post` of
a saved plan: `checked_plan`), so the summary attributes to bots what GitHub shows; such
a run posts on the head commit the event or GitHub names, and nothing when the plan was
made for another. Only a later commit fixes a finding: a comment posted on the head
commit under review is never marked fixed nor resolved. When
GitHub refuses an anchor (422), pending reviews (which notify nobody and are deleted at
once) find the refused comments by bisection (`anchoring`), and those move to the review
body. When a create request fails in a way that may still have been applied (5xx, lost
connection), the run re-reads before retrying, so a retry never duplicates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from review_quorum.checked_plan import Fresh
from review_quorum.delivery.bodies import BATCH, batch_id, fixed_body, unchecked_body
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import fit_body
from review_quorum.delivery.reconcile import is_ours
from review_quorum.errors import GitHubError
from review_quorum.github import moderation, remote
from review_quorum.github.anchoring import delete_reviews, refused_anchors
from review_quorum.github.batches import MAX_COMMENTS_PER_REVIEW, continuation_body, review_body
from review_quorum.github.client import GitHubClient
from review_quorum.github.hiding import Hiding, HidingResult
from review_quorum.github.reconcile import Existing, find_sticky, index, writes_for
from review_quorum.github.remote import RemoteComment, RemoteIssueComment, RemoteReview
from review_quorum.github.snapshot import read_fresh
from review_quorum.github.target import ACTIONS_BOT, PullRequest, in_actions
from review_quorum.ingest.base import ReadOptions
from review_quorum.markup.markers import find_markers
from review_quorum.retrying import create_once


class PostResult(msgspec.Struct, frozen=True):
    """What one run did (or, in a dry run, would do)."""

    target: str
    event: str
    created: int
    skipped_existing: int
    moved_to_body: int
    resolved: int
    updated: int
    kept_replied: int
    reviews: int
    dismissed: int
    sticky: str
    sticky_url: str | None
    dry_run: bool
    warnings: tuple[str, ...] = ()
    threads_resolved: int = 0
    hiding: HidingResult = HidingResult()
    not_posted: str = ""  # why nothing was posted (a saved plan about another commit)
    unchecked: int = 0  # gone findings kept open: a bot that reported them did not report

    def describe(self) -> str:
        """One line for a person reading the job log."""
        if self.not_posted:
            return f"{self.target}: {self.not_posted}"
        verb = "would post" if self.dry_run else "posted"
        parts = [
            f"{self.created} new inline comment(s) in {self.reviews} review(s)",
            f"{self.skipped_existing} already there",
            f"{self.moved_to_body} moved to the review body",
            f"{self.updated} refreshed",
            f"{self.resolved} marked fixed",
        ]
        if self.kept_replied:
            parts.append(f"{self.kept_replied} fixed but left alone (someone replied)")
        if self.unchecked:
            parts.append(f"{self.unchecked} not re-checked (their bots did not report)")
        if self.threads_resolved:
            parts.append(f"{self.threads_resolved} review thread(s) resolved")
        if self.dismissed:
            parts.append(f"{self.dismissed} earlier 'changes requested' review(s) dismissed")
        hiding = f"; {self.hiding.describe()}" if self.hiding.enabled else ""
        return f"{self.target}: {verb} {', '.join(parts)}; summary comment {self.sticky}{hiding}"


def post_review(
    client: GitHubClient,
    target: PullRequest,
    draft: ReviewDraft,
    *,
    resolve_fixed: bool = False,
    hide_duplicates: bool = False,
    dry_run: bool = False,
    bot_login: str | None = None,
    env: Mapping[str, str] | None = None,
    reading: ReadOptions | None = None,
    rebuild: Callable[[Fresh], ReviewDraft] | None = None,
) -> PostResult:
    """Post `draft` to `target`, completing (never repeating) any earlier run."""
    login = bot_login or _identity(client, os.environ if env is None else env)
    run = _Run(client, target, draft, login, dry_run=dry_run or client.dry_run)
    run.reading = replace(reading or ReadOptions(), own_login=login)
    run.rebuild = rebuild
    run.hiding = Hiding(client, draft, login, enabled=hide_duplicates, dry_run=run.dry_run)
    return run.post(resolve_fixed=resolve_fixed)


def _identity(client: GitHubClient, env: Mapping[str, str]) -> str:
    login = client.user_login()
    if login is not None:
        return login
    if in_actions(env) or client.offline:
        # GET /user refuses the Actions token; what it posts appears under this login.
        return ACTIONS_BOT
    raise GitHubError(
        "GitHub does not say which account this token belongs to (GET /user answered 403, "
        "as it does for app installation tokens): pass --bot-login with the login its "
        "comments appear under",
        status=403,
    )


class _Run:
    def __init__(
        self,
        client: GitHubClient,
        target: PullRequest,
        draft: ReviewDraft,
        login: str,
        *,
        dry_run: bool,
    ) -> None:
        self.client = client
        self.target = target
        self.draft = draft
        self.login = login
        self.dry_run = dry_run
        self.pull = f"{target.path}/pulls/{target.number}"
        self.commit = draft.commit_id or target.head_sha
        self.warnings: list[str] = []
        self.hiding = Hiding(client, draft, login, enabled=False, dry_run=dry_run)
        self.sticky_id: int | None = None
        self.reading = ReadOptions(own_login=login)
        self.rebuild: Callable[[Fresh], ReviewDraft] | None = None

    def post(self, *, resolve_fixed: bool) -> PostResult:
        if self.rebuild is not None and (other := self._other_head()):
            return self._not_posted(other)
        existing = self._read()
        delete_reviews(self, existing.probes)  # left by a run interrupted mid-search
        work = writes_for(self.draft, existing, resolve_fixed=resolve_fixed)
        sticky, sticky_url = self._sticky(existing.sticky)
        created, moved, reviews = self._post(work.to_post, existing)
        updated = self._edit(work.to_update)
        sha = self._head() if work.to_resolve else None
        # Fixed needs a later commit: on the head it was reported on, a finding stays open.
        gone = [(comment, fp) for comment, fp in work.to_resolve if comment.commit != sha]
        if len(gone) < len(work.to_resolve):
            self.warnings.append(
                f"{len(work.to_resolve) - len(gone)} of our comment(s) on findings this run "
                f"does not report were left open: they were posted on the head commit {sha}, "
                "and only a later commit can fix a finding"
            )
        threads = self._resolve_threads([comment for comment, _ in gone])
        fixed = [(comment, fixed_body(comment.body, fp, sha)) for comment, fp in gone]
        resolved = self._edit(fixed)
        unchecked = self._edit(self._unchecked(work.unchecked))
        if self.hiding.run():
            self._rewrite_sticky()
        self.warnings += self.hiding.warnings
        dismissed = self._dismiss(existing.changes_requested)
        return PostResult(
            target=str(self.target),
            event=self.draft.event,
            created=created,
            skipped_existing=work.skipped_existing,
            moved_to_body=moved,
            resolved=resolved,
            updated=updated,
            kept_replied=work.kept_replied,
            reviews=reviews,
            dismissed=dismissed,
            sticky=sticky,
            sticky_url=sticky_url,
            dry_run=self.dry_run,
            warnings=tuple(self.warnings),
            threads_resolved=threads,
            hiding=self.hiding.result(),
            unchecked=unchecked,
        )

    def _other_head(self) -> str:
        """A saved plan's run posts on the head commit GitHub names (the event's, else the
        pull request's), never on one the plan names; a plan about another commit is not
        posted, and this says why."""
        self.commit = None
        head, planned = self._head(), self.draft.commit_id
        if planned is None or head is None or planned == head:
            return ""
        return (
            f"not posted: the plan reviewed {planned}, but the head of {self.target} is "
            f"{head}; a plan is posted only on the commit it reviewed (a later run reviews it)"
        )

    def _not_posted(self, why: str) -> PostResult:
        return PostResult(
            target=str(self.target),
            event=self.draft.event,
            created=0,
            skipped_existing=0,
            moved_to_body=0,
            resolved=0,
            updated=0,
            kept_replied=0,
            reviews=0,
            dismissed=0,
            sticky="not written",
            sticky_url=None,
            dry_run=self.dry_run,
            not_posted=why,
        )

    def _unchecked(
        self, comments: Sequence[tuple[RemoteComment, tuple[str, ...]]]
    ) -> list[tuple[RemoteComment, str]]:
        """The notes "not re-checked on <head>: <bot> did not report", where not there yet."""
        if not comments:
            return []
        sha = self._head()
        edits = [(comment, unchecked_body(comment.body, sha, bots)) for comment, bots in comments]
        return [(comment, body) for comment, body in edits if body.strip() != comment.body.strip()]

    def _read(self) -> Existing:
        raw_reviews = self.client.paginate(f"{self.pull}/reviews")
        raw_issue_comments = self.client.paginate(self._issue_comments_path)
        raw_comments = self.client.paginate(f"{self.pull}/comments")
        reviews, comments = remote.reviews(raw_reviews), remote.review_comments(raw_comments)
        issue_comments = remote.issue_comments(raw_issue_comments)
        collections = (raw_comments, raw_reviews, raw_issue_comments)
        fresh = read_fresh(collections, name=str(self.target), options=self.reading)
        if self.rebuild is not None:
            self.draft = self.hiding.draft = self.rebuild(fresh)
        existing = index(self.login, reviews, comments, issue_comments)
        sticky = existing.sticky.body if existing.sticky else None
        self.hiding.prepare(reviews, comments, issue_comments, sticky, fresh)
        return existing

    def reviews(self) -> list[RemoteReview]:
        """Every review on the pull request, as GitHub lists it now."""
        return remote.reviews(self.client.paginate(f"{self.pull}/reviews"))

    @property
    def _issue_comments_path(self) -> str:
        return f"{self.target.path}/issues/{self.target.number}/comments"

    def _issue_comments(self) -> list[RemoteIssueComment]:
        return remote.issue_comments(self.client.paginate(self._issue_comments_path))

    def _sticky(self, existing: RemoteIssueComment | None) -> tuple[str, str | None]:
        """Write the sticky summary first: a read-only token is found out before anything."""
        body = {"body": self.hiding.sticky_body(self.draft.summary)}
        try:
            if existing is not None:
                self.sticky_id = existing.id
                self.write("PATCH", f"{self.target.path}/issues/comments/{existing.id}", body)
                return "updated", existing.html_url
            path = f"{self.target.path}/issues/{self.target.number}/comments"
            created = self.create(path, body, self._find_sticky)
        except GitHubError as err:
            if err.status != 403:
                raise
            raise GitHubError(
                f"{err}: this token is read-only here (as on a pull request from a fork), "
                "so nothing was posted and no comment was hidden",
                status=403,
            ) from err
        self.sticky_id = _id(created)
        return "created", _url(created)

    def _rewrite_sticky(self) -> None:
        """The sticky again, with the record as it stands after hiding and restoring."""
        body = {"body": self.hiding.sticky_body(self.draft.summary)}
        if self.sticky_id is not None:
            self.write("PATCH", f"{self.target.path}/issues/comments/{self.sticky_id}", body)

    def _resolve_threads(self, comments: Sequence[RemoteComment]) -> int:
        """Resolve the open review threads our fixed findings' comments start."""
        if not comments:
            return 0
        try:
            threads = moderation.review_threads(self.client, self.target)
        except GitHubError as err:
            self.warnings.append(f"could not read the review threads, none resolved: {err}")
            return 0
        open_threads = [
            thread.id
            for comment in comments
            if (thread := threads.get(comment.id)) is not None and not thread.resolved
        ]
        outcome = moderation.resolve_threads(self.client, open_threads, dry_run=self.dry_run)
        self.warnings += [f"could not resolve thread {tid}: {why}" for tid, why in outcome.failed]
        return len(outcome.done)

    def _find_sticky(self) -> RemoteIssueComment | None:
        return find_sticky(self.login, self._issue_comments())

    def _post(self, comments: Sequence[DraftComment], existing: Existing) -> tuple[int, int, int]:
        """Create the reviews carrying `comments`; returns (created, moved, reviews)."""
        wants_changes = self.draft.event == "REQUEST_CHANGES" and not existing.changes_requested
        if not comments and not wants_changes:
            return 0, 0, 0
        size = MAX_COMMENTS_PER_REVIEW
        batches = [comments[start : start + size] for start in range(0, len(comments), size)]
        created = moved = 0
        for part, batch in enumerate(batches or [()]):
            base = self.draft.body
            if part:
                base = continuation_body(part * size + 1, part * size + len(batch), len(comments))
            event = self.draft.event if part == 0 else "COMMENT"
            posted, refused = self._review(base, event, batch, part, existing)
            created, moved = created + posted, moved + refused
        return created, moved, max(len(batches), 1)

    def _review(
        self,
        base: str,
        event: str,
        batch: Sequence[DraftComment],
        part: int,
        existing: Existing,
    ) -> tuple[int, int]:
        key = batch_id(self.commit, event, batch, part)
        try:
            self._submit(review_body(base, key), event, batch, key)
            return len(batch), 0
        except GitHubError as err:
            if err.status != 422 or not batch:
                raise
            refused = refused_anchors(self, batch, existing, err)
        moved = {comment.fingerprint for comment in refused}
        accepted = [comment for comment in batch if comment.fingerprint not in moved]
        self._submit(review_body(base, key, refused), event, accepted, key)
        return len(accepted), len(refused)

    def _submit(self, body: str, event: str, batch: Sequence[DraftComment], key: str) -> None:
        payload = self.payload(body, batch) | {"event": event}
        self.create(f"{self.pull}/reviews", payload, lambda: self._find_review(key))

    def _find_review(self, key: str) -> RemoteReview | None:
        return next(
            (
                review
                for review in self.reviews()
                if is_ours(review.author, self.login) and (BATCH, key) in find_markers(review.body)
            ),
            None,
        )

    def payload(self, body: str, batch: Sequence[DraftComment]) -> dict[str, Any]:
        """A create-review request carrying `batch` under `body`, on the run's commit."""
        comments = [comment.payload() | {"body": fit_body(comment.body)} for comment in batch]
        payload: dict[str, Any] = {"body": body, "comments": comments}
        if self.commit:
            payload["commit_id"] = self.commit
        return payload

    def _edit(self, edits: Sequence[tuple[RemoteComment, str]]) -> int:
        for comment, body in edits:
            self.write("PATCH", f"{self.target.path}/pulls/comments/{comment.id}", {"body": body})
        return len(edits)

    def _head(self) -> str | None:
        if self.commit is None and self.target.head_sha is not None:
            self.commit = self.target.head_sha
        if self.commit is None:
            data = self.client.get(self.pull)
            head = data.get("head") if isinstance(data, dict) else None
            sha = head.get("sha") if isinstance(head, dict) else None
            self.commit = sha if isinstance(sha, str) else None
        return self.commit

    def _dismiss(self, reviews: Sequence[RemoteReview]) -> int:
        if self.draft.event == "REQUEST_CHANGES" or not reviews:
            return 0
        message = f"review-quorum no longer requests changes as of {self._head() or 'this run'}."
        dismissed = 0
        for review in reviews:
            path = f"{self.pull}/reviews/{review.id}/dismissals"
            try:
                self.write("PUT", path, {"message": message, "event": "DISMISS"})
                dismissed += 1
            except GitHubError as err:
                if err.status not in (403, 404, 422):
                    raise
                self.warnings.append(f"could not dismiss review {review.id}: {err}")
        return dismissed

    def create(
        self, path: str, payload: Mapping[str, Any], applied: Callable[[], object | None]
    ) -> Any:
        """POST `payload`; after a failure that may have been applied, ask `applied`."""
        return create_once(self.write, self.client.wait_before_retry, path, payload, applied)

    def write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self.client.write(method, path, body, dry_run=self.dry_run)


def _id(created: object) -> int | None:
    if isinstance(created, RemoteIssueComment):
        return created.id
    value = created.get("id") if isinstance(created, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _url(created: object) -> str | None:
    if isinstance(created, RemoteIssueComment):
        return created.html_url
    url = created.get("html_url") if isinstance(created, dict) else None
    return url if isinstance(url, str) else None
