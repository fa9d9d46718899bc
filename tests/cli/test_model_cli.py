"""`--model` and `--profile` on `quorum consensus` and `quorum review`, and the config key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

THREE_BOTS = str(FIXTURES / "native.three-bots.json")
PROFILE = {
    "format": "review-quorum-profile",
    "version": 1,
    "origin": "test",
    "sources": [
        {"bot": "bandit", "rule": None, "reliability": 0.5},
        {"bot": "semgrep", "rule": None, "reliability": 0.6},
        {"bot": "copilot", "rule": None, "reliability": 0.3},
    ],
}


@pytest.fixture
def profile_file(tmp_path: Path) -> str:
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(PROFILE))
    return str(path)


def test_reliability_json_explains_each_member(
    profile_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["consensus", THREE_BOTS, "--bots", "3", "--model", "reliability"]
    status = main([*argv, "--profile", profile_file, "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 1
    first, second = document["findings"]
    assert (first["model"], first["level"], round(first["consensus_score"], 4)) == (
        "reliability",
        "confirmed",
        0.9167,
    )
    assert first["contributions"] == [
        {"source": "bandit", "family": "bandit-ruff", "reliability": 0.5,
         "origin": f"profile {profile_file}: test", "counted": True, "log_odds": 1.9924},
        {"source": "semgrep", "family": "semgrep", "reliability": 0.6,
         "origin": f"profile {profile_file}: test", "counted": True, "log_odds": 2.3979},
    ]  # fmt: skip
    assert (second["level"], second["consensus_score"]) == ("unverified", 0.3)


def test_agreement_json_has_no_model_fields(capsys: pytest.CaptureFixture[str]) -> None:
    main(["consensus", THREE_BOTS, "--bots", "3", "--model", "agreement", "--format", "json"])
    finding = json.loads(capsys.readouterr().out)["findings"][0]
    assert "contributions" not in finding and "model" not in finding


def test_a_broken_profile_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({**PROFILE, "sources": [{"bot": "x", "reliability": 2}]}))
    status = main(["consensus", THREE_BOTS, "--model", "reliability", "--profile", str(path)])
    assert status == 2
    assert capsys.readouterr().err == (
        f"quorum: error: {path}:/sources/0/reliability: must be a number strictly "
        "between 0 and 1, not 2\n"
    )


def test_review_takes_the_model_from_the_config(
    tmp_path: Path, profile_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(f'model = "reliability"\nprofile = {json.dumps(profile_file)}\n')
    argv = ["review", THREE_BOTS, "--bots", "3", "--config", str(config), "--format", "json"]
    status = main(argv)
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    assert report["settings"]["model"] == "reliability"
    main([*argv, "--model", "agreement"])
    assert json.loads(capsys.readouterr().out)["settings"]["model"] == "agreement"


def test_config_rejects_an_unknown_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text('model = "majority"\n')
    assert main(["review", THREE_BOTS, "--config", str(config)]) == 2
    assert "bad value for 'model'" in capsys.readouterr().err
