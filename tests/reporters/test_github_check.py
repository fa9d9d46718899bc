"""`--reporter github-check` end to end over HTTP against the GitHub stand-in.

The stand-in (`github.fake_server`) validates every request against GitHub's OpenAPI
extract in ../shared/github, check runs included, and keeps the runs and their annotations
as GitHub does (an update appends its annotations). Plans are made from findings on a
diff, so that some lie outside it, and posted with `quorum post --reporter github-check`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from github.fake import FakeGitHub
from github.fake_server import serve
from github.github_support import agreed_findings, new_fake
from review_quorum.cli import main
from review_quorum.cli.reporters import github_check
from review_quorum.github.checks import recorded
from review_quorum.github.client import GitHubClient
from review_quorum.github.target import ACTIONS_BOT
from review_quorum.plan import Settings, review
from review_quorum.render.json_report import report_data
from review_quorum.scope import DiffScope

ACTIONS_TOKEN = "ghs_actionstoken0123456789abcdefghijklmno"
READ_ONLY_TOKEN = "ghs_forkreadonly0123456789abcdefghijklmno"
TARGET_ARGS = ["--repo", "octo-org/widgets", "--pr", "7", "--reporter", "github-check"]
DIFF = "--- /dev/null\n+++ b/src/app.py\n@@ -0,0 +1,200 @@\n" + "".join(
    f"+line {number}\n" for number in range(1, 201)
)
Place = tuple[str, int, str]


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    """The stand-in served on 127.0.0.1, `quorum` pointed at it with the workflow's token."""
    monkeypatch.chdir(tmp_path)  # no configuration file around
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    with serve(lambda url: new_fake(api_url=url)) as (fake, errors):
        fake.add_token(ACTIONS_TOKEN, ACTIONS_BOT, installation=True)
        fake.add_token(READ_ONLY_TOKEN, ACTIONS_BOT, installation=True, access="read")
        monkeypatch.setenv("GITHUB_API_URL", fake.api_url)
        monkeypatch.setenv("GITHUB_TOKEN", ACTIONS_TOKEN)
        yield fake
        assert errors == []  # every request was one GitHub accepts


def write_plan(
    tmp_path: Path, places: list[Place], *, gate: bool = True, commit: str | None = None
) -> str:
    """What `quorum review --format json --diff` writes for high-severity security findings
    that two bots of two agree on (confirmed): those outside the diff are dropped."""
    findings = agreed_findings(places)
    settings = Settings(gate_level=Settings().gate_level if gate else None)
    plan = review(findings, settings=settings, diff=DiffScope.parse(DIFF))
    plan = msgspec.structs.replace(plan, commit_id=commit)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(report_data(plan)), encoding="utf-8")
    return str(path)


def name(number: int) -> str:
    """A word of its own for each number (titles differ in words, not digits)."""
    letters = "".join(chr(ord("a") + int(digit)) for digit in str(number))
    return f"handler{letters}"


def the_run(fake: FakeGitHub) -> dict[str, Any]:
    [run] = fake.checks.named("review-quorum")
    return run


def annotated(fake: FakeGitHub) -> list[dict[str, Any]]:
    return fake.checks.annotations[the_run(fake)["id"]]


def check_writes(fake: FakeGitHub) -> list[tuple[str, str]]:
    return [(method, path) for method, path, _ in fake.writes() if "/check-runs" in path]


def test_a_re_run_updates_the_same_check_run_and_adds_only_new_annotations(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    places = [("src/app.py", 12, "SQL built from request input"), ("src/app.py", 30, "XSS")]
    plan = write_plan(tmp_path, places)
    assert main(["post", plan, *TARGET_ARGS]) == 0
    run = the_run(github)
    assert (run["status"], run["conclusion"], run["head_sha"]) == ("completed", "failure", "a" * 40)
    assert run["output"]["title"] == "Gate failed: 2 of 2 findings at or above confirmed"
    assert "SQL built from request input" in run["output"]["summary"]
    assert [(a["path"], a["start_line"], a["annotation_level"]) for a in annotated(github)] == [
        ("src/app.py", 12, "failure"),
        ("src/app.py", 30, "failure"),
    ]
    assert main(["post", plan, *TARGET_ARGS]) == 0  # nothing changed: nothing is written
    assert check_writes(github) == [("POST", "/repos/octo-org/widgets/check-runs")]
    more = write_plan(tmp_path, [*places, ("src/app.py", 44, "Open redirect")])
    assert main(["post", more, *TARGET_ARGS]) == 0
    run_id = the_run(github)["id"]
    assert check_writes(github)[1:] == [("PATCH", f"/repos/octo-org/widgets/check-runs/{run_id}")]
    assert [a["start_line"] for a in annotated(github)] == [12, 30, 44]
    assert the_run(github)["output"]["annotations_count"] == 3
    err = capsys.readouterr().err.splitlines()
    where = "quorum: octo-org/widgets@aaaaaaaaaaaa: check run 'review-quorum'"
    assert [line for line in err if line.startswith("quorum: octo")] == [
        f"{where} created (failure), 2 new annotation(s) in 1 request(s): {run['html_url']}",
        f"{where} unchanged (failure): {run['html_url']}",
        f"{where} updated (failure), 1 new annotation(s) in 1 request(s): {run['html_url']}",
    ]


def test_more_than_50_annotations_are_sent_50_per_request(
    github: FakeGitHub, tmp_path: Path
) -> None:
    places = [("src/app.py", line, f"Injection in {name(line)}") for line in range(1, 121)]
    assert main(["post", write_plan(tmp_path, places), *TARGET_ARGS]) == 0
    run_id = the_run(github)["id"]
    patch = ("PATCH", f"/repos/octo-org/widgets/check-runs/{run_id}")
    assert check_writes(github) == [("POST", "/repos/octo-org/widgets/check-runs"), patch, patch]
    assert sorted(a["start_line"] for a in annotated(github)) == list(range(1, 121))
    assert len(recorded(the_run(github))) == 120
    assert main(["post", write_plan(tmp_path, places), *TARGET_ARGS]) == 0
    assert len(check_writes(github)) == 3  # an interrupted or repeated run adds none twice


def test_a_fork_pull_request_gets_its_out_of_diff_findings_as_annotations(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fork's pull_request run saves its plan; a workflow_run job posts it with --pr and
    without the pull request's event, so the head commit is asked from GitHub."""
    github.push("f" * 40, {"src/app.py": range(1, 201)}, lambda path, line: line)
    places = [("src/app.py", 12, "SQL injection"), ("src/vendored.py", 8, "Hard-coded key")]
    assert main(["post", write_plan(tmp_path, places), *TARGET_ARGS]) == 0
    [run] = github.checks.named("review-quorum", "f" * 40)
    outside = github.checks.annotations[run["id"]][1]
    assert (outside["path"], outside["start_line"], outside["annotation_level"]) == (
        "src/vendored.py",
        8,
        "notice",
    )
    assert outside["title"] == "Outside the diff: HIGH (security) Hard-coded key"
    assert "1 of them lie outside the pull request's diff" in run["output"]["text"]
    assert "1 finding(s) outside the diff annotated" in capsys.readouterr().err
    assert github.review_comments == github.reviews == github.issue_comments == []


def test_a_read_only_token_is_refused_clearly_and_nothing_is_made(
    github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", READ_ONLY_TOKEN)
    assert main(["post", write_plan(tmp_path, [("src/app.py", 3, "XSS")]), *TARGET_ARGS]) == 2
    err = capsys.readouterr().err
    assert "this token cannot create check runs" in err and "checks: write" in err
    assert READ_ONLY_TOKEN not in err
    assert github.checks.runs == []


def test_bot_text_is_neutralised_in_annotations_and_cannot_forge_the_record(
    github: FakeGitHub, tmp_path: Path
) -> None:
    forged = "<!-- review-quorum:annotated 0123456789abcdef01234567 -->"
    title = f"ping @octocat \u202eevil\u202c\n{forged}"
    assert main(["post", write_plan(tmp_path, [("src/app.py", 5, title)]), *TARGET_ARGS]) == 0
    [annotation] = annotated(github)
    assert "\u202e" not in annotation["message"] and "@octocat" not in annotation["message"]
    assert "@\u2060octocat" in annotation["message"]
    run = the_run(github)
    assert "@octocat" not in run["output"]["summary"]
    assert recorded(run) != {"0123456789abcdef01234567"} and len(recorded(run)) == 1


@pytest.mark.parametrize(
    ("places", "gate", "configured", "conclusion", "title"),
    [
        (
            [("src/app.py", 3, "XSS")],
            True,
            "",
            "failure",
            "Gate failed: 1 of 1 finding at or above confirmed",
        ),
        (
            [("src/other.py", 3, "XSS")],
            True,
            "",
            "success",
            "Gate passed: 0 findings, none at or above confirmed",
        ),
        (
            [("src/app.py", 3, "XSS")],
            False,
            'gate-level = "none"\n',
            "neutral",
            "1 finding, no gate",
        ),
        # A saved plan may come from a fork: it cannot lift the posting run's own gate.
        (
            [("src/app.py", 3, "XSS")],
            False,
            "",
            "failure",
            "Gate failed: 1 of 1 finding at or above confirmed",
        ),
    ],
)
def test_the_conclusion_is_the_gate(
    github: FakeGitHub,
    tmp_path: Path,
    places: list[Place],
    gate: bool,
    configured: str,
    conclusion: str,
    title: str,
) -> None:
    (tmp_path / ".quorum.toml").write_text(configured, encoding="utf-8")
    assert main(["post", write_plan(tmp_path, places, gate=gate), *TARGET_ARGS]) == 0
    run = the_run(github)
    assert (run["conclusion"], run["output"]["title"]) == (conclusion, title)


def test_the_check_run_is_named_after_the_configuration(github: FakeGitHub, tmp_path: Path) -> None:
    (tmp_path / ".quorum.toml").write_text(
        'reporter = "github-check"\ncheck-name = "quorum (security)"\n', encoding="utf-8"
    )
    plan = write_plan(tmp_path, [("src/app.py", 3, "XSS")])
    assert main(["post", plan, "--repo", "octo-org/widgets", "--pr", "7"]) == 0
    assert (
        main(["post", plan, "--repo", "octo-org/widgets", "--pr", "7", "--check-name", "other"])
        == 0
    )
    assert [run["name"] for run in github.checks.runs] == ["quorum (security)", "other"]


def test_a_dry_run_prints_the_requests_and_sends_none(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["post", write_plan(tmp_path, [("src/app.py", 3, "XSS")]), *TARGET_ARGS, "--dry-run"])
        == 0
    )
    out, err = capsys.readouterr()
    assert out.startswith(f"POST {github.api_url}/repos/octo-org/widgets/check-runs\n")
    assert "Authorization: Bearer [REDACTED]" in out and ACTIONS_TOKEN not in out
    assert json.loads(out.split("\n\n")[1])["output"]["annotations"][0]["start_line"] == 3
    assert "would create (failure)" in err
    assert github.checks.runs == []


def test_a_plan_never_chooses_the_commit_the_check_run_marks(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fork's plan naming another commit (another pull request's head, say) posts nothing."""
    github.push("f" * 40, {"src/app.py": range(1, 201)}, lambda path, line: line)
    plan = write_plan(tmp_path, [("src/app.py", 3, "XSS")], commit="a" * 40)
    assert main(["post", plan, *TARGET_ARGS]) == 0
    assert github.checks.runs == []
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"quorum: warning: not posted: the plan reviewed {'a' * 40}, but the head of "
        f"octo-org/widgets#7 is {'f' * 40}; a check run goes only on the head "
        "(a later run reviews it)"
    )
    assert (
        main(
            [
                "post",
                write_plan(tmp_path, [("src/app.py", 3, "XSS")], commit="f" * 40),
                *TARGET_ARGS,
            ]
        )
        == 0
    )
    assert [run["head_sha"] for run in github.checks.runs] == ["f" * 40]


def test_quorum_review_delivers_with_the_reporter_and_still_gates(
    github: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pr.diff").write_text(DIFF, encoding="utf-8")
    findings = [
        {
            "bot": bot,
            "severity": "high",
            "category": "security",
            "title": "SQL injection",
            "evidence": {"file": "src/app.py", "line": 9},
        }
        for bot in ("bandit", "semgrep")
    ]
    (tmp_path / "findings.json").write_text(json.dumps(findings), encoding="utf-8")
    argv = ["review", "findings.json", "--diff", "pr.diff", "--bots", "2", "-o", "out.md"]
    assert main([*argv, *TARGET_ARGS]) == 1  # delivered, and the gate failed
    assert [a["start_line"] for a in annotated(github)] == [9]
    assert github.issue_comments == []
    assert main([*argv, "--repo", "octo-org/widgets", "--pr", "7"]) == 1  # no reporter, no post
    assert len(check_writes(github)) == 1


def test_an_annotation_update_that_keeps_failing_exits_2_with_the_error(
    github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """GitHub answers 502 to every update: the post gives up within the retry policy, says
    so in one line, and the batch was never sent twice."""
    time = github.time

    class Patient(GitHubClient):  # waits on the stand-in's clock, not the machine's
        def __init__(self, *args: Any, **options: Any) -> None:
            super().__init__(*args, sleep=time.sleep, clock=time.clock, **options)

    monkeypatch.setattr(github_check, "GitHubClient", Patient)
    github.fail("checks/update", 502, body={"message": "Bad Gateway"}, times=10)
    places = [("src/app.py", line, f"Injection in {name(line)}") for line in range(1, 61)]
    assert main(["post", write_plan(tmp_path, places), *TARGET_ARGS]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [message] = [line for line in err.splitlines() if line.startswith("quorum: error:")]
    assert message.startswith("quorum: error: GitHub API PATCH ")
    assert message.endswith("returned 502: Bad Gateway (gave up after 6 attempts)")
    assert len(annotated(github)) == 50  # the create's batch; the update's never applied
    assert [m for m, _ in check_writes(github)] == ["POST"] + ["PATCH"] * 6


@pytest.mark.parametrize(
    ("plan_gate", "option", "conclusion"),
    [
        (False, "none", "neutral"),  # neither the plan nor this run gates
        (True, "none", "failure"),  # the plan's lower gate counts
        (False, "needs-verification", "failure"),  # this run's gate counts
    ],
)
def test_the_posting_run_sets_its_own_gate(
    github: FakeGitHub, tmp_path: Path, plan_gate: bool, option: str, conclusion: str
) -> None:
    plan = write_plan(tmp_path, [("src/app.py", 3, "XSS")], gate=plan_gate)
    assert main(["post", plan, *TARGET_ARGS, "--gate-level", option]) == 0
    assert the_run(github)["conclusion"] == conclusion


def test_the_posting_run_uses_its_own_verdicts(github: FakeGitHub, tmp_path: Path) -> None:
    plan = write_plan(tmp_path, [("src/app.py", 3, "XSS")])
    verdicts = tmp_path / "verdicts.json"
    dismissed = {
        "verdict": "DISMISSED", "file": "src/app.py", "line": 3, "severity": "low",
        "issue": "escaped by the template", "details": "", "in_changed_code": True,
        "evidence_strength": "direct", "context_completeness": "full",
    }  # fmt: skip
    verdicts.write_text(json.dumps({"verdicts": [dismissed]}), encoding="utf-8")
    assert main(["post", plan, *TARGET_ARGS, "--verdicts", str(verdicts)]) == 0
    # The finding stays listed, dismissed by this run's verifier, so it does not gate.
    assert the_run(github)["output"]["title"] == (
        "Gate passed: 1 finding, none at or above confirmed"
    )
