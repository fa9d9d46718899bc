"""`quorum history sync|show|rule` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from github.github_support import TOKEN
from history import history_scene
from review_quorum.cli import main, posting
from review_quorum.history import open_history


@pytest.fixture
def synced(
    tmp_path: Path,
    db_target: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    fake = history_scene.build()
    monkeypatch.setattr(
        posting,
        "make_http_client",
        lambda: httpx.Client(transport=httpx.MockTransport(fake.handle)),
    )
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_API_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["history", "sync", "--repo", "octo-org/widgets", "--db", db_target]) == 0
    assert capsys.readouterr().err == (
        "quorum: history sync octo-org/widgets: 5 pull request(s) listed, 5 read, 0 already "
        "up to date; 13 bot comment(s) with 13 finding(s) stored\n"
    )
    return db_target


def test_sync_then_show_one_pull_request(synced: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "show", "--db", synced, "--pr", "2"]) == 0
    assert capsys.readouterr().out == (
        "octo-org/widgets#2 coderabbit app/pay.py:20: DISMISSED "
        "(clause 1: author_declined -> dismissed)\n"
        "    The retry loop never ends\n"
        "    signals: author declined; pull request merged\n"
        "octo-org/widgets#2 copilot app/pay.py:70: ADDRESSED (clause 9: thumbs_up -> addressed)\n"
        "    The refund amount is not rounded\n"
        "    signals: reactions +1/-0; pull request merged\n"
        "octo-org/widgets#2 sourcery app/pay.py:90: ADDRESSED "
        "(clause 8: author_agreed -> addressed)\n"
        "    The currency is not checked\n"
        "    signals: author agreed; pull request merged\n"
        "octo-org/widgets#2 gemini app/pay.py:50: DISMISSED "
        "(clause 2: thumbs_down and not thumbs_up -> dismissed)\n"
        "    The log line is too long\n"
        "    signals: reactions +0/-1; pull request merged\n"
    )


def test_show_as_json_filtered_by_bot(synced: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "show", "--db", synced, "--bot", "gemini", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["pull_request"], row["outcome"]) for row in rows] == [
        (1, "dismissed"),
        (2, "dismissed"),
        (3, "dismissed"),
    ]
    assert rows[0]["url"].startswith("https://github.com/octo-org/widgets/pull/1#discussion_r")


def test_a_configured_rule_relabels_the_whole_history(
    synced: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rule = tmp_path / "rule.toml"
    rule.write_text(
        'outcome-rule = [\n  {when = "lines_changed", then = "addressed"},\n'
        '  {when = ["merged", "not lines_changed"], then = "unknown"},\n]\n',
        encoding="utf-8",
    )
    argv = ["history", "show", "--db", synced, "--pr", "1", "--config", str(rule)]
    assert main([*argv, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["bot"], row["outcome"], row["reason"]) for row in rows] == [
        ("coderabbit", "addressed", "clause 1: lines_changed -> addressed"),
        ("copilot", "addressed", "clause 1: lines_changed -> addressed"),
        ("sourcery", "unknown", "clause 2: merged and not lines_changed -> unknown"),
        ("gemini", "unknown", "clause 2: merged and not lines_changed -> unknown"),
    ]


def test_the_rule_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "rule"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Outcome rule (the first clause whose conditions all hold decides):\n"
        "  1. author_declined -> dismissed\n"
        "  2. thumbs_down and not thumbs_up -> dismissed\n"
    )
    assert "  4. closed_as_declined -> dismissed\n" in out
    assert "  10. merged -> dismissed\n  otherwise -> unknown\n" in out
    assert "  resolved             its review thread was resolved\n" in out


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ('[{when = "sunny", then = "addressed"}]', "clause 1: unknown condition 'sunny'"),
        ('[{when = "merged", then = "maybe"}]', "clause 1: 'then' must be one of addressed"),
        ('[{when = "merged"}]', "clause 1: expected a table with exactly 'when' and 'then'"),
        ("[]", "expected a non-empty list"),
    ],
)
def test_a_bad_rule_is_a_usage_error(
    tmp_path: Path, rule: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(f"outcome-rule = {rule}\n", encoding="utf-8")
    assert main(["history", "rule", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"quorum: error: {path}: bad value for 'outcome-rule'")
    assert message in err


def test_sync_needs_a_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    db = str(tmp_path / "h.db")
    assert main(["history", "sync", "--repo", "octo-org/widgets", "--db", db]) == 2
    assert capsys.readouterr().err == (  # no --dry-run to suggest: sync has none
        "quorum: error: GITHUB_TOKEN is not set: history sync reads the repository's pull "
        "requests through the GitHub API, with a token that can read them\n"
    )
    assert not Path(db).exists()


def test_show_on_an_empty_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    open_history(str(tmp_path / "h.db")).close()
    assert main(["history", "show", "--db", str(tmp_path / "h.db")]) == 0
    assert capsys.readouterr().out == (
        "No findings stored (record runs with --db, or run quorum history sync).\n"
    )
