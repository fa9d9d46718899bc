"""Running `quorum review --github` against the fake: wiring, clocks that jump, reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from github.fake import FakeGitHub, FakeTime
from github.github_support import TOKEN
from review_quorum.cli import github_input, main, posting

TARGET = ["--repo", "octo-org/widgets", "--pr", "7"]
ACTIONS_VARIABLES = (
    "GITHUB_TOKEN",
    "GITHUB_API_URL",
    "GITHUB_GRAPHQL_URL",
    "GITHUB_ACTIONS",
    "GITHUB_REPOSITORY",
    "GITHUB_EVENT_PATH",
)


class Timeline(FakeTime):
    """A fake clock on which things happen: `at(seconds, action)` runs once that time passed."""

    def __init__(self) -> None:
        super().__init__()
        self.start = self.now
        self.events: list[tuple[float, Callable[[], object]]] = []

    def at(self, seconds: float, action: Callable[[], object]) -> None:
        self.events.append((seconds, action))

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        due = [event for event in self.events if event[0] <= self.now - self.start]
        for event in due:
            self.events.remove(event)
            event[1]()


def connect(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> Timeline:
    """Route `quorum` to `fake` with a token, a clean environment and a fake clock."""
    for name in ACTIONS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    if fake.api_url != "https://api.github.com":
        monkeypatch.setenv("GITHUB_API_URL", fake.api_url)
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    time = Timeline()
    timing = github_input.Timing(clock=time.clock, sleep=time.sleep, interval=30.0)
    monkeypatch.setattr(github_input, "TIMING", timing)
    return time


def review_json(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """`quorum review ARGS --format json`: the exit status and the report (empty if none)."""
    output = tmp_path / "plan.json"
    status = main(["review", *args, "--format", "json", "-o", str(output)])
    report = json.loads(output.read_text(encoding="utf-8")) if output.exists() else {}
    return status, report


def members(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [member for finding in report["findings"] for member in finding["members"]]


def placed(report: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(bot, file, line) of every member finding, sorted."""
    return sorted((m["bot"], m["evidence"]["file"], m["evidence"]["line"]) for m in members(report))
