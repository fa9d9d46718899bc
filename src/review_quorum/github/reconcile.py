"""What a run writes (`writes_for`), from the draft and what our identity already posted.

Pure functions, no I/O. Only comments authored by our login count: a marker planted by
anyone else is ignored. A finding is already there when one of our live inline comments
(in a submitted review) carries its fingerprint, wherever the code has moved it since, or
when one of our review bodies lists it as refused by GitHub. A comment is "replied" when
another author answered it (`in_reply_to_id`); such threads are never edited again.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from review_quorum.delivery.bodies import BATCH, MOVED
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import fit_body
from review_quorum.delivery.fixing import judge_gone
from review_quorum.delivery.reconcile import has_marker, is_ours, live_fingerprint, normal
from review_quorum.github.batches import PROBE
from review_quorum.github.remote import RemoteComment, RemoteIssueComment, RemoteReview
from review_quorum.markup.markers import SUMMARY, find_markers


class Existing(msgspec.Struct, frozen=True):
    """What our identity has already posted on the pull request."""

    live: dict[str, list[RemoteComment]]
    listed: frozenset[str]
    replied: frozenset[int]
    sticky: RemoteIssueComment | None
    probes: tuple[RemoteReview, ...]
    foreign_pending: bool
    changes_requested: tuple[RemoteReview, ...]

    def has(self, fingerprint: str) -> bool:
        return fingerprint in self.live or fingerprint in self.listed


class Writes(msgspec.Struct, frozen=True):
    """The writes a run makes: new comments, stale bodies, fixed findings."""

    to_post: tuple[DraftComment, ...]
    skipped_existing: int
    to_update: tuple[tuple[RemoteComment, str], ...]
    to_resolve: tuple[tuple[RemoteComment, str], ...]
    kept_replied: int
    # Gone findings' comments kept open (`delivery.fixing`): the bots that reported them did
    # not report now (named), or they did and the comment's lines did not change (none).
    unchecked: tuple[tuple[RemoteComment, tuple[str, ...]], ...] = ()


def index(
    login: str,
    reviews: Sequence[RemoteReview],
    comments: Sequence[RemoteComment],
    issue_comments: Sequence[RemoteIssueComment],
) -> Existing:
    """Our own reviews, inline comments and sticky summary, found by marker and author."""
    mine = [review for review in reviews if is_ours(review.author, login)]
    pending = {review.id for review in mine if review.state == "PENDING"}
    probes = tuple(r for r in mine if r.id in pending and has_marker(r.body, PROBE))
    submitted = [review for review in mine if review.id not in pending]
    return Existing(
        live=_live(login, comments, pending),
        listed=frozenset(_payloads(submitted, MOVED)),
        replied=frozenset(
            comment.in_reply_to
            for comment in comments
            if comment.in_reply_to is not None and not is_ours(comment.author, login)
        ),
        sticky=find_sticky(login, issue_comments),
        probes=probes,
        foreign_pending=len(pending) > len(probes),
        changes_requested=tuple(
            review
            for review in submitted
            if review.state == "CHANGES_REQUESTED" and has_marker(review.body, BATCH)
        ),
    )


def find_sticky(
    login: str, issue_comments: Sequence[RemoteIssueComment]
) -> RemoteIssueComment | None:
    """Our sticky summary: the first issue comment by `login` carrying the summary marker."""
    return next(
        (
            comment
            for comment in issue_comments
            if is_ours(comment.author, login) and has_marker(comment.body, SUMMARY)
        ),
        None,
    )


def by_location(draft: ReviewDraft, existing: Existing) -> dict[str, RemoteComment]:
    """Our live comments whose identity this run does not report, each mapped onto the
    comment of this run that has no comment yet and stands on the very line GitHub now
    shows it on: the same finding under an identity an earlier version wrote, or one
    that follows the line number (no code to read). It is updated, not posted again."""
    reported = draft.fingerprints()
    orphans = {
        (remote.path, remote.line): remote
        for fingerprint, remotes in existing.live.items()
        if fingerprint not in reported
        for remote in remotes
        if remote.line is not None
    }
    mapped: dict[str, RemoteComment] = {}
    for comment in draft.comments:
        if not existing.has(comment.fingerprint):
            remote = orphans.pop((comment.path, comment.line), None)
            if remote is not None:
                mapped[comment.fingerprint] = remote
    return mapped


def writes_for(draft: ReviewDraft, existing: Existing, *, resolve_fixed: bool) -> Writes:
    """The comments to create, update and mark fixed for `draft`."""
    mapped = by_location(draft, existing)
    to_post = tuple(
        comment
        for comment in draft.comments
        if not existing.has(comment.fingerprint) and comment.fingerprint not in mapped
    )
    to_update = tuple(
        (remote, fit_body(comment.body))
        for comment in draft.comments
        for remote in (*existing.live.get(comment.fingerprint, ()), *_one(mapped, comment))
        if remote.id not in existing.replied
        and normal(remote.body) != normal(fit_body(comment.body))
    )
    reported = draft.fingerprints()
    kept = {remote.id for remote in mapped.values()}
    gone = [
        (remote, fingerprint)
        for fingerprint, remotes in existing.live.items()
        if fingerprint not in reported
        for remote in remotes
        if remote.id not in kept
    ]
    unchecked = tuple(
        (remote, verdict.missing)
        for remote, _ in gone
        if remote.id not in existing.replied
        for verdict in [
            judge_gone(draft, remote.body, remote.path, remote.line, outdated=remote.line is None)
        ]
        if not verdict.fixed
    )
    waiting = {remote.id for remote, _ in unchecked}
    fixed = [item for item in gone if item[0].id not in waiting]
    to_resolve = tuple(item for item in fixed if item[0].id not in existing.replied)
    return Writes(
        to_post=to_post,
        skipped_existing=len(draft.comments) - len(to_post) - len(mapped),
        to_update=to_update,
        to_resolve=to_resolve if resolve_fixed else (),
        kept_replied=len(fixed) - len(to_resolve) if resolve_fixed else 0,
        unchecked=unchecked if resolve_fixed else (),
    )


def _one(mapped: dict[str, RemoteComment], comment: DraftComment) -> tuple[RemoteComment, ...]:
    remote = mapped.get(comment.fingerprint)
    return () if remote is None else (remote,)


def _live(
    login: str, comments: Sequence[RemoteComment], pending: set[int]
) -> dict[str, list[RemoteComment]]:
    live: dict[str, list[RemoteComment]] = {}
    for comment in comments:
        if not is_ours(comment.author, login) or comment.in_reply_to is not None:
            continue
        if comment.review_id in pending:
            continue  # an unsubmitted probe: nobody else can see it
        fingerprint = live_fingerprint(comment.body)
        if fingerprint:
            live.setdefault(fingerprint, []).append(comment)
    return live


def _payloads(reviews: Sequence[RemoteReview], kind: str) -> set[str]:
    return {
        payload
        for review in reviews
        for found, payload in find_markers(review.body)
        if found == kind
    }
