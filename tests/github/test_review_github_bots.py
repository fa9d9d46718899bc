"""`--github` on a busy pull request: a dozen bots over several pages, people, ourselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from github.fake import FakeGitHub
from github.github_reading import TARGET, connect, members, review_json
from github.github_support import new_fake
from github.pull_scene import NOTES, OURS, PEOPLE, populate
from review_quorum.cli import build_parser, github_input
from review_quorum.cli.common import PullSource
from review_quorum.ingest.base import ReadOptions
from review_quorum.model import CommentSource

PAGES = 4


def bot_comments(fake: FakeGitHub) -> list[dict[str, Any]]:
    """The scene's inline comments written by bots (people's and ours left out)."""
    return [
        c
        for c in fake.review_comments
        if c["user"]["login"] not in (*PEOPLE, OURS) and not c.get("in_reply_to_id")
    ]


def test_exactly_the_bots_findings_are_read_each_keeping_its_comment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = new_fake()
    fake.page_cap = PAGES
    populate(fake)
    connect(fake, monkeypatch)
    assert len({note.login for note in NOTES}) >= 10
    assert len(fake.review_comments) > 3 * PAGES and len(fake.reviews) > 3 * PAGES
    args = build_parser().parse_args(["review", "--github", *TARGET])
    pulled = github_input.read_github(PullSource.from_args(args), ReadOptions())
    expected = [
        (
            (c["path"], c["line"]),
            CommentSource(
                "review_comment", c["id"], c["node_id"], c["html_url"], c["user"]["login"]
            ),
        )
        for c in bot_comments(fake)
    ]
    read = [((f.file, f.line), f.source) for f in pulled.batch.findings]
    assert sorted(read, key=str) == sorted(expected, key=str)
    [copilot] = [f for f in pulled.batch.findings if f.bot == "copilot"]
    assert copilot.suggestion == "        attempts = 0"
    authors = {f.source.author for f in pulled.batch.findings if f.source}
    assert authors.isdisjoint({*PEOPLE, OURS})
    assert pulled.head_sha == fake.head_sha


def test_the_review_holds_one_member_per_bot_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = new_fake()
    fake.page_cap = PAGES
    populate(fake)
    connect(fake, monkeypatch)
    status, report = review_json(tmp_path, "--github", "--bots", str(len(NOTES)), *TARGET)
    assert status == 0
    places = sorted((m["evidence"]["file"], m["evidence"]["line"]) for m in members(report))
    assert places == sorted((note.path, note.line) for note in NOTES)
    assert len({m["bot"] for m in members(report)}) == len(NOTES)
    by_id = {c["id"]: c for c in bot_comments(fake)}
    for member in members(report):
        comment = by_id[member["source"]["rest_id"]]
        assert member["source"] == {
            "kind": "review_comment",
            "rest_id": comment["id"],
            "node_id": comment["node_id"],
            "html_url": comment["html_url"],
            "author": comment["user"]["login"],
        }
    [copilot] = [m for m in members(report) if m["bot"] == "copilot"]
    assert copilot["suggestion"] == "        attempts = 0"
    [cursor] = [m for m in members(report) if m["bot"] == "cursor"]
    assert cursor["evidence"]["line"] == 57
    assert cursor["related"] == [{"file": "src/shop/stock.py", "line": 12, "end_line": 14}]
