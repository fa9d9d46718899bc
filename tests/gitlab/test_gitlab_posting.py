"""`quorum review --gitlab --reporter gitlab-mr` over HTTP against the GitLab stand-in:
ten bots' findings posted as diff discussions, a re-run that adds nothing, a push that
moves lines (GitLab traces some threads, quorum re-anchors the rest), fixed findings'
threads resolved, the gate as a commit status, and the dry run's printed requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitlab.fake import FakeGitLab, diff_text
from gitlab.gitlab_support import (
    BOT_NOTES,
    CHANGED,
    HEAD,
    MR,
    PATH,
    QUORUM,
    over_http,
    seed_bot_discussions,
)
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers

PUSHED = "d" * 40
# Every finding inline: one bot is enough, and no two findings share a cluster.
POST = [
    "review", "--gitlab", *MR, "--reporter", "gitlab-mr", "--resolve-fixed",
    "--inline-level", "unverified", "--threshold", "30", "--cap", "50", "--line-window", "0",
    "--gate-level", "unverified",
]  # fmt: skip


def ours(fake: FakeGitLab) -> list[dict[str, Any]]:
    return [d for d in fake.threads_by(QUORUM) if not d["individual_note"]]


def fingerprints(fake: FakeGitLab) -> list[str]:
    return sorted(
        payload
        for d in ours(fake)
        for kind, payload in find_markers(d["notes"][0]["body"])
        if kind == "finding"
    )


def lines(fake: FakeGitLab) -> list[int]:
    return sorted(d["notes"][0]["position"]["new_line"] for d in ours(fake))


def stickies(fake: FakeGitLab) -> list[dict[str, Any]]:
    return [d for d in fake.threads_by(QUORUM) if d["individual_note"]]


def test_post_rerun_push_and_resolve_end_to_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_discussions(fake)
        assert main(POST) == 1  # findings at every level: the gate fails
        first = capsys.readouterr().err
        assert lines(fake) == sorted(line for _, _, line, _ in BOT_NOTES)
        assert len(stickies(fake)) == 1
        [status] = fake.statuses
        assert (status["sha"], status["name"], status["status"]) == (
            HEAD,
            "review-quorum",
            "failed",
        )

        writes = len(fake.writes())
        assert main(POST) == 1
        again = capsys.readouterr().err
        assert len(ours(fake)) == len(BOT_NOTES) and len(stickies(fake)) == 1
        # the sticky note updated in place and the status set again: nothing created
        assert [m for m, _, _ in fake.writes()[writes:]] == ["PUT", "POST"]
        assert "posted 0 new diff discussion(s), 10 already there" in again

        # A push inserts three lines at the top and rewrites line 12: GitLab traces every
        # note but those on line 12; CodeRabbit reports its finding again on the new line
        # 41 (deleting its old note), and cubic's finding (line 30) is fixed.
        changed = {line + 3 for line in range(10, 31)} | {41}
        fake.push(
            PUSHED, {PATH: diff_text({}, changed, 45)}, lambda p, n: None if n == 12 else n + 3
        )
        coderabbit, cubic = BOT_NOTES[0], BOT_NOTES[9]
        fake.discussions = [
            d for d in fake.discussions
            if d["notes"][0]["author"]["username"] not in (coderabbit[1], cubic[1])
        ]  # fmt: skip
        fake.add_note(coderabbit[1], coderabbit[3], position=fake.position(PATH, 41))
        before = fingerprints(fake)
        assert main(POST) == 1
        moved = capsys.readouterr().err
        assert errors == []
    # Without a diff the identities follow line numbers: GitLab's traced threads are
    # found again on their new lines (not duplicated). Line 12 was rewritten, so
    # CodeRabbit's finding on line 41 is another finding and its old thread is fixed;
    # cubic did not report on the new head, so its thread stays open, "not re-checked".
    live = [d for d in ours(fake) if not d["notes"][0]["resolved"]]
    assert sorted(d["notes"][0]["position"]["new_line"] for d in live) == [
        line + 3 for _, _, line, _ in BOT_NOTES[1:]
    ] + [41]
    assert all(d["notes"][0]["position"]["head_sha"] == PUSHED for d in live)
    [fixed] = [d for d in ours(fake) if d["notes"][0]["resolved"]]
    assert "review-quorum no longer reports this finding" in fixed["notes"][0]["body"]
    assert "coderabbit" in fixed["notes"][0]["body"]
    [cubic_thread] = [d for d in live if d["notes"][0]["position"]["new_line"] == 33]
    assert (
        f"not re-checked on {PUSHED[:12]}: cubic did not report"
        in (cubic_thread["notes"][0]["body"])
    )
    assert len(fingerprints(fake)) == len(before) + 1  # one new thread, none duplicated
    assert "1 resolved as fixed" in moved and "1 kept open (not re-checked" in moved
    assert first.count("GitLab") == 1  # "reading ... from GitLab", no retry, no warning
    assert [s["sha"] for s in fake.statuses] == [HEAD, PUSHED]


def save_plan(fake: FakeGitLab, plan: Path) -> None:
    """The ten bots' findings planned (nothing posted) and saved as JSON."""
    seed_bot_discussions(fake)
    planning = [a for a in POST if a not in ("--reporter", "gitlab-mr", "--resolve-fixed")]
    assert main([*planning, "--format", "json", "-o", str(plan)]) == 1


def test_a_saved_plan_is_posted_with_quorum_post(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    with over_http(monkeypatch) as (fake, errors):
        save_plan(fake, plan)
        assert fake.writes() == []
        monkeypatch.setenv("CI_PROJECT_URL", "https://gitlab.example.com/acme/stockroom")
        argv = ["post", str(plan), "--reporter", "gitlab-mr", *MR]
        assert main(argv) == 0
        assert main(argv) == 0
        assert errors == []
    assert lines(fake) == sorted(line for _, _, line, _ in BOT_NOTES)
    assert len(stickies(fake)) == 1
    assert "posted 0 new diff discussion(s), 10 already there" in capsys.readouterr().err


def test_a_saved_plan_linking_elsewhere_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    with over_http(monkeypatch) as (fake, errors):
        save_plan(fake, plan)
        monkeypatch.setenv("CI_PROJECT_URL", "https://gitlab.example.com/someone/else")
        assert main(["post", str(plan), "--reporter", "gitlab-mr", *MR]) == 2
        assert errors == [] and fake.writes() == []
    assert "not a comment on https://gitlab.example.com/someone/else/-/merge_requests/7" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize("edited", [False, True])
def test_a_finding_its_bot_no_longer_reports_is_fixed_only_when_its_line_changed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], edited: bool
) -> None:
    """CodeRabbit reviews the push and drops its second finding (line 27): the thread is
    resolved when the push rewrote that line, else it stays open with a note."""
    coderabbit = BOT_NOTES[0]
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_discussions(fake)
        second = (
            "_⚠️ Potential issue_ | _🟠 Major_\n\n**The refund skips the audit log**\n\nNo entry."
        )
        fake.add_note(coderabbit[1], second, position=fake.position(PATH, 27))
        assert main(POST) == 1
        fake.discussions = [d for d in fake.discussions if d["notes"][0]["body"] != second]
        fake.push(
            PUSHED,
            {PATH: diff_text({}, CHANGED, 40)},
            lambda p, n: None if edited and n == 27 else n,
        )
        capsys.readouterr()
        assert main(POST) == 1
        err = capsys.readouterr().err
        assert errors == []
    [thread] = [d for d in ours(fake) if "refund skips the audit log" in d["notes"][0]["body"]]
    assert thread["notes"][0]["resolved"] is edited
    assert ("1 resolved as fixed" in err) is edited
    if not edited:
        assert "no longer reported, but its lines did not change" in thread["notes"][0]["body"]


def test_a_finding_text_never_starts_a_line_with_a_quick_action(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    findings = tmp_path / "findings.json"
    record = {
        "bot": "scanner",
        "finding_id": "s-1",
        "severity": "high",
        "category": "security",
        "title": "Token logged\n/merge\n/approve",
        "evidence": {"file": PATH, "line": 12},
    }
    findings.write_text(json.dumps([record]), encoding="utf-8")
    with over_http(monkeypatch) as (fake, errors):
        assert main([*POST, str(findings), "--gate-level", "none"]) == 0
    assert errors == []
    bodies = [note["body"] for thread in fake.threads_by(QUORUM) for note in thread["notes"]]
    assert any("merge" in body for body in bodies)
    for body in bodies:
        assert not [line for line in body.splitlines() if line.lstrip().startswith("/")]
