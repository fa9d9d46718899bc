"""The reporter registry: every `--reporter` choice and configuration value is a reporter."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from github.github_support import saved_plan
from review_quorum import config
from review_quorum.cli import main
from review_quorum.cli.reporters import REPORTERS
from review_quorum.errors import ConfigError
from review_quorum.render import review
from review_quorum.saved_plan import read_saved_plan

TARGET_ARGS = ["--repo", "octo-org/widgets", "--pr", "7"]


def reporter_choices(command: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main([command, "--help"]) == 0
    listed = re.search(r"--reporter \{([a-z,-]+)\}", capsys.readouterr().out)
    assert listed is not None, f"quorum {command} has no --reporter"
    return listed.group(1).split(",")


@pytest.mark.parametrize("command", ["review", "post"])
def test_every_reporter_choice_is_a_registered_reporter(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sorted(reporter_choices(command, capsys)) == sorted(REPORTERS)


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_each_reporter_is_a_reporters_module_function_of_one_delivery(name: str) -> None:
    reporter = REPORTERS[name]
    assert inspect.isfunction(reporter)
    assert reporter.__module__ == f"review_quorum.cli.reporters.{name.replace('-', '_')}"
    assert list(inspect.signature(reporter).parameters) == ["delivery"]


def test_the_configuration_accepts_exactly_the_registered_reporters(tmp_path: Path) -> None:
    assert set(config.REPORTERS) == set(REPORTERS)
    for name in REPORTERS:
        assert config.validate({"reporter": name}, "q.toml") == {"reporter": name}
    with pytest.raises(ConfigError, match="reporter"):
        config.validate({"reporter": "gerrit"}, "q.toml")


def test_post_with_the_local_reporter_prints_the_plan_as_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no configuration file around
    for name in ("GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    document = saved_plan([("src/app.py", 12, "SQL built from request input")])
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert main(["post", str(path), *TARGET_ARGS, "--reporter", "local"]) == 0
    out, err = capsys.readouterr()
    plan = read_saved_plan(
        document, str(path), pull_page="https://github.com/octo-org/widgets/pull/7"
    )
    assert (out, err) == (review.render(plan), "")
    assert "SQL built from request input" in out


def test_the_configured_reporter_is_used_when_no_flag_names_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / ".quorum.toml").write_text('reporter = "local"\n', encoding="utf-8")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(saved_plan([("src/app.py", 3, "Open redirect")])), "utf-8")
    assert main(["post", str(path), *TARGET_ARGS]) == 0
    assert "Open redirect" in capsys.readouterr().out
