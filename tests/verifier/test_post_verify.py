"""`quorum post` with the verifier's flags: the posting run verifies the plan as it rebuilds
it (the plan's own verdicts are never used), says so in the summary, and keeps its answers
in the history with `--db`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum.cli import main
from verifier.openai_standin import StandIn
from verifier.test_review_cli import EXAMPLE, example_args


def summary_of(out: str) -> str:
    body: str = json.loads(out.split("\n\n")[1])["body"]
    return body


def test_post_verifies_what_it_posts_and_keeps_answers_in_the_history(
    tmp_path: Path,
    standin: StandIn,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    plan = tmp_path / "plan.json"
    flags = ["--verify-url", standin.url, "--verify-model", "m"]
    assert main([*example_args(tmp_path), *flags, "-o", str(plan)]) == 1
    asked = len(standin.requests)
    standin.verdicts["app/export.py:7"] = {"verdict": "CONFIRMED", "severity": "high"}
    argv = ["post", str(plan), "--repo", "acme/stockroom", "--pr", "1", "--dry-run"]
    argv += ["--diff", str(EXAMPLE / "pr.diff"), *flags]
    argv += ["--verify-checkout", str(EXAMPLE / "head"), "--db", str(tmp_path / "h.sqlite")]
    argv += ["--head-sha", "a" * 40]
    capsys.readouterr()
    assert main(argv) == 0
    summary = summary_of(capsys.readouterr().out)
    # No token: no comment was read, so only the analysers' findings are posted, and their
    # four eligible clusters are asked about; the plan's own three verdicts are not used.
    assert len(standin.requests) == asked + 4
    assert "Verifier: 4 verified, 0 from the cache (1 CONFIRMED, 3 LIKELY); 3 placement" in summary
    assert "Not used: the plan's 3 verifier verdict(s)." in summary
    assert main(argv) == 0
    assert "Verifier: 0 verified, 4 from the cache" in summary_of(capsys.readouterr().out)
    assert len(standin.requests) == asked + 4
    assert not (tmp_path / ".quorum-verifier-cache.json").exists()  # in the history instead


def test_post_says_what_went_wrong_with_the_verifier(
    tmp_path: Path,
    standin: StandIn,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    plan = tmp_path / "plan.json"
    assert main([*example_args(tmp_path), "-o", str(plan)]) == 1
    cache = tmp_path / "answers.json"
    cache.write_text("{not json", encoding="utf-8")
    argv = ["post", str(plan), "--repo", "acme/stockroom", "--pr", "1", "--dry-run"]
    argv += ["--diff", str(EXAMPLE / "pr.diff"), "--verify-url", standin.url]
    argv += ["--verify-model", "m", "--verify-checkout", str(EXAMPLE / "head")]
    assert main([*argv, "--verify-cache", str(cache)]) == 0
    assert f"quorum: warning: verifier cache {cache} ignored" in capsys.readouterr().err
