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
    """CodeRabbit reviewed an earlier commit; Claude spoke before the latest push; Greptile
    is installed (it reviewed an earlier pull request) but has not spoken here."""
    fake = new_fake()
    fake.page_cap = 2
    fake.add_other_pull(5, commenters=["alice"], reviewers=["greptile-apps[bot]"])
    fake.add_other_pull(6, commenters=["bob"])
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


def test_a_bot_never_heard_from_in_the_repository_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cursor has no comment or review on this or any recent pull request: not installed."""
    fake, time = waiting_scene(monkeypatch)
    time.at(40, lambda: add_bot_review(fake, CODERABBIT))
    argv = ["--wait-for", "cursor,coderabbit", "--wait-timeout", "300", "--bots", "3", *TARGET]
    status, report = review_json(tmp_path, *argv)
    assert status == 0
    assert time.slept == [30, 30]  # only CodeRabbit is waited for, until it reviews the head
    assert report["awaited"] == {
        "bots": ["cursor", "coderabbit"],
        "skipped": [],
        "missing": ["cursor"],
        "waited_seconds": 60.0,
    }
    assert (
        "Not reported when this review was made** (after waiting 60 s): cursor."
        in (report["summary_markdown"])
    )
    err = capsys.readouterr().err
    assert (
        "quorum: warning: not waiting for cursor: no comment or review on this pull request "
        "or the repository's 30 most recently updated ones (not installed?)"
    ) in err
    assert "gave up waiting" not in err
    [query] = [d for d in fake.graphql.state.documents if "RecentAuthors" in d]
    assert "pullRequests(first: 30" in query


def test_a_bot_that_spoke_only_on_this_pull_request_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude spoke here before the latest push, on no other pull request: it is installed."""
    _, time = waiting_scene(monkeypatch)
    argv = ["--wait-for", "claude", "--wait-timeout", "90", "--bots", "3", *TARGET]
    status, report = review_json(tmp_path, *argv)
    assert (status, time.slept) == (0, [30, 30, 30])
    assert report["awaited"]["missing"] == ["claude"]


def test_when_no_awaited_bot_is_installed_nothing_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, time = waiting_scene(monkeypatch)
    status, report = review_json(tmp_path, "--wait-for", "cursor,qodo", "--bots", "3", *TARGET)
    assert (status, time.slept) == (0, [])
    assert report["awaited"]["missing"] == ["cursor", "qodo"]
    assert report["awaited"]["waited_seconds"] == 0.0


def test_no_finding_and_every_awaited_bot_missing_is_a_normal_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nobody reported and nothing was found: the review says so (no "--bots" error, which
    the user never gave)."""
    fake = new_fake()
    fake.add_other_pull(5, commenters=["alice"], reviewers=["greptile-apps[bot]"])
    connect(fake, monkeypatch)
    argv = ["--wait-for", "greptile", "--wait-timeout", "0", *TARGET]
    status, report = review_json(tmp_path, *argv)
    err = capsys.readouterr().err
    assert status == 0, err
    assert "--bots" not in err
    assert report["findings"] == []
    assert report["awaited"]["missing"] == ["greptile"]
    assert "greptile" in report["summary_markdown"]
