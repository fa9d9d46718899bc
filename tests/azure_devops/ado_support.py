"""Shared builders for the Azure DevOps tests: the stand-in wired to the contract, a pull
request with ten review bots' threads (the bodies written for the GitLab tests, in each
bot's format), and running `quorum` against the stand-in over HTTP."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import httpx
import pytest

from azure_devops.ado_contract import AzureDevOpsSpec
from azure_devops.fake import API, FakeAzureDevOps
from conftest import shared_path
from github import fake_server
from gitlab.gitlab_support import BOT_NOTES, BotNote
from review_quorum.cli import github_input, posting

TOKEN = "adopatquorumtesttoken0123456789abcdef"
QUORUM = "review-quorum service"
HEAD = "c" * 40
PULL = ["--organization", "contoso", "--project", "Stock Room", "--repo", "stockroom", "--pr", "7"]
PATH = "src/stock.py"
VARIABLES = (
    "AZURE_DEVOPS_TOKEN",
    "AZURE_DEVOPS_API_URL",
    "SYSTEM_ACCESSTOKEN",
    "SYSTEM_COLLECTIONURI",
    "SYSTEM_TEAMPROJECT",
    "BUILD_REPOSITORY_NAME",
    "SYSTEM_PULLREQUEST_PULLREQUESTID",
)
# GitLab's access-token accounts become Azure DevOps service identities here.
SERVICE = "project_4242_bot_"


@functools.cache
def spec() -> AzureDevOpsSpec:
    return AzureDevOpsSpec.load(shared_path("azure-devops", "azure-devops-git-pr-subset.json"))


def new_fake(api_url: str | None = None) -> FakeAzureDevOps:
    """A stand-in validating against ../shared's contract (skips without it), with one
    iteration changing a 40-line file and quorum's PAT."""
    fake = FakeAzureDevOps(spec(), api_url=api_url or API)
    fake.add_identity(TOKEN, QUORUM)
    fake.push(HEAD, {PATH: 40})
    return fake


@contextmanager
def over_http(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeAzureDevOps, list[str]]]:
    """The stand-in served on 127.0.0.1, `quorum` pointed at it with the token."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(posting, "make_http_client", lambda: httpx.Client(timeout=10))
    with fake_server.serve(new_fake) as (fake, errors):
        monkeypatch.setenv("AZURE_DEVOPS_TOKEN", TOKEN)
        monkeypatch.setenv("AZURE_DEVOPS_API_URL", fake.api_url)
        timing = github_input.Timing(clock=fake.time.clock, sleep=fake.time.sleep)
        monkeypatch.setattr(github_input, "TIMING", timing)
        yield fake, errors


def seed_bot_threads(fake: FakeAzureDevOps, notes: Sequence[BotNote] = BOT_NOTES) -> None:
    """The bots' file threads (`notes`: the ten's), a person's thread with a reply and a
    system comment."""
    for _, username, line, body in notes:
        service = username.startswith(SERVICE)
        if service and not any(i["displayName"] == username for i in fake.tokens.values()):
            fake.add_identity(None, username, service=True)
        fake.add_thread(username, body, path=PATH, line=line)
    thread = fake.add_thread("Dana Reviewer", "Please double-check the totals before merging.")
    fake.reply(thread, "Erin Reviewer", "Agreed, the totals look off.")
    fake.add_thread("Dana Reviewer", "Dana Reviewer voted 'Waiting for author'", system=True)
