"""`quorum history sync --gitlab` end to end against the GitLab stand-in (every request
validated against ../shared/gitlab), on SQLite and PostgreSQL: what happened to each bot
note becomes the same outcomes GitHub's sync gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import review_quorum
from gitlab.gitlab_support import BOT_NOTES, PATH, over_http
from review_quorum.cli import main
from review_quorum.history import finding_outcomes, open_history
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.show import FindingOutcome

SYNC = ["history", "sync", "--gitlab", "--project", "acme/stockroom"]
NOTES = {bot: (username, line, body) for bot, username, line, body in BOT_NOTES}


def note(fake, bot: str):  # type: ignore[no-untyped-def]
    username, line, body = NOTES[bot]
    return fake.add_note(username, body, position=fake.position(PATH, line))


def outcomes(target: str) -> dict[str, FindingOutcome]:
    database = open_history(target)
    try:
        return {row.bot: row for row in finding_outcomes(database, DEFAULT_RULE)}
    finally:
        database.close()


def test_a_merge_requests_bot_notes_get_their_outcomes(
    db_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        resolved = note(fake, "coderabbit")
        fake.resolve(resolved, "erin")
        declined = note(fake, "gemini")
        fake.add_note("dana", "Won't fix: the table is tiny.", reply_to=declined)
        disliked = note(fake, "sourcery")
        fake.award(disliked["notes"][0], "erin", "thumbsdown")
        changed = note(fake, "cursor")
        fake.award(changed["notes"][0], "project_4242_bot_0a0b0c", "thumbsdown")  # a bot's
        note(fake, "greptile")
        head = "d" * 40
        fake.push(
            head,
            {PATH: fake.version_diffs[fake.versions[-1]["id"]][PATH]},
            lambda path, line: None if line == 22 else line,
        )
        fake.state = "merged"
        status = main([*SYNC, "--mr", "7", "--db", db_target])
        again = main([*SYNC, "--db", db_target])  # the history's own merge request
    assert errors == []
    assert (status, again) == (0, 0)
    said = capsys.readouterr().err
    assert "1 pull request(s) listed, 1 read, 0 already up to date; 5 bot comment(s)" in said
    assert "1 pull request(s) listed, 0 read, 1 already up to date" in said
    rows = outcomes(db_target)
    assert {bot: (row.outcome.value, row.reason) for bot, row in rows.items()} == {
        "coderabbit": ("addressed", "clause 6: resolved -> addressed"),
        "gemini": ("dismissed", "clause 1: author_declined -> dismissed"),
        "sourcery": ("dismissed", "clause 2: thumbs_down and not thumbs_up -> dismissed"),
        "cursor": ("addressed", "clause 5: lines_changed -> addressed"),
        "greptile": ("dismissed", "clause 10: merged -> dismissed"),
    }
    assert "thread resolved by erin" in rows["coderabbit"].signals
    assert rows["cursor"].repository == "gitlab:acme/stockroom"
    assert any(head[:7] in signal for signal in rows["cursor"].signals)
    awards = [path for _, path, _ in fake.log if path.endswith("/award_emoji")]
    assert len(awards) == 5  # one list per bot note


def test_stats_and_calibrate_learn_from_a_gitlab_sync(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"{tmp_path}/h.db"
    with over_http(monkeypatch) as (fake, errors):
        fake.resolve(note(fake, "coderabbit"), "erin")
        disliked = note(fake, "sourcery")
        fake.award(disliked["notes"][0], "erin", "thumbsdown")
        assert main([*SYNC, "--mr", "7", "--db", db]) == 0
    assert errors == []
    capsys.readouterr()
    assert main(["stats", "--db", db, "--repo", "gitlab:acme/stockroom", "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    counts = {row["bot"]: (row["addressed"], row["dismissed"]) for row in stats["bots"]}
    assert counts == {"coderabbit": (1, 0), "sourcery": (0, 1)}
    profile = f"{tmp_path}/profile.json"
    assert main(["calibrate", "--db", db, "--min-decided", "1", "-o", profile]) == 0
    sources = json.loads(Path(profile).read_text())["sources"]
    learned = {s["bot"]: s for s in sources if s["rule"] is None and "history" in s["origin"]}
    assert (learned["coderabbit"]["true"], learned["coderabbit"]["false"]) == (1, 0)
    assert (learned["sourcery"]["true"], learned["sourcery"]["false"]) == (0, 1)
    default = Path(review_quorum.__file__).parent / "profiles" / "default.json"
    shipped = {
        s["bot"]: s["reliability"]
        for s in json.loads(default.read_text())["sources"]
        if s["rule"] is None
    }
    assert learned["coderabbit"]["reliability"] > shipped["coderabbit"]  # addressed: up


def test_a_sync_pages_and_waits_out_rate_limits(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"{tmp_path}/h.db"
    with over_http(monkeypatch) as (fake, errors):
        for bot in ("coderabbit", "gemini", "sourcery", "greptile", "codex"):
            liked = note(fake, bot)
            for person in ("erin", "frank", "gina"):
                fake.award(liked["notes"][0], person, "thumbsup")
        fake.page_cap = 2  # five discussions and three emoji each: three and two pages
        fake.fail("award_emoji/list-for-note", 429, headers={"Retry-After": "7"})
        assert main([*SYNC, "--mr", "7", "--db", db]) == 0
    assert errors == []
    assert "retrying in 7s" in capsys.readouterr().err
    assert len([p for _, p, _ in fake.log if p.endswith("/discussions")]) == 3
    assert len([p for _, p, s in fake.log if p.endswith("/award_emoji") and s == 200]) == 10
    rows = outcomes(db)
    assert {row.bot: row.signals[0] for row in rows.values()} == dict.fromkeys(
        ("coderabbit", "gemini", "sourcery", "greptile", "codex"), "reactions +3/-0"
    )


def test_an_interrupted_sync_is_done_again_whole(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"{tmp_path}/h.db"
    with over_http(monkeypatch) as (fake, errors):
        fake.resolve(note(fake, "coderabbit"), "erin")
        note(fake, "gemini")
        fake.fail("award_emoji/list-for-note", 500, times=10, skip=1)
        assert main([*SYNC, "--mr", "7", "--db", db]) == 2  # gave up: nothing half-stored
        assert not Path(db).exists()  # a failed first sync leaves no history behind
        fake.faults.clear()
        assert main([*SYNC, "--mr", "7", "--db", db]) == 0
    assert errors == []
    assert sorted(outcomes(db)) == ["coderabbit", "gemini"]
