"""Where a token may go: an API root that is safe to send it to, on any platform.

`validate_api_url` accepts a base URL only when it is safe to send a token to (https, or
http on a loopback address; no credentials, query or fragment); `same_origin` keeps
pagination from leading the token to another host. The GitHub, GitLab, Azure DevOps and
Bitbucket clients all check their roots here.
"""

from __future__ import annotations

import ipaddress

import httpx

from review_quorum.errors import ConfigError


def validate_api_url(url: str, name: str) -> str:
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


def same_origin(one: httpx.URL, other: httpx.URL) -> bool:
    return (one.scheme, one.host, one.port) == (other.scheme, other.host, other.port)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
