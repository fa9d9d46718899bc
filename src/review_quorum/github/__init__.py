"""Delivering a review to GitHub: the REST client, the target pull request, the poster.

`post_review(client, target, draft)` posts one `delivery.draft.ReviewDraft` (inline
comments plus a sticky summary) idempotently; `GitHubClient` is the only code here that
touches the network.
"""

from __future__ import annotations

from review_quorum.github.client import GitHubClient, RetryPolicy, format_request
from review_quorum.github.poster import PostResult, post_review
from review_quorum.github.target import PullRequest, resolve_target

__all__ = [
    "GitHubClient",
    "PostResult",
    "PullRequest",
    "RetryPolicy",
    "format_request",
    "post_review",
    "resolve_target",
]
