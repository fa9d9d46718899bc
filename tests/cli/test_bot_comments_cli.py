"""GitHub comments on the command line: --bot attributes a file, bot-logins names accounts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

COMMENTS = FIXTURES / "comments"


def write_comments(tmp_path: Path) -> Path:
    kodus = (COMMENTS / "kodus.inline-bug.md").read_text(encoding="utf-8")
    records = [
        {"id": 1, "user": {"login": "octo-dev", "type": "User"}, "body": kodus,
         "path": "src/ledger/report.py", "line": 30},
        {"id": 2, "user": {"login": "octo-dev", "type": "User"},
         "body": "[high] src/ledger/api.py:9 the refund id is parsed as a float"},
        {"id": 3, "user": {"login": "graphite-app[bot]", "type": "Bot"},
         "body": "**Severity: low**\n\nThe help text has a typo.", "path": "src/ledger/cli.py",
         "line": 4},
    ]  # fmt: skip
    path = tmp_path / "comments.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def bots_by_file(output: str) -> list[tuple[str, list[str]]]:
    findings = json.loads(output)["findings"]
    return sorted((f["file"], f["detected_by"]) for f in findings)


def test_bot_flag_attributes_every_comment_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    comments = write_comments(tmp_path)
    status = main(["consensus", "--format", "json", "--gate-level", "none", "--bots", "1",
                   "--bot", f"team-review={comments}"])  # fmt: skip
    assert status == 0
    assert bots_by_file(capsys.readouterr().out) == [
        ("src/ledger/api.py", ["team-review"]),
        ("src/ledger/cli.py", ["team-review"]),
        ("src/ledger/report.py", ["team-review"]),
    ]


def test_people_are_skipped_and_bots_read_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    comments = str(write_comments(tmp_path))
    status = main(["consensus", "--format", "json", "--gate-level", "none", "--bots", "2",
                   comments])  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [(f["file"], f["detected_by"]) for f in document["findings"]] == [
        ("src/ledger/cli.py", ["graphite-app"])
    ]
    assert [item["position"] for item in document["skipped"]] == ["/0", "/1"]


def test_the_configuration_names_the_account_kodus_posts_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    comments = str(write_comments(tmp_path))
    config = tmp_path / ".quorum.toml"
    config.write_text('gate-level = "none"\n[bot-logins]\n"octo-dev" = "kodus"\n')
    status = main(["review", comments, "--config", str(config), "--format", "json"])
    assert status == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    members = [(m["bot"], m["evidence"]["file"]) for f in findings for m in f["members"]]
    assert sorted(members) == [
        ("graphite-app", "src/ledger/cli.py"),
        ("kodus", "src/ledger/report.py"),
    ]


def test_a_bad_bot_logins_table_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text('[bot-logins]\n"octo-dev" = 3\n')
    assert main(["review", str(write_comments(tmp_path)), "--config", str(config)]) == 2
    assert "bad value for 'bot-logins'" in capsys.readouterr().err
