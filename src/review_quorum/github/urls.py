"""Where a token may go: GitHub's API roots, REST and GraphQL.

`validate_api_url` accepts a base URL only when it is safe to send a token to (https, or
http on a loopback address; no credentials, query or fragment); `graphql_url_for` derives
the GraphQL endpoint from the REST root (``/graphql`` beside api.github.com,
``/api/graphql`` for GitHub Enterprise Server's ``/api/v3``); `same_origin` keeps
pagination from leading the token to another host.
"""

from __future__ import annotations

import ipaddress

import httpx

from review_quorum.errors import ConfigError


def validate_api_url(url: str, name: str = "GITHUB_API_URL") -> str:
    """`url` without a trailing slash, if it is safe to send a token to; else ConfigError."""
    text = url.strip().rstrip("/")
    try:
        parsed = httpx.URL(text)
    except httpx.InvalidURL:
        raise ConfigError(f"{name} is not a valid URL") from None
    if parsed.userinfo:
        raise ConfigError(f"{name} must not contain credentials")
    if parsed.query or parsed.fragment or not parsed.host:
        raise ConfigError(f"{name} must be a plain https:// base URL")
    if parsed.scheme == "https" or (parsed.scheme == "http" and _loopback(parsed.host)):
        return text
    raise ConfigError(
        f"{name} must use https:// (http:// only on a loopback address), "
        f"not {parsed.scheme}://{parsed.host}"
    )


def graphql_url_for(api_url: str) -> str:
    """GitHub's GraphQL endpoint beside the REST root `api_url` (GHES: /api/v3 -> /api/graphql)."""
    root = api_url.rstrip("/")
    if root.endswith("/api/v3"):
        return root.removesuffix("/v3") + "/graphql"
    return root + "/graphql"


def same_origin(one: httpx.URL, other: httpx.URL) -> bool:
    return (one.scheme, one.host, one.port) == (other.scheme, other.host, other.port)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
