"""Tokens, faults and dry runs of `--reporter azure-devops-pr` against the stand-in: which
token is needed, the build service's token as Bearer, 429 and 5xx retried with progress, a
lost answer never duplicating a thread, `--dry-run` printing the requests (with and without
a token), and a read-only token found out before anything is posted."""

from __future__ import annotations

import base64

import pytest

from azure_devops.ado_support import QUORUM, TOKEN, over_http, seed_bot_threads
from azure_devops.test_ado_posting import POST, ours, summaries
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main

DRY = [a for a in POST if a != "--resolve-fixed"] + ["--dry-run"]


def test_without_a_token_the_error_says_which_token_and_nothing_is_sent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, _):
        monkeypatch.delenv("AZURE_DEVOPS_TOKEN")
        assert main(POST) == 2
    err = capsys.readouterr().err
    assert "no Azure DevOps token (AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN)" in err
    assert "Contribute to pull requests" in err and "Traceback" not in err
    assert fake.log == []


def test_the_build_service_token_is_sent_as_bearer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        fake.add_identity("system-access-token-0123456789", "Stock Room Build Service (contoso)",
                          service=True, bearer=True)  # fmt: skip
        seed_bot_threads(fake)
        monkeypatch.delenv("AZURE_DEVOPS_TOKEN")
        monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "system-access-token-0123456789")
        assert main(POST) == 1
        assert errors == []
    assert len(fake.threads_by("Stock Room Build Service (contoso)")) == len(BOT_NOTES) + 1


def test_rate_limits_and_server_errors_are_retried_with_progress(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        fake.fail("threads/list", 503)
        fake.fail("threads/create", 429, headers={"Retry-After": "9"}, skip=2)
        assert main(POST) == 1
        assert errors == []
    err = capsys.readouterr().err
    assert "returned 503" in err and "retrying in 1s (2 of 6)" in err
    assert "returned 429" in err and "retrying in 9s" in err
    assert 9.0 in fake.time.slept
    assert len(ours(fake)) == len(BOT_NOTES)


def test_a_lost_answer_to_a_create_never_duplicates_the_thread(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        fake.fail("threads/create", 502, apply=True)  # the summary: applied, answer lost
        fake.fail("threads/create", 500, apply=True, skip=3)  # a finding's thread too
        assert main(POST) == 1
        assert errors == []
    assert len(summaries(fake)) == 1
    assert len(ours(fake)) == len(BOT_NOTES)


def test_a_read_only_token_is_found_out_before_anything_is_posted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        fake.read_only.add("Basic " + base64.b64encode(f":{TOKEN}".encode()).decode())
        assert main(POST) == 2
        assert errors == []
    err = capsys.readouterr().err
    assert "returned 403" in err and "may not comment on contoso/Stock Room/stockroom!7" in err
    assert fake.writes() == [("POST", fake.writes()[0][1], 403)]
    assert fake.threads_by(QUORUM) == []


def test_dry_run_prints_the_requests_and_sends_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        assert main(DRY) == 1
        assert errors == []
    out, err = capsys.readouterr()
    assert fake.writes() == []
    assert out.count("POST http://127.0.0.1") == len(BOT_NOTES) + 2  # threads, summary, status
    assert '"threadContext"' in out and '"status": "active"' in out
    basic = base64.b64encode(f":{TOKEN}".encode()).decode()
    assert "[REDACTED]" in out and TOKEN not in out and basic not in out
    assert "would post 10 new thread(s)" in err


def test_dry_run_without_a_token_reads_nothing_and_shows_a_first_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        monkeypatch.delenv("AZURE_DEVOPS_TOKEN")
        argv = [a for a in DRY if a != "--azure-devops"]
        argv += ["--input-format", "native", "--allow-empty"]
        assert main(argv) == 0
        assert errors == [] and fake.log == []
    out, err = capsys.readouterr()
    assert "POST http://127.0.0.1" in out and "/pullRequests/7/threads?api-version=7.1" in out
    assert "no AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN: nothing was read" in err
