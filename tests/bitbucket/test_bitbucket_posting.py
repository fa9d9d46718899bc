"""`quorum review --bitbucket --reporter bitbucket-pr` over HTTP against the stand-in: ten
bots' findings posted as inline comments, a re-run that adds nothing, a push that moves
lines (quorum re-anchors what Bitbucket left behind), fixed findings' threads resolved
(never a replied one), the gate as a commit build status, a refused anchor listed in the
summary, tokens, faults, dry runs and `quorum post`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bitbucket.bitbucket_support import (
    HEAD,
    PATH,
    PULL,
    QUORUM,
    TOKEN,
    over_http,
    seed_bot_comments,
)
from bitbucket.fake import FakeBitbucket
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers

PUSHED = "d" * 40
POST = [
    "review", "--bitbucket", *PULL, "--reporter", "bitbucket-pr", "--resolve-fixed",
    "--inline-level", "unverified", "--threshold", "30", "--cap", "50", "--line-window", "0",
    "--gate-level", "unverified",
]  # fmt: skip


def ours(fake: FakeBitbucket) -> list[dict[str, Any]]:
    return [c for c in fake.comments_by(QUORUM) if "inline" in c]


def summaries(fake: FakeBitbucket) -> list[dict[str, Any]]:
    return [c for c in fake.comments_by(QUORUM) if "inline" not in c]


def fingerprints(fake: FakeBitbucket) -> list[str]:
    return sorted(
        payload
        for c in ours(fake)
        for kind, payload in find_markers(c["content"]["raw"])
        if kind == "finding"
    )


def lines(comments: list[dict[str, Any]]) -> list[int]:
    return sorted(c["inline"]["to"] for c in comments)


def test_post_rerun_push_and_resolve_end_to_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        monkeypatch.setenv("BITBUCKET_COMMIT", HEAD)
        assert main(POST) == 1
        first = capsys.readouterr().err
        assert errors == []
        assert lines(ours(fake)) == sorted(line for _, _, line, _ in BOT_NOTES)
        assert {"path": PATH, "to": BOT_NOTES[0][2]} in [c["inline"] for c in ours(fake)]
        assert len(summaries(fake)) == 1
        [(key, status)] = fake.statuses.items()
        assert key == (HEAD, "review-quorum")
        assert (status["state"], status["name"]) == ("FAILED", "review-quorum")
        assert status["url"].endswith(f"#comment-{summaries(fake)[0]['id']}")
        assert "posted 10 new inline comment(s)" in first

        writes = len(fake.writes())
        assert main(POST) == 1
        again = capsys.readouterr().err
        assert len(ours(fake)) == len(BOT_NOTES) and len(summaries(fake)) == 1
        # the summary updated in place and the status set again, under the same key
        assert [m for m, _, _ in fake.writes()[writes:]] == ["PUT", "POST"]
        assert len(fake.statuses) == 1
        assert "posted 0 new inline comment(s), 10 already there" in again

        # A push inserts three lines at the top: Bitbucket leaves every inline comment
        # where it was; the bots comment again on the new lines, except cubic.
        monkeypatch.setenv("BITBUCKET_COMMIT", PUSHED)
        fake.push(PUSHED, {PATH: 45})
        for c in fake.comments:
            if c["user"]["display_name"] != QUORUM and "inline" in c:
                c["deleted"] = True
        for _, username, line, body in BOT_NOTES[:9]:
            fake.add_comment(username, body, path=PATH, line=line + 3)
        before = fingerprints(fake)
        assert main(POST) == 1
        pushed = capsys.readouterr().err
        assert errors == []
    live = [c for c in ours(fake) if "resolution" not in c]
    assert lines(live) == sorted([line + 3 for _, _, line, _ in BOT_NOTES[:9]] + [30])
    # cubic did not report on the new head: its finding is not re-checked, not fixed
    [cubic_thread] = [c for c in live if c["inline"]["to"] == 30]
    assert "not re-checked on dddddddddddd: cubic did not report" in cubic_thread["content"]["raw"]
    assert not [c for c in ours(fake) if "resolution" in c]
    # re-anchored (without the code a finding's identity follows its line, so each takes
    # its new one), none doubled
    assert len(fingerprints(fake)) == len(before)
    assert "9 re-anchored after a push" in pushed and "0 resolved as fixed" in pushed
    assert "1 kept open" in pushed
    assert sorted(sha for sha, _ in fake.statuses) == [HEAD, PUSHED]


def test_a_replied_thread_is_never_resolved_or_edited(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert main(POST) == 1
        first = ours(fake)[0]
        text = first["content"]["raw"]
        fake.add_comment("Dana", "This is intended.", parent=first)
        for c in fake.comments:  # no bot reports any more (none ran on this head)
            if c["user"]["display_name"] not in (QUORUM, "Dana"):
                c["deleted"] = True
        assert main(POST) == 0
        err = capsys.readouterr().err
        assert errors == []
    assert "resolution" not in first and first["content"]["raw"] == text
    # a bot that stops reporting resolves nothing: the others say they were not re-checked
    assert not [c for c in ours(fake) if "resolution" in c]
    others = [c["content"]["raw"] for c in ours(fake) if c is not first]
    assert len(others) == 9 and all("did not report._" in raw for raw in others)
    assert "0 resolved as fixed" in err and "1 fixed but left alone" in err
    assert "9 kept open" in err
    assert next(iter(fake.statuses.values()))["state"] == "SUCCESSFUL"


def test_a_refused_anchor_goes_in_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        fake.add_comment("coderabbitai", BOT_NOTES[0][3], path="src/untouched.py", line=3)
        assert main(POST) == 1
        err = capsys.readouterr().err
        assert errors == []
    [summary] = summaries(fake)
    assert "`src/untouched.py` line 3" in summary["content"]["raw"]
    assert "refused the anchor src/untouched.py:3" in err and "1 listed in the summary" in err
    assert len(ours(fake)) == len(BOT_NOTES)


def test_a_lost_answer_never_duplicates_and_faults_are_retried(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        fake.fail("comments/create", 502, apply=True)  # the summary: applied, answer lost
        fake.fail("comments/create", 500, apply=True, skip=4)
        fake.fail("comments/update", 429, headers={"Retry-After": "5"})
        assert main(POST) == 1
        main(POST)  # a re-run updates the summary through the rate limit
        err = capsys.readouterr().err
        assert errors == []
    assert len(summaries(fake)) == 1 and len(ours(fake)) == len(BOT_NOTES)
    assert "returned 429" in err and "retrying in 5s" in err and 5.0 in fake.time.slept


def test_dry_run_prints_the_requests_and_sends_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert main([*POST, "--dry-run"]) == 1
        assert errors == []
        out, err = capsys.readouterr()
        assert fake.writes() == []
        assert out.count("POST http://127.0.0.1") == len(BOT_NOTES) + 2
        assert '"inline": {' in out and f'"path": "{PATH}"' in out
        assert "[REDACTED]" in out and TOKEN not in out
        assert "would post 10 new inline comment(s)" in err
        monkeypatch.delenv("BITBUCKET_TOKEN")
        log = len(fake.log)
        argv = [a for a in POST if a != "--bitbucket"] + ["--dry-run", "--allow-empty"]
        assert main([*argv, "--input-format", "native"]) == 0
        assert len(fake.log) == log  # offline: nothing read
    out, err = capsys.readouterr()
    assert "/pullrequests/7/comments" in out and "/statuses/build" in out
    assert "no BITBUCKET_TOKEN: nothing was read" in err


def test_a_saved_plan_is_posted_with_quorum_post(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        planning = [a for a in POST if a not in ("--reporter", "bitbucket-pr")]
        assert main([*planning, "--format", "json", "-o", str(plan)]) == 1
        argv = ["post", str(plan), "--reporter", "bitbucket-pr", *PULL]
        assert main(argv) == 0
        assert main(argv) == 0
        assert errors == []
        assert main(["post", str(plan), "--reporter", "bitbucket-pr", "--repo", "acme/other",
                     "--pr", "7"]) == 2  # fmt: skip
    assert lines(ours(fake)) == sorted(line for _, _, line, _ in BOT_NOTES)
    err = capsys.readouterr().err
    assert "posted 0 new inline comment(s), 10 already there" in err
    assert "not a comment on https://bitbucket.org/acme/other/pull-requests/7" in err


HOSTILE = (
    "_⚠️ Potential issue_ | _🟠 Major_\n\n**Count can go negative, see @{5f00aa} "
    "<img src=x onerror=alert(1)> [docs](https://evil.example) @dana**\n\n"
    "Subtracting first lets the count drop below zero; ask @{5f00bb} or @erin."
)


def test_bot_text_is_inert_in_bitbucket_markdown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        fake.add_comment("coderabbitai", HOSTILE, path=PATH, line=12)
        assert main(POST) == 1
        assert errors == []
    [comment] = ours(fake)
    [summary] = summaries(fake)
    for text in (comment["content"]["raw"], summary["content"]["raw"]):
        assert "Count can go negative" in text
        for live in ("@{5f00", "<img", "](https://evil", "@dana", "@erin"):
            assert live not in text, live


def test_a_reply_by_our_account_is_never_taken_for_a_thread_of_ours(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        bot = fake.add_comment(BOT_NOTES[0][1], BOT_NOTES[0][3], path=PATH, line=12)
        reply = fake.add_comment(QUORUM, "<!-- review-quorum:finding 0123abcd -->\nsee", parent=bot)
        assert main(POST) == 1
        assert errors == []
    assert "resolution" not in reply and reply["content"]["raw"].endswith("see")
    assert lines(ours(fake)) == [12]


def write_head(root: Path, rewritten: tuple[int, ...] = ()) -> list[str]:
    """A checkout of the head's 40-line file, the `rewritten` lines changed by a push."""
    lines = [f"stock_{n} = load_stock({n})" for n in range(1, 41)]
    for line in rewritten:
        lines[line - 1] = f"stock_{line} = load_stock_locked({line})"
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / PATH).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["--checkout", str(root)]


def test_a_thread_already_resolved_is_not_resolved_again_and_a_race_is_harmless(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert main([*POST, *write_head(tmp_path)]) == 1
        first, second = sorted(ours(fake), key=lambda c: c["inline"]["to"])[:2]
        first["resolution"] = {"type": "comment_resolution", "created_on": "2026-01-01T00:00:00Z"}
        # a push rewrites lines 12 and 14: the first two bots' findings there are gone,
        # and both bots (which ran) report another one on the same head
        for c in fake.comments:
            if c["user"]["display_name"] in (BOT_NOTES[0][1], BOT_NOTES[1][1]):
                c["deleted"] = True
        for (_, username, _, body), line in zip(BOT_NOTES[:2], (36, 38), strict=True):
            fake.add_comment(username, body.replace("The ", "Also: the ", 1), path=PATH, line=line)
        # someone resolves the second one while quorum runs: Bitbucket answers 409
        fake.fail("comments/resolve", 409, body={"type": "error", "error": {"message": "done"}})
        writes = len(fake.writes())
        assert main([*POST, *write_head(tmp_path, (12, 14))]) == 1
        assert errors == []
    resolves = [e for e in fake.writes()[writes:] if e[1].endswith("/resolve")]
    assert resolves == [("POST", f"{resolves[0][1]}", 409)]  # only the second was asked
    assert str(second["id"]) in resolves[0][1]
    for comment in (first, second):
        assert "review-quorum no longer reports this finding" in comment["content"]["raw"]


def test_our_account_quoting_a_marker_inside_a_comment_is_not_ours(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    quoted = "Someone on the shared account quotes:\n<!-- review-quorum:finding 0123abcd -->"
    with over_http(monkeypatch) as (fake, errors):
        comment = fake.add_comment(QUORUM, quoted, path=PATH, line=20)
        main(POST)  # (the app account's unmarked comment reads as a bot's finding)
        assert errors == []
    assert "resolution" not in comment and comment["content"]["raw"] == quoted
