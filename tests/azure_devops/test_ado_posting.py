"""`quorum review --azure-devops --reporter azure-devops-pr` over HTTP against the stand-in:
ten bots' findings posted as threads on the latest iteration, a re-run that adds nothing,
a push that moves lines (Azure DevOps tracks some threads, quorum re-anchors the rest),
fixed findings' threads set to fixed (never one a person triaged), the gate as a pull
request status, a line off the diff listed in the summary, and `quorum post`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from azure_devops.ado_support import PATH, PULL, QUORUM, over_http, seed_bot_threads
from azure_devops.fake import FakeAzureDevOps
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers

PUSHED = "d" * 40
POST = [
    "review", "--azure-devops", *PULL, "--reporter", "azure-devops-pr", "--resolve-fixed",
    "--inline-level", "unverified", "--threshold", "30", "--cap", "50", "--line-window", "0",
    "--gate-level", "unverified",
]  # fmt: skip


def ours(fake: FakeAzureDevOps) -> list[dict[str, Any]]:
    return [t for t in fake.threads_by(QUORUM) if "threadContext" in t]


def summaries(fake: FakeAzureDevOps) -> list[dict[str, Any]]:
    return [t for t in fake.threads_by(QUORUM) if "threadContext" not in t]


def fingerprints(fake: FakeAzureDevOps) -> list[str]:
    return sorted(
        payload
        for t in ours(fake)
        for kind, payload in find_markers(t["comments"][0]["content"])
        if kind == "finding"
    )


def lines(threads: list[dict[str, Any]]) -> list[int]:
    return sorted(t["threadContext"]["rightFileEnd"]["line"] for t in threads)


def test_post_rerun_push_and_resolve_end_to_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        assert main(POST) == 1  # findings at every level: the gate fails
        first = capsys.readouterr().err
        assert errors == []
        assert lines(ours(fake)) == sorted(line for _, _, line, _ in BOT_NOTES)
        thread = ours(fake)[0]
        assert thread["status"] == "active"
        assert thread["threadContext"]["filePath"] == "/" + PATH
        assert thread["pullRequestThreadContext"] == {
            "changeTrackingId": 1,
            "iterationContext": {"firstComparingIteration": 1, "secondComparingIteration": 1},
        }
        assert len(summaries(fake)) == 1
        [status] = fake.statuses
        assert status["context"] == {"genre": "review-quorum", "name": "review-quorum"}
        assert (status["state"], status["iterationId"]) == ("failed", 1)
        assert "posted 10 new thread(s)" in first

        writes = len(fake.writes())
        assert main(POST) == 1
        again = capsys.readouterr().err
        assert len(ours(fake)) == len(BOT_NOTES) and len(summaries(fake)) == 1
        # the summary updated in place, the same status not sent again: nothing created
        assert [m for m, _, _ in fake.writes()[writes:]] == ["PATCH"]
        assert "posted 0 new thread(s), 10 already there" in again
        assert "pull request status failed (unchanged)" in again

        # A push inserts three lines at the top and rewrites line 12: Azure DevOps tracks
        # every thread but those on line 12; CodeRabbit reports its finding again on the
        # new line 41 (deleting its old thread), and cubic does not report (line 30).
        fake.push(PUSHED, {PATH: 45}, lambda p, n: None if n == 12 else n + 3)
        coderabbit, cubic = BOT_NOTES[0], BOT_NOTES[9]
        for t in fake.threads:
            if t["comments"][0]["author"]["displayName"] in (coderabbit[1], cubic[1]):
                t["isDeleted"] = True
        fake.add_thread(coderabbit[1], coderabbit[3], path=PATH, line=41)
        before = fingerprints(fake)
        assert main(POST) == 1
        pushed = capsys.readouterr().err
        assert errors == []
    live = [t for t in ours(fake) if t["status"] == "active"]
    assert lines(live) == sorted([line + 3 for _, _, line, _ in BOT_NOTES[1:]] + [41])
    # cubic did not report on the new head: its finding is not re-checked, not fixed
    [cubic_thread] = [t for t in live if t["threadContext"]["rightFileEnd"]["line"] == 33]
    note = cubic_thread["comments"][0]["content"]
    assert "not re-checked on dddddddddddd: cubic did not report" in note
    assert not [t for t in ours(fake) if t["status"] == "fixed"]
    # re-anchored (without the code a finding's identity follows its line, so each takes
    # its new one), none doubled
    assert len(fingerprints(fake)) == len(before)
    assert "1 re-anchored after a push" in pushed and "0 set to fixed" in pushed
    assert "1 kept open" in pushed
    new = [t for t in live if t["pullRequestThreadContext"]["iterationContext"][
        "secondComparingIteration"] == 2]  # fmt: skip
    assert lines(new) == [41]
    assert [(s["state"], s["iterationId"]) for s in fake.statuses] == [("failed", 1), ("failed", 2)]


def test_a_person_s_triage_and_replies_are_never_overridden(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        assert main(POST) == 1
        by_line = {t["threadContext"]["rightFileEnd"]["line"]: t for t in ours(fake)}
        by_line[12]["status"] = "wontFix"  # a person's triage
        fake.reply(by_line[14], "Dana Reviewer", "This is intended.")
        text = by_line[12]["comments"][0]["content"]
        for t in fake.threads:  # no bot reports any more (none ran on this head)
            if t["comments"][0]["author"]["displayName"] != QUORUM:
                t["isDeleted"] = True
        assert main(POST) == 0
        err = capsys.readouterr().err
        assert errors == []
    assert by_line[12]["status"] == "wontFix" and by_line[12]["comments"][0]["content"] == text
    assert by_line[14]["status"] == "active" and len(by_line[14]["comments"]) == 2
    # a bot that stops reporting resolves nothing: each other thread says it was not
    # re-checked, the triaged and the replied one are not even edited
    assert not [t for t in ours(fake) if t["status"] == "fixed"]
    notes = [t["comments"][0]["content"] for t in ours(fake) if t not in (by_line[12], by_line[14])]
    assert len(notes) == 8 and all("did not report._" in note for note in notes)
    assert "not re-checked" not in by_line[14]["comments"][0]["content"]
    assert "0 set to fixed" in err and "2 fixed but left alone" in err and "8 kept open" in err
    assert fake.statuses[-1]["state"] == "succeeded"


def test_a_finding_on_a_file_the_pull_request_does_not_change_goes_in_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        body = BOT_NOTES[0][3]
        fake.add_thread("coderabbitai", body, path="src/untouched.py", line=3)
        fake.add_thread("coderabbitai", body.replace("negative", "stale"), path=PATH, line=39)
        fake.files[1]["/" + PATH]["lines"] = 38  # line 39 is past the file: refused
        assert main(POST) == 1
        err = capsys.readouterr().err
        assert errors == []
    [summary] = summaries(fake)
    text = summary["comments"][0]["content"]
    assert "### Not placed on the diff" in text
    assert "`src/untouched.py` line 3" in text and f"`{PATH}` line 39" in text
    assert "2 listed in the summary" in err and "refused the anchor src/stock.py:39" in err
    assert len(ours(fake)) == len(BOT_NOTES)


def test_a_saved_plan_is_posted_with_quorum_post(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        planning = [a for a in POST if a not in ("--reporter", "azure-devops-pr")]
        assert main([*planning, "--format", "json", "-o", str(plan)]) == 1
        assert fake.writes() == []
        monkeypatch.setenv("SYSTEM_COLLECTIONURI", "https://dev.azure.com/contoso/")
        argv = ["post", str(plan), "--reporter", "azure-devops-pr", *PULL]
        assert main(argv) == 0
        assert main(argv) == 0
        assert errors == []
    assert lines(ours(fake)) == sorted(line for _, _, line, _ in BOT_NOTES)
    assert "posted 0 new thread(s), 10 already there" in capsys.readouterr().err


HOSTILE = (
    "_⚠️ Potential issue_ | _🟠 Major_\n\n**Count can go negative, see #123 and !45 "
    "<img src=x onerror=alert(1)> [docs](https://evil.example) @<0000-aaaa> @dana**\n\n"
    "Subtracting first lets the count drop below zero; ask @erin or #7."
)


def test_bot_text_is_inert_in_azure_devops_markdown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        fake.add_thread("coderabbitai", HOSTILE, path=PATH, line=12)
        assert main(POST) == 1
        assert errors == []
    [thread] = ours(fake)
    [summary] = summaries(fake)
    for text in (thread["comments"][0]["content"], summary["comments"][0]["content"]):
        assert "Count can go negative" in text
        for live in ("#123", "!45", "#7", "<img", "](https://evil", "@<0000", "@dana", "@erin"):
            assert live not in text, live


def test_a_saved_plan_naming_another_pull_requests_threads_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        planning = [a for a in POST if a not in ("--reporter", "azure-devops-pr")]
        assert main([*planning, "--format", "json", "-o", str(plan)]) == 1
        monkeypatch.setenv("SYSTEM_COLLECTIONURI", "https://dev.azure.com/contoso/")
        other = [*PULL[:-1], "8"]
        assert main(["post", str(plan), "--reporter", "azure-devops-pr", *other]) == 2
        assert errors == [] and fake.writes() == []
    assert (
        "not a comment on https://dev.azure.com/contoso/Stock%20Room/_git/stockroom/pullrequest/8"
        in (capsys.readouterr().err)
    )
