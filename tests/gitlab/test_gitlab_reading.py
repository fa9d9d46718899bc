"""`quorum review --gitlab` over HTTP against the GitLab stand-in: ten bots' discussions
read page by page, people and GitLab's own notes told apart, faults retried, --wait-for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitlab.gitlab_support import BOT_NOTES, MR, PATH, over_http, seed_bot_discussions
from review_quorum.cli import github_input, main


def review(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    output = tmp_path / "plan.json"
    status = main(["review", "--gitlab", *MR, *args, "--format", "json", "-o", str(output)])
    return status, json.loads(output.read_text()) if output.exists() else {}


def placed(report: dict[str, Any]) -> list[tuple[str, str, int]]:
    members = [m for finding in report["findings"] for m in finding["members"]]
    return sorted((m["bot"], m["evidence"]["file"], m["evidence"]["line"]) for m in members)


def test_ten_bots_discussions_are_read_page_by_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_discussions(fake)
        fake.page_cap = 4  # 12 discussions: three pages, followed through x-next-page
        status, report = review(tmp_path, "--gate-level", "none")
    assert errors == []
    assert status == 0
    assert placed(report) == sorted((bot, PATH, line) for bot, _, line, _ in BOT_NOTES)
    pages = [path for method, path, _ in fake.log if path.endswith("/discussions")]
    assert len(pages) == 3
    reasons = {item["reason"] for item in report["skipped"]}
    assert "comment by a human/unknown author" in reasons
    assert "reply in a review thread, not a new finding" in reasons
    assert "GitLab system note (activity log), not a comment" in reasons


def test_a_signature_in_a_persons_note_makes_no_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, line, body = BOT_NOTES[8]  # Codoki's signed body, pasted by a person
    with over_http(monkeypatch) as (fake, errors):
        fake.add_note("frank", body, position=fake.position(PATH, line))
        status, report = review(tmp_path)
    assert (errors, status, report["findings"]) == ([], 0, [])
    [skipped] = report["skipped"]
    assert skipped["reason"] == "comment by a human/unknown author"


def test_configured_logins_win_over_signatures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text('[bot-logins]\n"project_4242_bot_99aa11" = "inhouse"\n', encoding="utf-8")
    _, username, line, body = BOT_NOTES[8]
    with over_http(monkeypatch) as (fake, errors):
        fake.add_note(username, body, position=fake.position(PATH, line))
        status, report = review(tmp_path, "--config", str(config), "--gate-level", "none")
    assert (errors, status) == ([], 0)
    assert placed(report) == [("inhouse", PATH, line)]


def test_rate_limits_and_server_errors_are_retried_visibly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_discussions(fake)
        fake.fail("discussions/list", 429, headers={"Retry-After": "7"})
        fake.fail("merge_requests/get", 502)
        status, report = review(tmp_path, "--gate-level", "none")
    assert (errors, status, len(placed(report))) == ([], 0, len(BOT_NOTES))
    err = capsys.readouterr().err
    assert "returned 502" in err and "retrying in 1s (2 of 6)" in err
    assert "returned 429" in err and "retrying in 7s (2 of 6)" in err
    assert fake.time.slept == [1.0, 7.0]


def test_a_job_token_alone_is_refused_naming_the_token_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        monkeypatch.delenv("GITLAB_TOKEN")
        monkeypatch.setenv("CI_JOB_TOKEN", "job-token-value")
        status, _ = review(tmp_path)
    assert (errors, status, fake.log) == ([], 2, [])
    err = capsys.readouterr().err
    assert "a CI job token (CI_JOB_TOKEN) cannot read or write merge request notes" in err
    assert "create a project access token" in err and "GITLAB_TOKEN" in err


def test_wait_for_waits_until_the_bot_has_noted_the_head_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bot, username, line, body = BOT_NOTES[0]
    with over_http(monkeypatch) as (fake, errors):
        sleep = fake.time.sleep

        def later(seconds: float) -> None:  # CodeRabbit notes the diff during the first wait
            sleep(seconds)
            if not fake.threads_by(username):
                fake.add_note(username, body, position=fake.position(PATH, line))

        timing = github_input.Timing(clock=fake.time.clock, sleep=later, interval=30.0)
        monkeypatch.setattr(github_input, "TIMING", timing)
        status, report = review(tmp_path, "--wait-for", "coderabbit", "--gate-level", "none")
    assert (errors, status) == ([], 0)
    assert placed(report) == [(bot, PATH, line)]
    assert fake.time.slept == [30.0]
    assert "waiting for coderabbit (0s so far)" in capsys.readouterr().err


def test_github_and_gitlab_together_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        status, _ = review(tmp_path, "--github")
    assert (errors, status, fake.log) == ([], 2, [])
    assert "--github and --gitlab read two different services" in capsys.readouterr().err
