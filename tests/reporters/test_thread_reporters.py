"""The thread platforms' reporters refuse what only GitHub has, before any request."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main
from review_quorum.cli.posting import PostingOptions
from review_quorum.cli.reporters import REPORTERS, Delivery
from review_quorum.errors import ConfigError
from review_quorum.model import Evidence, NormalizedFinding, Severity
from review_quorum.plan import Settings, review

PLATFORMS = [
    ("gitlab-mr", "GitLab notes", "GitLab"),
    ("azure-devops-pr", "Azure DevOps comments", "Azure DevOps"),
    ("bitbucket-pr", "Bitbucket comments", "Bitbucket"),
]
FINDING = NormalizedFinding(
    "bandit", "b-1", Severity.HIGH, "security", "SQL injection", Evidence("app.py", 3)
)


def delivery(options: PostingOptions, settings: Settings = Settings(bots_ran=1)) -> Delivery:
    plan = review([FINDING], settings=settings)
    return Delivery(plan, "plan.json", options, {})  # no token, no client: nothing is sent


@pytest.mark.parametrize(("reporter", "comments", "platform"), PLATFORMS)
def test_hiding_duplicates_is_refused_by_name(reporter: str, comments: str, platform: str) -> None:
    with pytest.raises(ConfigError) as caught:
        REPORTERS[reporter](delivery(PostingOptions(hide_duplicates=True, dry_run=True)))
    assert str(caught.value) == f"--hide-duplicates: {comments} cannot be minimized (GitHub only)"


@pytest.mark.parametrize(("reporter", "comments", "platform"), PLATFORMS)
def test_link_mode_is_refused_by_name(reporter: str, comments: str, platform: str) -> None:
    linked = Settings(bots_ran=1, inline_mode="link")
    with pytest.raises(ConfigError) as caught:
        REPORTERS[reporter](delivery(PostingOptions(dry_run=True), linked))
    assert str(caught.value) == (
        f"--inline-mode link links to GitHub comments: use post on {platform}"
    )


@pytest.mark.parametrize(("reporter", "comments", "platform"), PLATFORMS)
def test_the_link_mode_flag_is_refused_with_a_plan_made_to_post(
    reporter: str, comments: str, platform: str
) -> None:
    """`quorum post PLAN --inline-mode link` with a plan of inline comments: the flag is
    refused as the plan's mode is, not dropped while the inline comments are posted."""
    with pytest.raises(ConfigError) as caught:
        REPORTERS[reporter](delivery(PostingOptions(inline_mode="link", dry_run=True)))
    assert str(caught.value) == (
        f"--inline-mode link links to GitHub comments: use post on {platform}"
    )


POSTED_TO = {
    "gitlab-mr": (["--project", "group/project", "--mr", "4"], '"state": "failed"'),
    "azure-devops-pr": (
        ["--organization", "org", "--project", "proj", "--repo", "repo", "--pr", "4"],
        '"state": "failed"',
    ),
    "bitbucket-pr": (["--repo", "work/repo", "--pr", "4"], '"state": "FAILED"'),
    "bitbucket-insights": (["--repo", "work/repo", "--pr", "4"], '"result": "FAILED"'),
}
TOKENS = ("GITLAB_TOKEN", "AZURE_DEVOPS_TOKEN", "SYSTEM_ACCESSTOKEN", "BITBUCKET_TOKEN")


@pytest.mark.parametrize("reporter", sorted(POSTED_TO))
def test_a_saved_plan_cannot_lift_the_posting_runs_gate(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reporter: str,
) -> None:
    """A plan saved with --gate-level none posts the gate of the posting run (confirmed by
    default, which its confirmed finding fails), as `quorum post --gate-level` says: a
    plan may lower the run's gate, never lift it."""
    for name in TOKENS:
        monkeypatch.delenv(name, raising=False)
    findings, diff = FIXTURES / "review.findings.json", FIXTURES / "review.pr.diff"
    plan = str(tmp_path / "plan.json")
    saving = ["review", str(findings), "--diff", str(diff), "--gate-level", "none"]
    assert main([*saving, "--format", "json", "-o", plan]) == 0
    target, failed = POSTED_TO[reporter]
    capsys.readouterr()
    assert main(["post", plan, "--reporter", reporter, *target, "--dry-run"]) == 0
    assert failed in capsys.readouterr().out


def test_a_client_is_connected_with_the_commands_dry_run_clock_and_sleeper(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`connected` makes the client as the command says (a dry run without a token is
    offline, not refused), with the command line's clock and sleeper, and leaves an
    injected HTTP client open for its owner."""
    import httpx

    from review_quorum.cli import github_input
    from review_quorum.cli.reporters.threads import connected
    from review_quorum.gitlab.client import GitLabClient

    time = github_input.Timing(sleep=lambda seconds: None, clock=lambda: 12.0)
    monkeypatch.setattr(github_input, "TIMING", time)
    http = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    given = delivery(PostingOptions(dry_run=True))
    given = Delivery(given.plan, given.source, given.options, {}, http=http)
    with connected(given, GitLabClient.from_env, "group/project!1") as client:
        assert client.offline and client.dry_run
        assert client._clock is time.clock and client._sleep is time.sleep
    assert not http.is_closed


@pytest.mark.parametrize("number", ["\u00b2", "9" * 5000])
@pytest.mark.parametrize(
    ("resolve", "env"),
    [
        (
            "gitlab",
            {"CI_PROJECT_ID": "5", "CI_MERGE_REQUEST_IID": "{}"},
        ),
        (
            "azure",
            {
                "SYSTEM_COLLECTIONURI": "https://dev.azure.com/org/",
                "SYSTEM_TEAMPROJECT": "proj",
                "BUILD_REPOSITORY_NAME": "repo",
                "SYSTEM_PULLREQUEST_PULLREQUESTID": "{}",
            },
        ),
        (
            "bitbucket",
            {"BITBUCKET_WORKSPACE": "w", "BITBUCKET_REPO_SLUG": "r", "BITBUCKET_PR_ID": "{}"},
        ),
    ],
)
def test_a_pipeline_variable_that_is_no_request_number_names_no_request(
    resolve: str, env: dict[str, str], number: str
) -> None:
    """A digit int() does not take ('²', which str.isdigit accepts) or thousands of digits
    raised ValueError (exit 3); as 'abc' does, it names no pull request."""
    from review_quorum.azure_devops.target import resolve_pull_request as azure
    from review_quorum.bitbucket.target import resolve_pull_request as bitbucket
    from review_quorum.gitlab.target import resolve_merge_request as gitlab

    variables = {name: value.format(number) for name, value in env.items()}
    with pytest.raises(ConfigError, match="^no (merge|Azure DevOps pull|Bitbucket pull) request"):
        if resolve == "gitlab":
            gitlab(None, None, variables)
        elif resolve == "azure":
            azure(None, None, None, None, variables)
        else:
            bitbucket(None, None, variables)
