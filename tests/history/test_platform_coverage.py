"""Which expected bots reviewed the head commit, on Azure DevOps, Bitbucket and GitLab,
end to end against their stand-ins: the summary names the ones that did not; and a run
recorded on those platforms takes its head commit from the pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab import gitlab_support
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main

NOTES = {bot: (username, line, body) for bot, username, line, body in BOT_NOTES}
EXPECTED = 'expected-bots = ["coderabbit", "gemini", "sourcery"]\n'


def config(tmp_path: Path) -> str:
    path = tmp_path / "quorum.toml"
    path.write_text(EXPECTED)
    return str(path)


def test_azure_devops_coverage_by_the_latest_push(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["review", "--azure-devops", *ado_support.PULL, "--reporter", "azure-devops-pr"]
    with ado_support.over_http(monkeypatch) as (fake, errors):
        for bot in ("coderabbit", "gemini"):
            username, line, body = NOTES[bot]
            fake.add_thread(username, body, path=ado_support.PATH, line=line)
            if bot == "coderabbit":
                fake.push("d" * 40, {ado_support.PATH: 40})  # gemini spoke after this push
        assert main([*args, "--config", config(tmp_path), "--gate-level", "none"]) == 0
    assert errors == []
    [summary] = [t for t in fake.threads_by(ado_support.QUORUM) if "threadContext" not in t]
    assert (
        "**Did not review this commit:** coderabbit (reviewed an older commit only); "
        "sourcery (did not review)." in summary["comments"][0]["content"]
    )


def test_bitbucket_coverage_counts_any_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["review", "--bitbucket", *bitbucket_support.PULL, "--reporter", "bitbucket-pr"]
    with bitbucket_support.over_http(monkeypatch) as (fake, errors):
        for bot in ("coderabbit", "gemini"):
            username, line, body = NOTES[bot]
            fake.add_comment(username, body, path=bitbucket_support.PATH, line=line)
        assert main([*args, "--config", config(tmp_path), "--gate-level", "none"]) == 0
    assert errors == []
    said = "".join(c["content"]["raw"] for c in fake.comments_by(bitbucket_support.QUORUM))
    assert "**Did not review this commit:** sourcery (did not review)." in said


def test_gitlab_coverage_by_the_version_a_note_is_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["review", "--gitlab", *gitlab_support.MR, "--reporter", "gitlab-mr"]
    with gitlab_support.over_http(monkeypatch) as (fake, errors):
        username, line, body = NOTES["coderabbit"]
        fake.add_note(username, body, position=fake.position(gitlab_support.PATH, line))
        diffs = fake.version_diffs[fake.versions[-1]["id"]]
        fake.push("d" * 40, diffs, lambda path, n: None)  # every line changed: left behind
        username, line, body = NOTES["gemini"]
        fake.add_note(username, body, position=fake.position(gitlab_support.PATH, line))
        assert main([*args, "--config", config(tmp_path), "--gate-level", "none"]) == 0
    assert errors == []
    said = "".join(n["body"] for d in fake.threads_by(gitlab_support.QUORUM) for n in d["notes"])
    assert (
        "**Did not review this commit:** coderabbit (reviewed an older commit only); "
        "sourcery (did not review)." in said
    )


def test_a_run_on_a_platform_is_recorded_with_the_pipelines_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "h.db")
    with bitbucket_support.over_http(monkeypatch) as (fake, errors):
        args = ["review", "--bitbucket", *bitbucket_support.PULL, "--db", db]
        assert main(args) == 2  # no head commit: said, nothing recorded
        assert "--db: recording needs the head commit" in capsys.readouterr().err
        monkeypatch.setenv("BITBUCKET_COMMIT", "E" * 40)
        assert main(args) == 0
    assert errors == []
    assert "recorded run 1 of bitbucket:acme/stockroom#7 at eeeeeeeeeeee" in (
        capsys.readouterr().err
    )


def test_a_post_to_gitlab_is_recorded_under_the_projects_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db, plan = str(tmp_path / "h.db"), str(tmp_path / "plan.json")
    with gitlab_support.over_http(monkeypatch) as (fake, errors):
        username, line, body = NOTES["coderabbit"]
        fake.add_note(username, body, position=fake.position(gitlab_support.PATH, line))
        review = ["review", "--gitlab", *gitlab_support.MR, "--format", "json", "-o", plan]
        assert main(review) == 0
        monkeypatch.setenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", gitlab_support.HEAD)
        monkeypatch.setenv("CI_PROJECT_URL", "https://gitlab.example.com/acme/stockroom")
        post = ["post", plan, "--reporter", "gitlab-mr", *gitlab_support.MR, "--db", db]
        assert main(post) in (0, 1)
    assert errors == []
    said = capsys.readouterr().err
    assert "recorded run 1 of gitlab:acme/stockroom#7 at cccccccccccc" in said
