"""Which inline comments' anchors GitHub refuses: `refused_anchors`, found by bisection.

GitHub refuses a whole review (422) when one of its comments cannot anchor, and does not
say which. So the comments of the refused batch are posted again in pending reviews,
halves of halves: a pending review notifies nobody and is deleted at once. The comments
no pending review can carry are the refused ones; the poster moves them to the review
body. Each probe carries the probe marker, so a probe an interrupted run left behind is
deleted by the next (`delete_reviews` of `Existing.probes`), and after a probe whose
creation failed in a way that may still have been applied, any such probe is deleted
(never taken for "applied"). A pending review of our own login that is not a probe
prevents the search, which then stops with advice."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from review_quorum.delivery.draft import DraftComment
from review_quorum.errors import GitHubError
from review_quorum.github.batches import PROBE, PROBE_BODY
from review_quorum.github.reconcile import Existing
from review_quorum.github.remote import RemoteReview
from review_quorum.github.target import PullRequest
from review_quorum.markup.markers import find_markers


class Poster(Protocol):
    """What the search needs of the run posting the review (`poster.post_review`)."""

    login: str
    target: PullRequest
    pull: str  # the pull request's REST path

    def payload(self, body: str, batch: Sequence[DraftComment]) -> dict[str, Any]: ...

    def create(
        self, path: str, payload: Mapping[str, Any], applied: Callable[[], object | None]
    ) -> Any: ...

    def write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any: ...

    def reviews(self) -> list[RemoteReview]: ...


def refused_anchors(
    poster: Poster, batch: Sequence[DraftComment], existing: Existing, err: GitHubError
) -> list[DraftComment]:
    """The comments of `batch` (which GitHub refused with `err`) whose anchor it refuses."""
    if existing.foreign_pending:
        raise GitHubError(
            f"{err}; a pending review by {poster.login} on {poster.target} prevents finding "
            "which anchor GitHub refused: submit or delete it, then run again",
            status=422,
        ) from err
    refused = _bisect(poster, list(batch), known_to_fail=True)
    if not refused:
        raise err
    return refused


def delete_reviews(poster: Poster, reviews: Sequence[RemoteReview]) -> None:
    for review in reviews:
        try:
            poster.write("DELETE", f"{poster.pull}/reviews/{review.id}")
        except GitHubError as err:
            if err.status != 404:  # already gone: what we wanted
                raise


def _bisect(
    poster: Poster, batch: list[DraftComment], *, known_to_fail: bool
) -> list[DraftComment]:
    """The comments GitHub refuses, found with pending reviews that notify nobody."""
    if not known_to_fail and _probe(poster, batch):
        return []
    if len(batch) == 1:
        return batch
    middle = len(batch) // 2
    left = _bisect(poster, batch[:middle], known_to_fail=False)
    # The whole batch failed, so when its left half passes the right half must fail.
    right = _bisect(poster, batch[middle:], known_to_fail=not left)
    return left + right


def _probe(poster: Poster, batch: Sequence[DraftComment]) -> bool:
    try:
        created = poster.create(
            f"{poster.pull}/reviews",
            poster.payload(PROBE_BODY, batch),
            lambda: _clear_probes(poster),
        )
    except GitHubError as err:
        if err.status == 422:
            return False
        raise
    review_id = created.get("id") if isinstance(created, dict) else None
    if not isinstance(review_id, int):
        raise GitHubError("GitHub API created a pending review without an id")
    delete_reviews(poster, [RemoteReview(review_id, poster.login, "PENDING", PROBE_BODY)])
    return True


def _clear_probes(poster: Poster) -> None:
    """After a failed probe, delete it if it was created anyway; never "applied"."""
    ours = poster.login.casefold()
    delete_reviews(
        poster,
        [
            review
            for review in poster.reviews()
            if review.author.casefold() == ours
            and review.state == "PENDING"
            and any(kind == PROBE for kind, _ in find_markers(review.body))
        ],
    )
