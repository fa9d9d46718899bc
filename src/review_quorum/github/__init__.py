"""Delivering a review to GitHub: the REST client, the target pull request, the poster.

`post_review(client, target, draft)` posts one `delivery.draft.ReviewDraft` (inline
comments plus a sticky summary) idempotently; `GitHubClient` is the only code here that
touches the network.

Each name is imported from its module when first used: naming the pull request to
record a run at (`resolve_target`) does not load the HTTP client (httpx, and the click,
rich and pygments its own command line brings: about 220M instructions).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from review_quorum.github.client import GitHubClient, RetryPolicy, format_request
    from review_quorum.github.poster import PostResult, post_review
    from review_quorum.github.target import PullRequest, resolve_target

_MODULES = {
    "GitHubClient": "client",
    "RetryPolicy": "client",
    "format_request": "client",
    "PostResult": "poster",
    "post_review": "poster",
    "PullRequest": "target",
    "resolve_target": "target",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "GitHubClient",
    "PostResult",
    "PullRequest",
    "RetryPolicy",
    "format_request",
    "post_review",
    "resolve_target",
]
