"""`quorum post` end to end: dry runs, real runs against the fake, errors, event choice."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
from pathlib import Path

import pytest
from msgspec.structs import replace

from github.github_support import BOT, TOKEN, agreed_findings, posting_fake, saved_plan
from review_quorum.cli import main, post, posting
from review_quorum.model import ConsensusLevel, NormalizedFinding
from review_quorum.plan import ReviewPlan, Settings, assemble, review
from review_quorum.scoring.confidence import Disposition

ACTIONS_VARIABLES = [
    "GITHUB_TOKEN",
    "GITHUB_API_URL",
    "GITHUB_ACTIONS",
    "GITHUB_REPOSITORY",
    "GITHUB_EVENT_PATH",
]
TARGET_ARGS = ["--repo", "octo-org/widgets", "--pr", "7"]
API = "https://api.github.com/repos/octo-org/widgets"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ACTIONS_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def write_plan(tmp_path: Path, places: list[tuple[str, int, str]]) -> str:
    """A plan file as `quorum review --format json` writes it for these findings."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(saved_plan(places)), encoding="utf-8")
    return str(path)


def test_an_offline_dry_run_prints_the_exact_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = write_plan(tmp_path, [("src/app.py", 12, "SQL built from request input")])
    document = json.loads(Path(plan).read_text(encoding="utf-8"))
    assert main(["post", plan, *TARGET_ARGS, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    version = importlib.metadata.version("review-quorum")
    headers = (
        "Host: api.github.com\nAccept-Encoding: gzip, deflate\nConnection: keep-alive\n"
        f"User-Agent: review-quorum/{version}\nAccept: application/vnd.github+json\n"
        "X-GitHub-Api-Version: 2022-11-28\nContent-Type: application/json\n"
    )
    summary_head, summary, review_head, review, end = out.split("\n\n")
    assert re.fullmatch(
        re.escape(f"POST {API}/issues/7/comments\n{headers}") + r"Content-Length: \d+", summary_head
    )
    # The plan is a proposal: the summary says what the posting run kept of it.
    kept = (
        "Posted from a saved plan, taken as a proposal: the bots' findings are read again "
        "from their 0 comment(s) on this pull request; from the plan, this run kept 2 "
        "analyser finding(s) (bandit, semgrep: the pull request's own analysers, not "
        "checked) and nothing else.\n\n"
    )
    head, inline, rest = document["summary_markdown"].partition("**1** posted inline\n\n")
    assert json.loads(summary) == {"body": head + inline + kept + rest}
    assert re.fullmatch(
        re.escape(f"POST {API}/pulls/7/reviews\n{headers}") + r"Content-Length: \d+", review_head
    )
    posted = json.loads(review)
    expected = document["github_review"]
    head, inline, rest = expected["body"].partition("**1** posted inline\n\n")
    assert posted["body"].startswith(
        (head + inline + kept + rest).rstrip("\n") + "\n\n<!-- review-quorum:batch "
    )
    assert (posted["comments"], posted["event"], end) == (expected["comments"], "COMMENT", "")
    assert err == (
        "quorum: warning: no GITHUB_TOKEN: nothing was read, so this shows a first run\n"
        "quorum: octo-org/widgets#7: would post 1 new inline comment(s) in 1 review(s), "
        "0 already there, 0 moved to the review body, 0 refreshed, 0 marked fixed; "
        "summary comment created\n"
    )


def test_posting_twice_reports_what_each_run_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = posting_fake(monkeypatch)
    plan = write_plan(tmp_path, [("src/app.py", 12, "SQL injection"), ("src/app.py", 30, "XSS")])
    assert main(["post", plan, *TARGET_ARGS]) == 0
    assert main(["post", plan, *TARGET_ARGS, "--resolve-fixed"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "quorum: posting to octo-org/widgets#7 ...",
        "quorum: octo-org/widgets#7: posted 2 new inline comment(s) in 1 review(s), "
        "0 already there, 0 moved to the review body, 0 refreshed, 0 marked fixed; "
        "summary comment created",
        "quorum: posting to octo-org/widgets#7 ...",
        "quorum: octo-org/widgets#7: posted 0 new inline comment(s) in 0 review(s), "
        "2 already there, 0 moved to the review body, 0 refreshed, 0 marked fixed; "
        "summary comment updated",
    ]
    assert len(fake.comments_by(BOT)) == 2
    assert TOKEN not in out + err


def test_a_dry_run_with_a_token_redacts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = posting_fake(monkeypatch)
    plan = write_plan(tmp_path, [("src/app.py", 12, "SQL injection")])
    assert main(["post", plan, *TARGET_ARGS, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert out.count("Authorization: Bearer [REDACTED]\n") == 2
    assert TOKEN not in out + err
    # The user, the pull request's head (the plan's commit is never taken), three lists.
    assert [method for method, _, _ in fake.log] == ["GET", "GET", "GET", "GET", "GET"]


def test_request_changes_on_a_level_the_plan_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = posting_fake(monkeypatch)
    plan = write_plan(tmp_path, [("src/app.py", 12, "SQL injection")])
    assert main(["post", plan, *TARGET_ARGS, "--request-changes-on", "needs-verification"]) == 0
    assert [r["state"] for r in fake.submitted_reviews_by(BOT)] == ["CHANGES_REQUESTED"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["post", "{plan}"],
            "quorum: error: no pull request to post to: pass --repo OWNER/NAME --pr N, "
            "or run in a GitHub Actions pull_request workflow",
        ),
        (
            ["post", "{plan}", *TARGET_ARGS],
            "quorum: error: GITHUB_TOKEN is not set: posting needs a token (or use --dry-run)",
        ),
        (
            ["post", "{bad}", *TARGET_ARGS],
            "quorum: error: {bad}:line 1 column 2: "
            "invalid JSON: unexpected character, expected a string key",
        ),
        (["post", "{missing}", *TARGET_ARGS], "quorum: error: {missing}: no such file"),
        (["post", "{plan}", "--repo", "octo-org/widgets", "--pr", "0"], None),
        (["post", "{plan}", *TARGET_ARGS, "--request-changes-on", "high"], None),
    ],
)
def test_usage_and_input_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str | None
) -> None:
    names = {
        "plan": write_plan(tmp_path, []),
        "bad": str(tmp_path / "bad.json"),
        "missing": str(tmp_path / "missing.json"),
    }
    Path(names["bad"]).write_text("{oops", encoding="utf-8")
    assert main([arg.format(**names) for arg in argv]) == 2
    err = capsys.readouterr().err
    if message is not None:
        assert err == message.format(**names) + "\n"


BAD_TOKEN = (
    "quorum: error: GITHUB_TOKEN holds whitespace, a control character or a non-ASCII "
    "character, which no GitHub token has; check how it was set\n"
)


@pytest.mark.parametrize(
    "token",
    [f"{TOKEN[:10]}\n{TOKEN[10:]}", f"{TOKEN} {TOKEN}", f"{TOKEN}\x07", f"{TOKEN}é", "tökén"],
)
def test_a_malformed_token_is_refused_at_once_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], token: str
) -> None:
    fake = posting_fake(monkeypatch)
    monkeypatch.setenv("GITHUB_TOKEN", token)
    assert main(["post", write_plan(tmp_path, []), *TARGET_ARGS]) == 2
    assert capsys.readouterr() == ("", BAD_TOKEN)
    assert fake.log == []  # nothing was sent, nothing retried


def test_retries_say_what_failed_and_how_long_they_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = posting_fake(monkeypatch)
    busy = {"message": "Too Many Requests"}
    fake.fail("issues/list-comments", 429, body=busy, headers={"Retry-After": "0"}, times=2)
    assert main(["post", write_plan(tmp_path, []), *TARGET_ARGS]) == 0
    retrying = (
        f"quorum: GitHub API GET {API}/issues/7/comments?per_page=100 returned 429: "
        "Too Many Requests; retrying in 0s ({} of 6)"
    )
    assert capsys.readouterr().err.splitlines()[:3] == [
        "quorum: posting to octo-org/widgets#7 ...",
        retrying.format(2),
        retrying.format(3),
    ]


def test_a_refused_token_exits_2_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    posting_fake(monkeypatch)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_wrongwrongwrongwrongwrongwrong1234")
    assert main(["post", write_plan(tmp_path, []), *TARGET_ARGS]) == 2
    err = capsys.readouterr().err
    expected = "GitHub API GET https://api.github.com/user returned 401: Bad credentials"
    assert err == f"quorum: posting to octo-org/widgets#7 ...\nquorum: error: {expected}\n"


def event_plan(bots: tuple[str, ...], gate_level: ConsensusLevel | None) -> ReviewPlan:
    """One style finding at line 3 that `bots` report, out of the two bots that ran: both
    make it confirmed, one bot needs-verification (below the gate level confirmed)."""
    findings = [
        NormalizedFinding.create(
            bot=bot,
            finding_id=bot,
            severity="low",
            category="style",
            title="X",
            file="a.py",
            line=3,
        )
        for bot in bots
    ]
    return review(findings, settings=Settings(bots_ran=2, gate_level=gate_level))


CONFIRMED, NEEDS = ConsensusLevel.CONFIRMED, ConsensusLevel.NEEDS_VERIFICATION


@pytest.mark.parametrize(
    ("bots", "gate_level", "level", "event"),
    [
        ((), CONFIRMED, None, "COMMENT"),
        ((), CONFIRMED, "unverified", "COMMENT"),
        (("a", "b"), CONFIRMED, None, "COMMENT"),
        (("a", "b"), CONFIRMED, "unverified", "REQUEST_CHANGES"),
        (("a", "b"), CONFIRMED, "confirmed", "REQUEST_CHANGES"),
        (("a",), CONFIRMED, "confirmed", "COMMENT"),
        # whatever level the plan was gated at, its findings are counted at the level asked
        (("a",), CONFIRMED, "needs-verification", "REQUEST_CHANGES"),
        (("a",), None, "unverified", "REQUEST_CHANGES"),
        (("a", "b"), NEEDS, "confirmed", "REQUEST_CHANGES"),
    ],
)
def test_the_cli_decides_the_event(
    bots: tuple[str, ...], gate_level: ConsensusLevel | None, level: str | None, event: str
) -> None:
    assert posting.choose_event(event_plan(bots, gate_level), level) == event


def test_a_dropped_finding_never_requests_changes() -> None:
    plan = event_plan(("a", "b"), CONFIRMED)
    dropped = replace(plan.findings[0], disposition=Disposition.DROPPED)
    plan = assemble([dropped], plan.settings, bots_ran=2)
    assert posting.choose_event(plan, "unverified") == "COMMENT"


def test_the_posting_options_can_be_added_to_another_command() -> None:
    parser = argparse.ArgumentParser(prog="quorum review")
    post.add_post_arguments(parser)
    args = parser.parse_args(
        ["--repo", "o/r", "--pr", "3", "--resolve-fixed", "--request-changes-on", "confirmed"]
    )
    assert (args.repo, args.pr, args.resolve_fixed, args.dry_run, args.bot_login) == (
        "o/r",
        3,
        True,
        False,
        None,
    )
    assert args.request_changes_on == "confirmed"


def test_a_finding_the_rebuilt_draft_cannot_post_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plan rebuilt from GitHub's comments is drafted again: what it cannot post is said."""
    from review_quorum.checked_plan import CheckedPlan, Fresh

    places = [("src/app.py", 12, "SQL built from request input"), ("src/app.py", 30, "XSS")]
    plan = review(agreed_findings(places))
    twin = replace(plan.inline[1], fingerprint=plan.inline[0].fingerprint)
    doubled = replace(plan, findings=(plan.inline[0], twin), inline=(plan.inline[0], twin))
    options = posting.PostingOptions()
    draft = posting._redraft(lambda fresh: CheckedPlan(doubled), "plan.json", options)(Fresh(()))
    assert len(draft.comments) == 1
    assert capsys.readouterr().err == (
        "quorum: warning: not posted: plan.json:/github_review/comments/1: duplicate finding "
        f"fingerprint {plan.inline[0].fingerprint}: listed in the summary\n"
    )


def test_the_review_goes_on_the_head_the_event_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = posting_fake(monkeypatch)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "d" * 40}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    fake.head_sha = "e" * 40  # pushed since the event: the plan is about the event's head
    document = saved_plan([("src/app.py", 12, "SQL injection")])
    document["github_review"]["commit_id"] = "d" * 40
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(document), encoding="utf-8")
    assert main(["post", str(plan), *TARGET_ARGS]) == 0
    [review] = fake.submitted_reviews_by(BOT)
    assert review["commit_id"] == "d" * 40
    assert ("GET", "/repos/octo-org/widgets/pulls/7", 200) not in fake.log
