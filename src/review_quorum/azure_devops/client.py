"""The Azure DevOps Git REST 7.1 client: authentication, api-version, retries and dry runs.

`AzureDevOpsClient` wraps an injected `httpx.Client`. It sends its token only to the
configured API root (https, or http on a loopback address): a personal access token
(``AZURE_DEVOPS_TOKEN``) as HTTP Basic with an empty user name, as Azure DevOps asks, or
the pipeline's build service identity (``SYSTEM_ACCESSTOKEN``, which a pipeline must map
into the step's environment) as ``Bearer``. Every request carries ``api-version=7.1``.
Rate limits (429) and server errors of idempotent requests are waited out
(`retrying.RetryingClient`), honouring ``Retry-After``, within a bounded total wait and
telling `on_wait` about every retry; a POST that fails with a server or transport error
is not resent here (Azure DevOps may have applied it: the poster re-reads first). The
token never appears in an error or in dry-run output; in a dry run writes are recorded
in `unsent`, and without a token a dry run reads nothing either ("offline").
"""

from __future__ import annotations

import base64
import os
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import msgspec
import orjson

from review_quorum.errors import AzureDevOpsError, ConfigError
from review_quorum.retrying import (
    JsonRetryingClient,
    RetryPolicy,
    check_token,
    validate_api_url,
)

DEFAULT_API_URL = "https://dev.azure.com"
API_VERSION = "7.1"
TOKEN_HELP = (
    "give the pipeline's build service identity 'Contribute to pull requests' on the "
    "repository and map it into the step (env: SYSTEM_ACCESSTOKEN: $(System.AccessToken)), "
    "or store a personal access token with the Code (read & write) and Code (status) "
    "scopes as a secret variable mapped to AZURE_DEVOPS_TOKEN"
)


class Identity(msgspec.Struct, frozen=True):
    """Who a token acts as: its identity id (a GUID) and display name."""

    id: str
    name: str = ""


class AzureDevOpsClient(JsonRetryingClient):
    """Requests to one Azure DevOps API root, authenticated with one token."""

    error = AzureDevOpsError
    name = "Azure DevOps API"

    def __init__(
        self,
        http: httpx.Client,
        *,
        token: str | None,
        api_url: str = DEFAULT_API_URL,
        bearer: bool = False,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        dry_run: bool = False,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        if token is None and not dry_run:
            raise ConfigError(
                "no Azure DevOps token (AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN): "
                + TOKEN_HELP
                + " (or use --dry-run)"
            )
        check_token(token, "AZURE_DEVOPS_TOKEN" if not bearer else "SYSTEM_ACCESSTOKEN", "Azure")
        api_url = validate_api_url(api_url, "AZURE_DEVOPS_API_URL")
        retry = retry or RetryPolicy(write_interval=0.0)
        self._bearer = bearer
        self._connect(
            http, token, api_url, retry, sleep=sleep, clock=clock, dry_run=dry_run, on_wait=on_wait
        )

    @classmethod
    def from_env(
        cls, http: httpx.Client, env: Mapping[str, str] | None = None, **options: Any
    ) -> AzureDevOpsClient:
        """A client for `AZURE_DEVOPS_TOKEN` (a PAT), else `SYSTEM_ACCESSTOKEN` (the build
        service identity), on `AZURE_DEVOPS_API_URL` (default https://dev.azure.com)."""
        env = os.environ if env is None else env
        pat = env.get("AZURE_DEVOPS_TOKEN", "").strip() or None
        system = env.get("SYSTEM_ACCESSTOKEN", "").strip() or None
        api_url = env.get("AZURE_DEVOPS_API_URL", "").strip() or DEFAULT_API_URL
        if pat is not None:
            return cls(http, token=pat, api_url=api_url, **options)
        return cls(http, token=system, api_url=api_url, bearer=system is not None, **options)

    def values(self, path: str, params: Mapping[str, str] | None = None) -> list[Any]:
        """The ``value`` list Azure DevOps wraps a collection in (``{"count", "value"}``)."""
        data = self.get(path, params)
        if data is None:
            return []
        if isinstance(data, list):  # the contract describes some lists bare
            return data
        items = data.get("value") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise AzureDevOpsError(f"Azure DevOps API GET {path} returned no list")
        return items

    def identity(self, organization: str) -> Identity | None:
        """Who the token acts as (``connectionData``'s authenticated user; None offline)."""
        data = self.get(f"/{quote(organization, safe='')}/_apis/connectionData")
        if data is None:
            return None
        user = data.get("authenticatedUser") if isinstance(data, dict) else None
        user_id = user.get("id") if isinstance(user, dict) else None
        if not isinstance(user_id, str) or not user_id:
            raise AzureDevOpsError(
                "Azure DevOps API GET connectionData returned no authenticated user"
            )
        name = user.get("providerDisplayName") if isinstance(user, dict) else None
        return Identity(user_id, name if isinstance(name, str) else "")

    def _url(self, path: str, params: Mapping[str, str] | None = None) -> str:
        query = {**(params or {}), "api-version": API_VERSION}
        return f"{self.api_url}{path}?{urlencode(query)}"

    def _build(self, method: str, url: str, body: Mapping[str, Any] | None = None) -> httpx.Request:
        headers = {"Accept": "application/json"}
        if self._token is not None:
            if self._bearer:
                headers["Authorization"] = f"Bearer {self._token}"
            else:
                basic = base64.b64encode(f":{self._token}".encode()).decode("ascii")
                headers["Authorization"] = f"Basic {basic}"
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = orjson.dumps(body)
        return self._http.build_request(method, url, headers=headers, content=content)

    def _redact(self, text: str) -> str:
        text = super()._redact(text)
        if self._token and not self._bearer:
            basic = base64.b64encode(f":{self._token}".encode()).decode("ascii")
            text = text.replace(basic, "[REDACTED]")
        return text

    def _message(self, response: httpx.Response) -> str:
        """The VSS error body's ``message``, else the start of the text."""
        try:
            data = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            text = response.text.strip()[:200]
            return text or response.reason_phrase or "no message"
        message = data.get("message") if isinstance(data, dict) else None
        return str(message or response.reason_phrase or "no message")[:500]
