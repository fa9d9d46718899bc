"""The gitlab-mr reporter when things go wrong or are only pretended: the dry run, lines
the diff does not show, refused anchors, lost answers, a token that may not write, a
status being updated elsewhere, and markers planted by someone else."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitlab.fake import FakeGitLab, diff_text
from gitlab.gitlab_support import BOT_NOTES, PATH, QUORUM, over_http
from gitlab.test_gitlab_posting import POST, ours, stickies
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers, marker


def seed(fake: FakeGitLab, *notes: int, path: str = PATH) -> None:
    for index in notes:
        _, username, line, body = BOT_NOTES[index]
        fake.add_note(username, body, position=fake.position(path, line))


def test_the_dry_run_prints_the_requests_and_sends_none(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        assert main([*POST, "--dry-run"]) == 1
    out = capsys.readouterr().out
    assert errors == [] and fake.writes() == []
    assert f"POST {fake.api_url}/projects/acme%2Fstockroom/merge_requests/7/notes" in out
    assert f"POST {fake.api_url}/projects/acme%2Fstockroom/merge_requests/7/discussions" in out
    assert f"POST {fake.api_url}/projects/acme%2Fstockroom/statuses/{fake.head_sha}" in out
    assert '"position_type": "text"' in out and '"new_line": 12' in out
    assert "Authorization: Bearer [REDACTED]" in out and "glpat-" not in out


def test_an_offline_dry_run_reads_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    findings = tmp_path / "findings.json"
    findings.write_text(
        '[{"bot": "semgrep", "finding_id": "s1", "severity": "high", "category": "security", '
        '"title": "SQL built from input", "evidence": {"file": "src/stock.py", "line": 14}}]',
        encoding="utf-8",
    )
    with over_http(monkeypatch) as (fake, errors):
        monkeypatch.delenv("GITLAB_TOKEN")
        monkeypatch.setenv("CI_COMMIT_SHA", "e" * 40)
        diff = tmp_path / "mr.diff"
        diff.write_text(f"--- a/{PATH}\n+++ b/{PATH}\n" + diff_text({}, {14}, 20))
        argv = [a for a in POST if a != "--gitlab"]
        assert main([*argv, str(findings), "--diff", str(diff), "--dry-run"]) == 1
    captured = capsys.readouterr()
    assert (errors, fake.log) == ([], [])
    assert f"/statuses/{'e' * 40}" in captured.out and '"new_line": 14' in captured.out
    assert "no GITLAB_TOKEN: nothing was read" in captured.err


def test_lines_outside_the_diff_and_refused_anchors_go_to_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 1, path="src/untouched.py")  # not in the merge request's diff
        seed(fake, 2, 3)
        fake.fail("discussions/create", 400, body={"message": {"line_code": ["is invalid"]}})
        assert main(POST) == 1
        assert errors == []
    [sticky] = stickies(fake)
    moved = [kind for kind, _ in find_markers(sticky["notes"][0]["body"])].count("moved")
    assert moved == 2 and len(ours(fake)) == 1
    assert "Not placed on the diff" in sticky["notes"][0]["body"]
    err = capsys.readouterr().err
    assert "2 listed in the summary (not on the diff)" in err
    assert "GitLab refused the anchor src/stock.py:" in err


def test_a_lost_answer_is_not_posted_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        fake.fail("discussions/create", 502, apply=True)
        fake.fail("notes/create", 503, apply=True)
        assert main(POST) == 1
        assert errors == []
    assert len(ours(fake)) == 1 and len(stickies(fake)) == 1
    assert fake.time.slept == [1.0, 1.0]


def test_a_token_that_may_not_write_fails_before_posting_anything(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        fake.read_only.add(next(iter(fake.tokens)))
        assert main(POST) == 2
        assert errors == []
    assert fake.threads_by(QUORUM) == [] and fake.statuses == []
    err = capsys.readouterr().err
    assert "returned 403" in err and "create a project access token" in err


def test_a_status_updated_elsewhere_is_set_again(monkeypatch: pytest.MonkeyPatch) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        fake.fail("commit_statuses/create", 409, body={"message": "Cannot transition status"})
        assert main(POST) == 1
        assert errors == []
    assert [s["status"] for s in fake.statuses] == ["failed"]


def test_markers_planted_by_someone_else_are_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        assert main(POST) == 1
        [thread] = ours(fake)
        planted = thread["notes"][0]["body"]
        fake.add_note("mallory", f"{marker('summary')}\nfake summary")
        fake.add_note("mallory", planted, position=fake.position(PATH, 12))
        fake.discussions.remove(thread)  # ours is gone: only mallory's copy carries the marker
        assert main(POST) == 1
        assert errors == []
    assert len(ours(fake)) == 1 and len(stickies(fake)) == 1
    assert [n["body"] for d in fake.threads_by("mallory") for n in d["notes"]][0].endswith(
        "fake summary"
    )


def test_a_merge_request_pipeline_names_the_merge_request_and_the_api(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed(fake, 0)
        monkeypatch.delenv("GITLAB_API_URL")
        for name, value in [
            ("CI_API_V4_URL", fake.api_url),
            ("CI_PROJECT_ID", "4242"),
            ("CI_MERGE_REQUEST_IID", "7"),
            ("CI_JOB_TOKEN", "a job token, unused while GITLAB_TOKEN is set"),
        ]:
            monkeypatch.setenv(name, value)
        argv = [a for a in POST if a not in ("--project", "acme/stockroom", "--mr", "7")]
        assert main(argv) == 1
        assert errors == []
    assert len(ours(fake)) == 1
    assert "acme/stockroom" not in capsys.readouterr().err  # addressed as project 4242


def test_unchanged_lines_and_line_ranges_are_anchored_as_gitlab_wants(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, username, _, body = BOT_NOTES[0]
    _, other, _, other_body = BOT_NOTES[2]
    with over_http(monkeypatch) as (fake, errors):
        fake.add_note(username, body, position=fake.position(PATH, 5, 5))  # an unchanged line
        spanning = fake.position(PATH, 16)
        spanning["line_range"] = {"start": {"new_line": 14}, "end": {"new_line": 16}}
        fake.add_note(other, other_body, position=spanning)
        assert main(POST) == 1
        assert errors == []
    positions = sorted((d["notes"][0]["position"] for d in ours(fake)), key=lambda p: p["new_line"])
    assert [(p.get("old_line"), p["new_line"]) for p in positions] == [(5, 5), (None, 16)]
    line_range = positions[1]["line_range"]
    assert (line_range["start"]["new_line"], line_range["end"]["new_line"]) == (14, 16)
    assert line_range["start"]["type"] == "new"
