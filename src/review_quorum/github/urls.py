"""Where a token may go: GitHub's API roots, REST and GraphQL.

`validate_api_url` accepts a base URL only when it is safe to send a token to (https, or
http on a loopback address; no credentials, query or fragment); `graphql_url_for` derives
the GraphQL endpoint from the REST root (``/graphql`` beside api.github.com,
``/api/graphql`` for GitHub Enterprise Server's ``/api/v3``); `same_origin` keeps
pagination from leading the token to another host.
"""

from __future__ import annotations

from review_quorum.service_urls import same_origin
from review_quorum.service_urls import validate_api_url as _validate


def validate_api_url(url: str, name: str = "GITHUB_API_URL") -> str:
    """`url` without a trailing slash, if it is safe to send a token to; else ConfigError."""
    return _validate(url, name)


def graphql_url_for(api_url: str) -> str:
    """GitHub's GraphQL endpoint beside the REST root `api_url` (GHES: /api/v3 -> /api/graphql)."""
    root = api_url.rstrip("/")
    if root.endswith("/api/v3"):
        return root.removesuffix("/v3") + "/graphql"
    return root + "/graphql"


__all__ = ["graphql_url_for", "same_origin", "validate_api_url"]
