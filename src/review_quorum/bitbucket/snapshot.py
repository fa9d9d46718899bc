"""Reading a pull request: its head commit, its web address and every comment, page by page.

`read_pull_request(client, target)` asks for the pull request (``source.commit.hash``,
the head commit, which Bitbucket gives abbreviated; ``links.html.href``) and every comment
(global, inline and replies, oldest first), kept as Bitbucket's JSON: the comment reader
(`ingest.bitbucket_comments`) decides what they mean.
"""

from __future__ import annotations

from typing import Any

import msgspec

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.target import BitbucketPullRequest
from review_quorum.errors import BitbucketError


class BitbucketPullSnapshot(msgspec.Struct, frozen=True):
    """One reading of a pull request."""

    target: BitbucketPullRequest
    head_sha: str
    web_url: str = ""
    comments: tuple[dict[str, Any], ...] = ()
    pull: dict[str, Any] = msgspec.field(default_factory=dict)  # as Bitbucket gave it


def read_pull_request(
    client: BitbucketClient, target: BitbucketPullRequest
) -> BitbucketPullSnapshot:
    """Read `target` now."""
    pull = client.get(target.path)
    if not isinstance(pull, dict):
        raise BitbucketError(f"Bitbucket API GET {target.path} returned no pull request")
    head = _dig(pull, "source", "commit", "hash")
    if not isinstance(head, str) or not head:
        raise BitbucketError(f"Bitbucket API GET {target.path}: no source commit")
    web = _dig(pull, "links", "html", "href")
    comments = client.paginate(f"{target.path}/comments")
    for index, comment in enumerate(comments):
        if not isinstance(comment, dict):
            raise BitbucketError(f"Bitbucket API listed comment {index} that is no object")
    return BitbucketPullSnapshot(
        target=target,
        head_sha=head,
        web_url=web if isinstance(web, str) else "",
        comments=tuple(comments),
        pull=pull,
    )


def _dig(data: object, *keys: str) -> object:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data
