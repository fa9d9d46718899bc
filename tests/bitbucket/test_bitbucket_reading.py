"""`quorum review --bitbucket` reads a pull request's comments page by page over HTTP from
the stand-in: the ten bots' findings, people and deleted comments left out, our own
marked comments never read, the target named by the pipeline's variables, the token
required and app passwords accepted."""

from __future__ import annotations

import orjson
import pytest

from bitbucket.bitbucket_support import PATH, PULL, QUORUM, over_http, seed_bot_comments
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.markup.markers import marker

READ = ["review", "--bitbucket", "--format", "json", "--gate-level", "none"]


def findings(out: str) -> list[tuple[str, str, int]]:
    report = orjson.loads(out)
    return sorted(
        (member["bot"], member["evidence"]["file"], member["evidence"]["line"])
        for item in report["findings"]
        for member in item["members"]
    )


def test_reads_every_bot_page_by_page_and_no_person(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        fake.page_cap = 4
        assert main([*READ, *PULL]) == 0
    assert errors == []
    assert findings(capsys.readouterr().out) == sorted(
        (bot, PATH, line) for bot, _, line, _ in BOT_NOTES
    )
    pages = [entry for entry in fake.log if entry[1].endswith("/comments")]
    assert len(pages) == 4  # 13 comments, 4 a page


def test_the_pipeline_variables_and_an_app_password_name_the_pull_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        fake.add_account(("quorum-bot", "app-password-123"), "quorum-bot")
        monkeypatch.delenv("BITBUCKET_TOKEN")
        monkeypatch.setenv("BITBUCKET_USERNAME", "quorum-bot")
        monkeypatch.setenv("BITBUCKET_APP_PASSWORD", "app-password-123")
        monkeypatch.setenv("BITBUCKET_WORKSPACE", "acme")
        monkeypatch.setenv("BITBUCKET_REPO_SLUG", "stockroom")
        monkeypatch.setenv("BITBUCKET_PR_ID", "7")
        assert main(READ) == 0
    assert errors == []
    assert len(findings(capsys.readouterr().out)) == len(BOT_NOTES)


def test_without_credentials_the_error_says_which_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, _):
        monkeypatch.delenv("BITBUCKET_TOKEN")
        assert main([*READ, *PULL]) == 2
        monkeypatch.setenv("BITBUCKET_USERNAME", "quorum-bot")
        assert main([*READ, *PULL]) == 2
    err = capsys.readouterr().err
    assert "BITBUCKET_TOKEN is not set" in err and "repository access token" in err
    assert "BITBUCKET_USERNAME is set but BITBUCKET_APP_PASSWORD is not" in err
    assert "Traceback" not in err and fake.log == []


def test_our_own_marked_comment_is_never_read_but_a_quoted_marker_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        ours = f"{marker('finding', 'abc123')}\n{BOT_NOTES[0][3]}"
        fake.add_comment(QUORUM, ours, path=PATH, line=12)
        quoted = f"{BOT_NOTES[0][3]}\n\n{marker('finding', 'abc123')}"
        fake.add_comment("coderabbitai", quoted, path=PATH, line=14)
        assert main([*READ, *PULL]) == 0
    assert errors == []
    assert [line for _, _, line in findings(capsys.readouterr().out)] == [14]


def test_rate_limits_and_server_errors_are_retried_visibly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        fake.fail("comments/list", 429, headers={"Retry-After": "7"})
        fake.fail("pr/get", 502)
        assert main([*READ, *PULL]) == 0
    assert errors == []
    err = capsys.readouterr().err
    assert "returned 429" in err and "retrying in 7s" in err
    assert "returned 502" in err
    assert fake.time.slept[:1] == [1.0] and 7.0 in fake.time.slept
