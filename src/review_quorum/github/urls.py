"""Where a token may go among GitHub's API roots, REST and GraphQL.

`graphql_url_for` derives the GraphQL endpoint from the REST root (``/graphql`` beside
api.github.com, ``/api/graphql`` for GitHub Enterprise Server's ``/api/v3``);
`same_origin` keeps pagination from leading the token to another host. Whether a root is
safe to send a token to at all is `retrying.validate_api_url`, shared by every client.
"""

from __future__ import annotations

import httpx


def graphql_url_for(api_url: str) -> str:
    """GitHub's GraphQL endpoint beside the REST root `api_url` (GHES: /api/v3 -> /api/graphql)."""
    root = api_url.rstrip("/")
    if root.endswith("/api/v3"):
        return root.removesuffix("/v3") + "/graphql"
    return root + "/graphql"


def same_origin(one: httpx.URL, other: httpx.URL) -> bool:
    return (one.scheme, one.host, one.port) == (other.scheme, other.host, other.port)
