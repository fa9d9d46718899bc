"""`quorum review --wait-for`: polling the fake until the named bots report, or giving up."""

from __future__ import annotations

from pathlib import Path

import pytest

from github.fake import FakeGitHub
from github.github_reading import TARGET, Timeline, connect, placed, review_json
from github.github_support import new_fake
from github.pull_scene import NOTES, add_bot_review
from review_quorum.cli import main

CODERABBIT = NOTES[0]
OLD = "e" * 40


def waiting_scene(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeGitHub, Timeline]:
    """CodeRabbit reviewed an earlier commit; Claude spoke before the latest push."""
    fake = new_fake()
    fake.page_cap = 2
    add_bot_review(fake, CODERABBIT, commit=OLD)
    fake.add_issue_comment("claude[bot]", "Looked at the first commit: nothing to add.")
    fake.head_committed_at = fake._now()  # the head commit came after all of that
    fake.add_issue_comment("alice", "Pushed a fix for the totals.")
    return fake, connect(fake, monkeypatch)


def test_the_wait_ends_when_the_last_bot_reports_on_the_head_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, time = waiting_scene(monkeypatch)
    time.at(45, lambda: add_bot_review(fake, CODERABBIT))
    time.at(100, lambda: fake.add_issue_comment("claude[bot]", "One problem in the totals."))
    status, report = review_json(tmp_path, "--wait-for", "coderabbit,claude[bot]", *TARGET)
    assert status == 0
    assert time.slept == [30, 30, 30, 30]  # readings at 0, 30, 60, 90 and 120 s
    assert report["awaited"] == {
        "bots": ["coderabbit", "claude"],
        "skipped": [],
        "missing": [],
        "waited_seconds": 120.0,
    }
    # Both CodeRabbit reviews are read: the old commit's finding and the head's.
    assert placed(report) == [("coderabbit", "src/shop/cart.py", 14)] * 2
    assert "All 2 awaited bots reported." in report["summary_markdown"]
    assert capsys.readouterr().err.splitlines()[:5] == [
        "quorum: reading octo-org/widgets#7 from GitHub ...",
        "quorum: waiting for coderabbit, claude (0s so far)",
        "quorum: waiting for coderabbit, claude (30s so far)",
        "quorum: waiting for claude (60s so far)",
        "quorum: waiting for claude (90s so far)",
    ]
    assert report["bots_ran"] == 2  # both bots waited for count, with findings or not


def test_a_bot_that_never_reports_ends_the_wait_at_the_timeout_and_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, time = waiting_scene(monkeypatch)
    time.at(10, lambda: add_bot_review(fake, CODERABBIT))
    argv = ["review", "--wait-for", "coderabbit,greptile", "--wait-timeout", "150", *TARGET]
    argv += ["--bots", "3"]
    assert main(argv) == 0  # a timeout is not an error: the review says who is missing
    out, err = capsys.readouterr()
    assert time.slept == [30, 30, 30, 30, 30]
    assert (
        "⏳ **Not reported when this review was made** (after waiting 2 min): greptile. "
        "Their findings are not in this review.\n"
    ) in out
    assert "quorum: warning: gave up waiting after 150s; not reported: greptile" in err


def test_the_default_timeout_is_ten_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, time = waiting_scene(monkeypatch)
    status, report = review_json(tmp_path, "--wait-for", "greptile", "--bots", "3", *TARGET)
    assert status == 0 and report["awaited"]["missing"] == ["greptile"]
    assert sum(time.slept) == 600 and len(time.slept) == 20


def test_a_bot_that_said_it_skipped_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, time = waiting_scene(monkeypatch)
    fake.add_issue_comment(
        "coderabbitai[bot]", "> [!IMPORTANT]\n> ## Review skipped\n>\n> Too many files changed."
    )
    status, report = review_json(tmp_path, "--wait-for", "coderabbit", "--bots", "3", *TARGET)
    assert (status, time.slept) == (0, [])
    assert report["awaited"]["skipped"] == ["coderabbit"]
    assert "Said they skipped this pull request: coderabbit." in report["summary_markdown"]


def test_bot_names_in_the_summary_are_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waiting_scene(monkeypatch)
    status, report = review_json(
        tmp_path, "--wait-for", "<img src=x>", "--wait-timeout", "0", "--bots", "3", *TARGET
    )
    assert status == 0
    assert "<img" not in report["summary_markdown"]
    assert "&lt;img src=x>." in report["summary_markdown"]
