"""`quorum review --github`: the pull request's comments, read page by page through the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from github.github_reading import TARGET, connect, members, placed, review_json
from github.github_support import TOKEN, new_fake
from github.pull_scene import NOTES, populate
from review_quorum.cli import main

FIVE_BOTS = NOTES[:5]  # five bots are enough for paging, faults and errors
PAGES = 3


def scene(monkeypatch: pytest.MonkeyPatch, **options: object):  # type: ignore[no-untyped-def]
    fake = new_fake(**options)
    fake.page_cap = PAGES
    populate(fake, FIVE_BOTS)
    connect(fake, monkeypatch)
    return fake


def test_the_bots_findings_are_read_from_every_page_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = scene(monkeypatch)
    status, report = review_json(tmp_path, "--github", *TARGET)
    assert status == 0, capsys.readouterr().err
    assert placed(report) == [
        ("coderabbit", "src/shop/cart.py", 14),
        ("copilot", "src/shop/payment.py", 40),
        ("gemini", "src/shop/tax.py", 9),
        ("github-advanced-security", "src/shop/search.py", 31),
        ("sourcery", "src/shop/refunds.py", 22),
    ]
    pages = {path: 0 for _, path, _ in fake.log}
    for _, path, _ in fake.log:
        pages[path] += 1
    pull = "/repos/octo-org/widgets"
    assert pages == {
        f"{pull}/pulls/7": 1,
        f"{pull}/pulls/7/comments": -(-len(fake.review_comments) // PAGES),
        f"{pull}/pulls/7/reviews": -(-len(fake.reviews) // PAGES),
        f"{pull}/issues/7/comments": -(-len(fake.issue_comments) // PAGES),
    }
    assert min(pages.values()) >= 1 and max(pages.values()) >= 3
    assert all(method == "GET" for method, _, _ in fake.log)  # reading never writes
    reasons = {skipped["reason"] for skipped in report["skipped"]}
    assert "reply in a review thread, not a new finding" in reasons
    assert report["awaited"] is None
    # The review is about the head commit it read.
    assert report["github_review"]["commit_id"] == fake.head_sha


def test_files_given_are_reviewed_together_with_the_pull_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene(monkeypatch)
    status, report = review_json(
        tmp_path, str(FIXTURES / "review.findings.json"), "--github", *TARGET
    )
    bots = [member["bot"] for member in members(report)]
    assert {"bandit", "semgrep", "coderabbit", "copilot"} <= set(bots)
    assert status in (0, 1) and report["input_findings"] == 5 + len(FIVE_BOTS)


def test_a_pull_request_no_bot_has_commented_on_is_an_empty_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = new_fake()
    fake.add_issue_comment("alice", "Ready for review.")
    connect(fake, monkeypatch)
    assert main(["review", "--github", *TARGET]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!-- review-quorum:summary -->\n## Review assessment: 🟢 APPROVE")
    assert "No findings." not in out or "1** input record skipped" in out
    fake.issue_comments.clear()
    status, report = review_json(tmp_path, "--github", *TARGET)
    assert (status, report["findings"], report["skipped"]) == (0, [], [])


def test_the_pull_request_comes_from_the_actions_event_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = scene(monkeypatch)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "f" * 40}}}))
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo-org/widgets")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    status, report = review_json(tmp_path, "--github")
    assert status == 0 and len(members(report)) == len(FIVE_BOTS)
    # GitHub's answer wins over a stale event: the head may have moved since it fired.
    assert report["github_review"]["commit_id"] == fake.head_sha


def test_an_enterprise_api_url_is_used_for_rest_and_graphql(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = scene(monkeypatch, api_url="http://127.0.0.1:8443/api/v3")
    assert fake.graphql_url == "http://127.0.0.1:8443/api/graphql"
    status, report = review_json(tmp_path, "--github", "--wait-for", "coderabbit", *TARGET)
    assert status == 0 and report["awaited"]["missing"] == []
    assert ("QUERY", "CommitDate", 200) in fake.log


def test_rate_limits_and_server_errors_are_waited_out_as_when_posting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = scene(monkeypatch)
    time = connect(fake, monkeypatch)
    limited = {"message": "You have exceeded a secondary rate limit."}
    fake.fail("pulls/list-review-comments", 403, body=limited, headers={"Retry-After": "7"})
    fake.fail("pulls/list-reviews", 502, skip=1)  # the second page fails once
    reset = str(int(time.now) + 20)
    exhausted = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    fake.fail("issues/list-comments", 403, body={"message": "API rate limit"}, headers=exhausted)
    status, report = review_json(tmp_path, "--github", *TARGET)
    assert status == 0 and len(members(report)) == len(FIVE_BOTS)
    # Retry-After 7 s; 1 s before retrying a 5xx; the primary limit's reset (20 s after the
    # start, 8 s of which were spent) plus a second.
    assert time.slept == [7.0, 1.0, 13.0]


@pytest.mark.parametrize(
    "headers",
    [{"Retry-After": "9" * 400}, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "9" * 400}],
    ids=["retry-after", "x-ratelimit-reset"],
)
def test_a_wait_no_clock_can_hold_is_backed_off_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, headers: dict[str, str]
) -> None:
    fake = scene(monkeypatch)
    time = connect(fake, monkeypatch)
    fake.fail("pulls/list-review-comments", 429, body={"message": "slow down"}, headers=headers)
    status, report = review_json(tmp_path, "--github", *TARGET)
    assert status == 0 and len(members(report)) == len(FIVE_BOTS)
    assert time.slept == [60.0]  # the rate limit's own back-off, as with no usable header


@pytest.mark.parametrize(
    ("token", "args", "message"),
    [
        (
            "ghp_wrongtoken0123456789abcdefghijklmnopq",
            TARGET,
            "GitHub API GET https://api.github.com/repos/octo-org/widgets/pulls/7 "
            "returned 401: Bad credentials",
        ),
        (TOKEN, ["--repo", "octo-org/widgets", "--pr", "8"], "returned 404: Not Found"),
        ("", TARGET, "--github reads the pull request through the GitHub API: set GITHUB_TOKEN"),
        (TOKEN, ["--wait-for", " , ", *TARGET], "--wait-for: expected bot names"),
        (TOKEN, [], "--github: reading needs the pull request: pass --repo OWNER/NAME --pr N"),
    ],
)
def test_failures_are_one_clear_line_that_never_shows_the_token(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str,
    args: list[str],
    message: str,
) -> None:
    scene(monkeypatch)
    monkeypatch.setenv("GITHUB_TOKEN", token)
    assert main(["review", "--github", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    *stages, error = err.splitlines()  # the stage line, when GitHub was asked at all
    assert error.startswith("quorum: error: ") and message in error
    assert [line.split("#")[0] for line in stages] in ([], ["quorum: reading octo-org/widgets"])
    assert not token or token not in err
