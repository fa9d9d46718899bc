"""The thread platforms' reporters refuse what only GitHub has, before any request."""

from __future__ import annotations

import pytest

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
