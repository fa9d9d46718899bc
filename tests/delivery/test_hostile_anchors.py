"""A re-run that reads our own threads back with an anchor field of the wrong type (a
path that is a list or null, a line that is an object) reconciles them as threads with no
usable place, never with an internal error (exit 3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import httpx
import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab import gitlab_support
from review_quorum.cli import github_input, main, posting


@dataclass(frozen=True)
class Platform:
    support: ModuleType  # the platform's test support: its stand-in, token and target
    variables: tuple[str, ...]  # the environment that must not leak into the run
    token: str
    api: str
    pull: list[str]
    reporter: str
    seed: Callable[[Any], None]
    listing: str  # the list of threads whose anchors are spoilt
    key: str
    value: object


PLATFORMS = {
    "gitlab": Platform(
        gitlab_support,
        gitlab_support.GITLAB_VARIABLES,
        "GITLAB_TOKEN",
        "GITLAB_API_URL",
        ["--gitlab", *gitlab_support.MR],
        "gitlab-mr",
        gitlab_support.seed_bot_discussions,
        "/discussions",
        "new_line",
        [],
    ),
    "azure-devops": Platform(
        ado_support,
        ado_support.VARIABLES,
        "AZURE_DEVOPS_TOKEN",
        "AZURE_DEVOPS_API_URL",
        ["--azure-devops", *ado_support.PULL],
        "azure-devops-pr",
        ado_support.seed_bot_threads,
        "/threads",
        "filePath",
        None,
    ),
    "bitbucket": Platform(
        bitbucket_support,
        bitbucket_support.VARIABLES,
        "BITBUCKET_TOKEN",
        "BITBUCKET_API_URL",
        ["--bitbucket", *bitbucket_support.PULL],
        "bitbucket-pr",
        bitbucket_support.seed_bot_comments,
        "/comments",
        "path",
        [],
    ),
}


def spoilt(data: object, key: str, value: object) -> None:
    """Every `key` anywhere in `data` set to `value`."""
    if isinstance(data, dict):
        if key in data:
            data[key] = value
        for item in data.values():
            spoilt(item, key, value)
    elif isinstance(data, list):
        for item in data:
            spoilt(item, key, value)


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_wrong_typed_anchor_on_our_thread_is_no_internal_error(
    platform: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = PLATFORMS[platform]
    fake = chosen.support.new_fake()
    chosen.seed(fake)
    for name in chosen.variables:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(chosen.token, chosen.support.TOKEN)
    monkeypatch.setenv(chosen.api, fake.api_url)
    timing = github_input.Timing(clock=fake.time.clock, sleep=fake.time.sleep)
    monkeypatch.setattr(github_input, "TIMING", timing)
    spoil = {"on": False}

    def answer(request: httpx.Request) -> httpx.Response:
        response: httpx.Response = fake.handle(request)
        listing = request.method == "GET" and request.url.path.endswith(chosen.listing)
        if not (spoil["on"] and listing):
            return response
        data = json.loads(response.read())
        spoilt(data, chosen.key, chosen.value)
        return httpx.Response(response.status_code, headers=response.headers, json=data)

    monkeypatch.setattr(
        posting, "make_http_client", lambda: httpx.Client(transport=httpx.MockTransport(answer))
    )
    argv = ["review", *chosen.pull, "--reporter", chosen.reporter, "--inline-level", "unverified"]
    argv += ["--line-window", "0", "--gate-level", "none", "--resolve-fixed"]
    assert main(argv) == 0
    spoil["on"] = True
    capsys.readouterr()
    assert main(argv) == 0
    assert "internal error" not in capsys.readouterr().err
