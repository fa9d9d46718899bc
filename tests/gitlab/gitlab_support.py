"""Shared builders for the GitLab tests: the stand-in wired to the contract, a merge request
with ten review bots' diff discussions (bodies written for these tests in each bot's
format), and running `quorum` against the stand-in."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import httpx
import pytest

from conftest import shared_path
from github import fake_server
from gitlab.fake import API, FakeGitLab, diff_text
from gitlab.gitlab_openapi import GitLabSpec
from review_quorum.cli import github_input, posting

TOKEN = "glpat-quorumtesttoken0123456789"
QUORUM = "project_4242_bot_5f1e2d3c"
HEAD = "c" * 40
MR = ["--project", "acme/stockroom", "--mr", "7"]
PATH = "src/stock.py"
GITLAB_VARIABLES = (
    "GITLAB_TOKEN",
    "GITLAB_API_URL",
    "CI_API_V4_URL",
    "CI_JOB_TOKEN",
    "CI_PROJECT_ID",
    "CI_MERGE_REQUEST_IID",
    "CI_MERGE_REQUEST_PROJECT_ID",
)
# Lines 10-30 of src/stock.py are new in the merge request; 1-9 and 31-40 are unchanged.
CHANGED = set(range(10, 31))


@functools.cache
def _spec() -> GitLabSpec:
    return GitLabSpec.load(shared_path("gitlab", "gitlab-rest-subset.json"))


def new_fake(api_url: str | None = None) -> FakeGitLab:
    """A stand-in validating against ../shared's contract (skips without it), with one
    version and quorum's project access token."""
    fake = FakeGitLab(_spec(), api_url=api_url or API)
    fake.add_user(TOKEN, QUORUM, bot=True)
    fake.push(HEAD, {PATH: diff_text({}, CHANGED, 40)})
    return fake


@contextmanager
def over_http(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeGitLab, list[str]]]:
    """The stand-in served on 127.0.0.1, `quorum` pointed at it with the token."""
    for name in GITLAB_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(posting, "make_http_client", lambda: httpx.Client(timeout=10))
    with fake_server.serve(new_fake) as (fake, errors):
        monkeypatch.setenv("GITLAB_TOKEN", TOKEN)
        monkeypatch.setenv("GITLAB_API_URL", fake.api_url)
        timing = github_input.Timing(clock=fake.time.clock, sleep=fake.time.sleep)
        monkeypatch.setattr(github_input, "TIMING", timing)
        yield fake, errors


# (bot the finding is read under, GitLab username, line, body)
BotNote = tuple[str, str, int, str]
BOT_NOTES: tuple[BotNote, ...] = (
    (
        "coderabbit",
        "coderabbitai",
        12,
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**The restock count can go negative**\n\n"
        "Subtracting the returned items before the check lets the count drop below zero.",
    ),
    (
        "gemini",
        "gemini-code-assist",
        14,
        "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n"
        "The lookup table is rebuilt on every call, which makes the loop quadratic.",
    ),
    (
        "sourcery",
        "sourcery-ai",
        16,
        "**issue (bug_risk):** The warehouse id is compared as text\n\n"
        "Comparing it with `==` on strings misses ids padded with zeros.",
    ),
    (
        "greptile",
        "greptile-apps",
        18,
        "**Unbounded retry loop**\n\nThe sync retries forever when the supplier is down.",
    ),
    (
        "codex",
        "chatgpt-codex-connector",
        20,
        "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>"
        "  Reserve the stock before charging**\n\nA failed reservation leaves a charged order.",
    ),
    (
        "cursor",
        "project_4242_bot_a1b2c3",
        22,
        "### Discount applied twice\n\n**High Severity**\n\n<!-- DESCRIPTION START -->\n"
        "The bulk discount is applied in both the cart and the invoice.\n"
        "<!-- DESCRIPTION END -->\n\n<!-- BUGBOT_BUG_ID: 7f3a9c21 -->",
    ),
    (
        "devin",
        "project_4242_bot_d4e5f6",
        24,
        '<!-- devin-review-comment {"id": "BUG_0001", "file_path": "src/stock.py", '
        '"start_line": 24, "end_line": 24, "side": "RIGHT"} -->\n\n'
        "🔴 **Stock level read outside the lock**\n\nTwo workers can both reserve the last item.",
    ),
    (
        "kodus",
        "project_4242_bot_0a0b0c",
        26,
        "![kody code-review](https://img.shields.io/badge/kody-review-555) "
        "![Bug](https://img.shields.io/badge/Bug-red) "
        "![medium](https://img.shields.io/badge/severity_level-medium-yellow)\n"
        "```python\nshipped = round(quantity * share, 0)\n```\n"
        "The rounding drops half a unit on every partial shipment.\n\n<!-- kody-codereview -->",
    ),
    (
        "codoki",
        "project_4242_bot_99aa11",
        28,
        "<!-- CODOKI_INLINE -->\n⚠️ **High**: The SKU is logged with the customer's address.",
    ),
    (
        "cubic",
        "cubic-dev-ai",
        30,
        '<!-- metadata:{"confidence":8} -->\nP1: The batch size is read from the request '
        "without a limit, so one call can load every product.",
    ),
)


def seed_bot_discussions(fake: FakeGitLab, notes: Sequence[BotNote] = BOT_NOTES) -> None:
    """The bots' diff discussions (`notes`: the ten's), a person's note, a reply and a
    system note."""
    for _, username, line, body in notes:
        fake.add_note(username, body, position=fake.position(PATH, line))
    thread = fake.add_note("dana", "Please double-check the totals before merging.")
    fake.add_note("erin", "Agreed, the totals look off.", reply_to=thread)
    fake.add_note("dana", "added 2 commits", system=True)


def discussion_pages(fake: FakeGitLab) -> list[tuple[str, str, int]]:
    return [entry for entry in fake.log if entry[1].endswith("/discussions")]
