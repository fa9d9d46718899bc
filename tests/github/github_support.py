"""Shared builders for the GitHub tests: plans, drafts, and a fake wired to the spec."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from unidiff.patch import PatchSet

from conftest import shared_path
from github.fake import FakeGitHub
from github.github_openapi import GitHubSpec
from review_quorum.cli import posting
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.github import PullRequest
from review_quorum.markup.markers import marker
from review_quorum.model import NormalizedFinding
from review_quorum.plan import Settings, review
from review_quorum.render.json_report import report_data

BOT = "quorum-bot"
TOKEN = "ghp_testtoken0123456789abcdefghijklmnopqrstu"
TARGET = PullRequest("octo-org", "widgets", 7)


@functools.cache
def _spec() -> GitHubSpec:
    return GitHubSpec.load(shared_path("github", "github-rest-subset.json"))


def new_fake(**options: Any) -> FakeGitHub:
    """A fake GitHub validating against ../shared's OpenAPI extract (skips without it)."""
    fake = FakeGitHub(_spec(), **options)
    fake.add_token(TOKEN, BOT)
    return fake


def posting_fake(
    monkeypatch: pytest.MonkeyPatch,
    diff: Mapping[str, Iterable[int]] = {"src/app.py": range(1, 50)},
) -> FakeGitHub:
    """A fake that `quorum post` (called in-process through `main`) posts to, with a token."""
    fake = new_fake()
    fake.set_diff(diff)
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    return fake


def comment(fingerprint: str, path: str, line: int, title: str = "", **extra: Any) -> DraftComment:
    title = title or f"Finding {fingerprint}"
    body = f"{marker('finding', fingerprint)}\n**{title}**\n\nSomething in `{path}` needs a look."
    return DraftComment(path, line, body, fingerprint, **extra)


def draft(
    comments: Iterable[DraftComment],
    *,
    summary: str = "## review-quorum\n\nAll findings, grouped by agreement.",
    event: str = "COMMENT",
    reported: Iterable[str] = (),
) -> ReviewDraft:
    """A draft posting `comments`; `reported` are the fingerprints it reports elsewhere."""
    return ReviewDraft(
        body="**Assessment: NEEDS ATTENTION**",
        comments=tuple(comments),
        summary=f"{marker('summary')}\n{summary}",
        event=event,
        reported=frozenset(reported),
    )


def addressable(diff: Path) -> dict[str, set[int]]:
    """The RIGHT-side lines a review comment can anchor on: added and context lines."""
    lines: dict[str, set[int]] = {}
    for patched in PatchSet(diff.read_text(encoding="utf-8")):
        right = lines.setdefault(patched.path, set())
        for hunk in patched:
            right.update(line.target_line_no for line in hunk if line.target_line_no is not None)
    return lines


def saved_plan(
    places: list[tuple[str, int, str]],
    bots: tuple[str, ...] = ("bandit", "semgrep"),
    settings: Settings | None = None,
) -> dict[str, Any]:
    """What `quorum review --format json` writes when every bot reports each (path, line, title).

    Every finding is high-severity security agreed by all bots: confirmed, posted inline.
    """
    return report_data(review(agreed_findings(places, bots), settings=settings or Settings()))


def agreed_findings(
    places: list[tuple[str, int, str]], bots: tuple[str, ...] = ("bandit", "semgrep")
) -> list[NormalizedFinding]:
    """A high-severity security finding of every bot at each (path, line, title)."""
    return [
        NormalizedFinding.create(
            bot=bot,
            finding_id=f"{bot}-{index}",
            severity="high",
            category="security",
            title=title,
            file=path,
            line=line,
        )
        for index, (path, line, title) in enumerate(places)
        for bot in bots
    ]
