"""Issue 28's three user scenarios, end to end over HTTP against the GitHub and GitLab
stand-ins: one identity per finding, whatever the bots, their wording or the push.

1. The bundled example's analysers plan 7 inline findings; all 7 are posted (on GitHub, on
   GitLab and as check-run annotations) and the summary says what was delivered. Before,
   the two SQL injections of app/db.py shared an identity and one was lost.
2. A re-run on the next push with one bot of three resolves nothing that the same run
   still lists, and opens no second thread for a finding already posted.
3. Triage of one finding acts on that finding only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from unidiff.patch import PatchSet

from conftest import REPO_ROOT, shared_path
from github.fake import FakeGitHub
from github.fake_server import serve
from github.github_support import BOT, TOKEN, addressable, agreed_findings, new_fake
from gitlab.fake import FakeGitLab, diff_text
from gitlab.gitlab_support import HEAD, MR, QUORUM, over_http
from review_quorum.cli import main
from review_quorum.github.target import ACTIONS_BOT
from review_quorum.markup.markers import find_markers, marker
from review_quorum.plan import Decision, Triage, assemble, review
from review_quorum.render.json_report import report_data
from review_quorum.saved_plan import read_saved_plan
from review_quorum.scope import DiffScope

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
ANALYSERS = sorted(str(path) for path in EXAMPLE.glob("analysers/*.sarif"))
RUFF = str(EXAMPLE / "analysers" / "ruff.sarif")
DIFF = str(EXAMPLE / "pr.diff")
ACTIONS_TOKEN = "ghs_actionstoken0123456789abcdefghijklmno"
REPO = ["--repo", "acme/stockroom", "--pr", "1"]


def make_plan(tmp_path: Path, inputs: list[str], name: str = "p.json") -> Path:
    """`quorum review <inputs> --bots 3 --diff pr.diff --format json -o p.json`."""
    output = tmp_path / name
    argv = ["review", *inputs, "--bots", "3", "--diff", DIFF, "--format", "json"]
    assert main([*argv, "-o", str(output)]) in (0, 1)
    return output


def planned_inline(plan: Path) -> list[tuple[str, int]]:
    data = json.loads(plan.read_text(encoding="utf-8"))
    return sorted((c["path"], c["line"]) for c in data["github_review"]["comments"])


def finding_ids(body: str) -> list[str]:
    return [payload for kind, payload in find_markers(body) if kind == "finding"]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    monkeypatch.chdir(tmp_path)  # no configuration file around
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    with serve(lambda url: new_fake(api_url=url, owner="acme", repo="stockroom", number=1)) as (
        fake,
        errors,
    ):
        fake.set_diff(addressable(Path(DIFF)))
        monkeypatch.setenv("GITHUB_API_URL", fake.api_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        yield fake
        assert errors == []


def test_the_example_posts_7_of_7_inline_comments_and_the_summary_agrees(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = make_plan(tmp_path, ANALYSERS)
    assert len(planned_inline(plan)) == 7
    assert main(["post", str(plan), *REPO]) == 0
    err = capsys.readouterr().err
    assert "not posted" not in err
    posted = github.comments_by(BOT)
    assert len(posted) == 7
    assert sorted((c["path"], c["line"]) for c in posted) == planned_inline(plan)
    sql = [c for c in posted if c["path"] == "app/db.py"]
    assert sorted((c["line"], c.get("start_line")) for c in sql) == [(54, None), (68, 67)]
    assert len({finding_ids(c["body"])[0] for c in posted}) == 7
    # the identities the plan (and its SARIF, its history) gave are the ones posted
    data = json.loads(plan.read_text(encoding="utf-8"))
    planned = {f["fingerprint"] for f in data["findings"] if f["disposition"] == "inline"}
    assert {finding_ids(c["body"])[0] for c in posted} == planned
    [sticky] = github.issue_comments_by(BOT)
    assert "### 7 findings posted inline" in sticky["body"]
    assert "`app/db.py:67-68`" in sticky["body"]


def test_the_example_as_a_check_run_annotates_every_planned_finding(
    github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.add_token(ACTIONS_TOKEN, ACTIONS_BOT, installation=True)
    monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
    plan = make_plan(tmp_path, ANALYSERS)
    assert main(["post", str(plan), *REPO, "--reporter", "github-check"]) in (0, 1)
    [run] = github.checks.named("review-quorum")
    notes = github.checks.annotations[run["id"]]
    places = sorted((a["path"], a["start_line"]) for a in notes)
    assert ("app/db.py", 54) in places and ("app/db.py", 67) in places
    data = json.loads(plan.read_text(encoding="utf-8"))
    reported = [f for f in data["findings"] if f["disposition"] != "dropped"]
    assert len(notes) == len(reported)


def _per_file(diff: str) -> dict[str, str]:
    """The example's diff as the GitLab stand-in takes it: one hunk per file, the head
    file's lines with the diff's added ones marked added."""
    files: dict[str, str] = {}
    for patched in PatchSet(diff):
        head = (EXAMPLE / "head" / patched.path).read_text(encoding="utf-8").splitlines()
        added = {line.target_line_no for hunk in patched for line in hunk if line.is_added}
        text = dict(enumerate(head, start=1))
        files[patched.path] = diff_text(text, {n for n in added if n is not None}, len(head))
    return files


def gitlab_threads(fake: FakeGitLab) -> list[dict[str, Any]]:
    return [d for d in fake.threads_by(QUORUM) if not d["individual_note"]]


def test_the_example_delivers_7_of_7_findings_on_gitlab(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = make_plan(tmp_path, ANALYSERS)
    with over_http(monkeypatch) as (fake, errors):
        fake.push(HEAD, _per_file(Path(DIFF).read_text(encoding="utf-8")))
        assert main(["post", str(plan), "--reporter", "gitlab-mr", *MR]) == 0
        assert errors == []
    err = capsys.readouterr().err
    assert "not posted" not in err, err
    # The stand-in refuses these anchors (its line codes of a multi-file version), so the
    # poster lists them in the summary note: what counts is that all 7 are delivered.
    done = re.search(r"posted (\d+) new diff discussion\(s\), \d+ already there, (\d+) listed", err)
    assert done is not None, err
    assert int(done[1]) + int(done[2]) == 7
    assert len(gitlab_threads(fake)) == int(done[1])
    [sticky] = [d for d in fake.threads_by(QUORUM) if d["individual_note"]]
    body = sticky["notes"][0]["body"]
    assert "### 7 findings posted inline" in body
    assert "app/db.py" in body and "67" in body


def test_a_push_reviewed_by_one_bot_of_three_resolves_nothing_it_still_lists(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = make_plan(tmp_path, ANALYSERS, "first.json")
    assert main(["post", str(first), *REPO, "--resolve-fixed"]) == 0
    before = {c["id"]: c["body"] for c in github.comments_by(BOT)}
    github.push("e" * 40, addressable(Path(DIFF)), lambda path, line: line)
    second = make_plan(tmp_path, [RUFF], "second.json")
    assert main(["post", str(second), *REPO, "--resolve-fixed"]) == 0
    comments = github.comments_by(BOT)
    [sticky] = github.issue_comments_by(BOT)
    listed = sticky["body"]
    fixed = [c for c in comments if any(k == "fixed" for k, _ in find_markers(c["body"]))]
    for comment in fixed:  # what is struck through as fixed is not in this run's summary
        assert f"`{comment['path']}:{comment['line']}" not in listed
    # Ruff reviewed the new head and still reports these: the threads stay as they were
    # posted (no second thread for the same finding).
    assert len(comments) == len(before)
    sql = [c for c in comments if c["path"] == "app/db.py"]
    assert len(sql) == 2 and not any(c in fixed for c in sql)
    # Bandit and Semgrep did not report on the new head: what only they found is not
    # "fixed" but "not re-checked".
    subprocess_import = next(c for c in comments if (c["path"], c["line"]) == ("app/export.py", 7))
    assert subprocess_import not in fixed
    assert "not re-checked on eeeeeeeeeeee: bandit did not report" in subprocess_import["body"]


def test_triage_of_one_finding_leaves_the_other_sql_injection_alone(tmp_path: Path) -> None:
    path = make_plan(tmp_path, ANALYSERS)
    plan = read_saved_plan(json.loads(path.read_text(encoding="utf-8")), str(path))
    sql = [item for item in plan.inline if item.finding.file == "app/db.py"]
    assert len(sql) == 2
    target = next(item for item in sql if item.finding.line == 54)
    via = "review_comment:1"
    decision = Decision(target.fingerprint, "false-positive", "alice", "2026-01-01", "", via)
    quiet = assemble(
        plan.findings, plan.settings, bots_ran=plan.bots_ran, triage=Triage((decision,))
    )
    left = [item for item in quiet.inline if item.finding.file == "app/db.py"]
    assert [item.finding.line for item in left] == [67]


@pytest.mark.parametrize(("corpus", "bots"), [("castle-c250", "5"), ("securibench-micro-js", "3")])
def test_a_whole_corpus_as_one_pull_request_leaves_no_planned_comment_out(
    corpus: str, bots: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = shared_path("corpora", corpus)
    inputs = sorted(str(path) for path in (root / "sarif").glob("*.sarif"))
    plan = tmp_path / "p.json"
    argv = ["review", *inputs, "--bots", bots, "--root", str(root), "--format", "json"]
    assert main([*argv, "-o", str(plan)]) in (0, 1)
    capsys.readouterr()
    assert main(["post", str(plan), *REPO, "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "not posted" not in err
    planned = len(planned_inline(plan))
    assert planned > 100
    assert f"would post {planned} new inline comment(s)" in err


def test_a_check_run_rerun_annotates_a_finding_worded_like_one_already_there(
    github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two findings with the same bots, file, category and title on one commit: the second
    run's new one is annotated (it used to share the first one's id, so it never was)."""
    github.add_token(ACTIONS_TOKEN, ACTIONS_BOT, installation=True)
    monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
    diff = DiffScope.parse(
        "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1,40 @@\n"
        + "".join(f"+statement_{number}()\n" for number in range(1, 41))
    )

    def post_places(lines: list[int]) -> None:
        places = [("src/app.py", line, "SQL injection") for line in lines]
        plan = review(agreed_findings(places), diff=diff)
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(report_data(plan)), encoding="utf-8")
        assert main(["post", str(path), *REPO, "--reporter", "github-check"]) in (0, 1)

    post_places([5])
    post_places([5, 30])
    [run] = github.checks.named("review-quorum")
    notes = github.checks.annotations[run["id"]]
    assert sorted(a["start_line"] for a in notes) == [5, 30]


def test_comments_an_earlier_version_posted_are_found_again_not_duplicated(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Upgrading: our comments with the old 24-digit ids on the lines of today's findings
    are rewritten with today's ids; no second comment is posted for them."""
    plan = make_plan(tmp_path, ANALYSERS)
    old = [
        {
            "path": path,
            "line": line,
            "side": "RIGHT",
            "body": f"{marker('finding', f'{n:024x}')}\nold",
        }
        for n, (path, line) in enumerate(planned_inline(plan)[:3])
    ]
    github.add_review(BOT, f"{marker('review')}\nearlier", old)
    assert main(["post", str(plan), *REPO, "--resolve-fixed"]) == 0
    err = capsys.readouterr().err
    posted = github.comments_by(BOT)
    assert len(posted) == 7  # 3 found again and rewritten, 4 new
    assert "posted 4 new inline comment(s)" in err and "3 refreshed" in err
    assert all(len(i) == 32 for c in posted for i in finding_ids(c["body"]))  # today's ids
    assert "0 marked fixed" in err


def test_a_rerun_does_not_rewrite_a_not_rechecked_note(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = make_plan(tmp_path, ANALYSERS, "first.json")
    assert main(["post", str(first), *REPO, "--resolve-fixed"]) == 0
    github.push("e" * 40, addressable(Path(DIFF)), lambda path, line: line)
    second = make_plan(tmp_path, [RUFF], "second.json")
    assert main(["post", str(second), *REPO, "--resolve-fixed"]) == 0
    capsys.readouterr()
    assert main(["post", str(second), *REPO, "--resolve-fixed"]) == 0
    err = capsys.readouterr().err
    assert "0 refreshed, 0 marked fixed" in err and "not re-checked" not in err


@pytest.mark.parametrize("edited", [False, True])
def test_a_finding_its_bots_no_longer_report_is_fixed_only_when_its_lines_changed(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str], edited: bool
) -> None:
    """Bandit runs again on the new head and no longer reports `import subprocess`
    (app/export.py:7): fixed when the push changed that line, else kept open."""
    first = make_plan(tmp_path, ANALYSERS, "first.json")
    assert main(["post", str(first), *REPO, "--resolve-fixed"]) == 0
    place = ("app/export.py", 7)
    github.push(
        "e" * 40, addressable(Path(DIFF)), lambda p, n: None if edited and (p, n) == place else n
    )
    log = json.loads((EXAMPLE / "analysers" / "bandit.sarif").read_text(encoding="utf-8"))
    results = log["runs"][0]["results"]
    log["runs"][0]["results"] = [r for r in results if r["ruleId"] != "B404"]
    bandit = tmp_path / "bandit.sarif"
    bandit.write_text(json.dumps(log), encoding="utf-8")
    inputs = [str(bandit), *(name for name in ANALYSERS if not name.endswith("bandit.sarif"))]
    second = make_plan(tmp_path, inputs, "second.json")
    capsys.readouterr()
    assert main(["post", str(second), *REPO, "--resolve-fixed"]) == 0
    err = capsys.readouterr().err
    [comment] = [c for c in github.comments_by(BOT) if c["original_line"] == 7]
    fixed = any(kind == "fixed" for kind, _ in find_markers(comment["body"]))
    assert fixed is edited
    assert ("1 marked fixed" in err) is edited
    if not edited:
        assert "no longer reported, but its lines did not change" in comment["body"]


@pytest.mark.parametrize("checkout", [False, True])
def test_with_the_checkout_a_thread_github_shows_outdated_is_fixed_only_if_its_line_changed(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str], checkout: bool
) -> None:
    """A push edits code next to `import subprocess` (app/export.py:7), so GitHub shows our
    comment there as outdated, but that line is unchanged in the head's checkout; Bandit
    runs again and no longer reports it. With `quorum post --checkout` the flagged text is
    found there and the thread stays open; without it, GitHub's word is all there is."""
    first = make_plan(tmp_path, ANALYSERS, "first.json")
    assert main(["post", str(first), *REPO, "--resolve-fixed"]) == 0
    place = ("app/export.py", 7)
    github.push("e" * 40, addressable(Path(DIFF)), lambda p, n: None if (p, n) == place else n)
    log = json.loads((EXAMPLE / "analysers" / "bandit.sarif").read_text(encoding="utf-8"))
    results = log["runs"][0]["results"]
    log["runs"][0]["results"] = [r for r in results if r["ruleId"] != "B404"]
    bandit = tmp_path / "bandit.sarif"
    bandit.write_text(json.dumps(log), encoding="utf-8")
    inputs = [str(bandit), *(name for name in ANALYSERS if not name.endswith("bandit.sarif"))]
    second = make_plan(tmp_path, inputs, "second.json")
    capsys.readouterr()
    extra = ["--checkout", str(EXAMPLE / "head")] if checkout else []
    assert main(["post", str(second), *REPO, "--resolve-fixed", *extra]) == 0
    err = capsys.readouterr().err
    [comment] = [c for c in github.comments_by(BOT) if c["original_line"] == 7]
    fixed = any(kind == "fixed" for kind, _ in find_markers(comment["body"]))
    assert fixed is not checkout
    if checkout:
        assert "no longer reported, but its lines did not change" in comment["body"]
        assert "0 marked fixed" in err
