"""Shared builders for the Bitbucket tests: the stand-in wired to the contract, a pull
request with ten review bots' inline comments (the bodies written for the GitLab tests, in
each bot's format), and running `quorum` against the stand-in over HTTP."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import httpx
import pytest

from bitbucket.bitbucket_contract import BitbucketSpec
from bitbucket.fake import API, FakeBitbucket
from conftest import shared_path
from github import fake_server
from gitlab.gitlab_support import BOT_NOTES, BotNote
from review_quorum.cli import github_input, posting

TOKEN = "ATCTT3xFfGN0quorumtesttoken0123456789"
QUORUM = "review-quorum"
HEAD = "c" * 40
PULL = ["--repo", "acme/stockroom", "--pr", "7"]
PATH = "src/stock.py"
VARIABLES = (
    "BITBUCKET_TOKEN",
    "BITBUCKET_USERNAME",
    "BITBUCKET_APP_PASSWORD",
    "BITBUCKET_API_URL",
    "BITBUCKET_WORKSPACE",
    "BITBUCKET_REPO_SLUG",
    "BITBUCKET_PR_ID",
    "BITBUCKET_COMMIT",
)
SERVICE = "project_4242_bot_"


@functools.cache
def spec() -> BitbucketSpec:
    return BitbucketSpec.load(shared_path("bitbucket-cloud", "bitbucket-cloud-pr-subset.json"))


def new_fake(api_url: str | None = None) -> FakeBitbucket:
    """A stand-in validating against ../shared's contract (skips without it), with a head
    commit changing a 40-line file and quorum's repository access token."""
    fake = FakeBitbucket(spec(), api_url=api_url or API)
    fake.add_account(TOKEN, QUORUM, app=True)
    fake.push(HEAD, {PATH: 40})
    return fake


@contextmanager
def over_http(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeBitbucket, list[str]]]:
    """The stand-in served on 127.0.0.1, `quorum` pointed at it with the token."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(posting, "make_http_client", lambda: httpx.Client(timeout=10))
    with fake_server.serve(new_fake) as (fake, errors):
        monkeypatch.setenv("BITBUCKET_TOKEN", TOKEN)
        monkeypatch.setenv("BITBUCKET_API_URL", fake.api_url)
        timing = github_input.Timing(clock=fake.time.clock, sleep=fake.time.sleep)
        monkeypatch.setattr(github_input, "TIMING", timing)
        yield fake, errors


def seed_bot_comments(fake: FakeBitbucket, notes: Sequence[BotNote] = BOT_NOTES) -> None:
    """The bots' inline comments (`notes`: the ten's), a person's comment with a reply, a
    deleted comment."""
    for _, username, line, body in notes:
        fake.add_comment(username, body, path=PATH, line=line, app=username.startswith(SERVICE))
    first = fake.add_comment("Dana", "Please double-check the totals before merging.")
    fake.add_comment("Erin", "Agreed, the totals look off.", parent=first)
    gone = fake.add_comment("coderabbitai", BOT_NOTES[0][3], path=PATH, line=33)
    gone["deleted"] = True
