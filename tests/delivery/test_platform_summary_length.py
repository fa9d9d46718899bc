"""A summary listing many findings that could not be placed: Azure DevOps and Bitbucket
cut it to the body limit (`delivery.fitting`), GitLab (whose notes take a million
characters) posts it whole, each against its stand-in."""

from __future__ import annotations

import httpx

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab import gitlab_support
from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.poster import post_pull_request as post_azure
from review_quorum.azure_devops.target import AzurePullRequest
from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.poster import post_pull_request as post_bitbucket
from review_quorum.bitbucket.target import BitbucketPullRequest
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import MAX_BODY
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.poster import post_merge_request
from review_quorum.gitlab.target import MergeRequest
from review_quorum.markup.markers import SUMMARY, find_markers, marker

COUNT = 150  # findings of about 600 characters each: well over the limit together


def draft(side: str = "RIGHT") -> ReviewDraft:
    comments = tuple(
        DraftComment(
            "src/untouched.py",
            n,
            f"{marker('finding', f'{n:024x}')}\n**HIGH** {'The count can go negative. ' * 22}",
            f"{n:024x}",
            side=side,
        )
        for n in range(1, COUNT + 1)
    )
    return ReviewDraft(body="", comments=comments, summary=f"{marker('summary')}\nSummary")


def summary_of(bodies: list[str]) -> str:
    [summary] = [b for b in bodies if (SUMMARY, "") in find_markers(b)]
    return summary


def test_azure_devops_cuts_the_summary_to_the_limit() -> None:
    fake = ado_support.new_fake()
    with httpx.Client(transport=httpx.MockTransport(fake.handle)) as http:
        client = AzureDevOpsClient(http, token=ado_support.TOKEN, api_url=fake.api_url)
        target = AzurePullRequest("contoso", "Stock Room", "stockroom", 7)
        result = post_azure(client, target, draft())
    assert result.moved_to_summary == COUNT
    text = summary_of([t["comments"][0]["content"] for t in fake.threads])
    assert len(text) <= MAX_BODY


def test_bitbucket_cuts_the_summary_to_the_limit() -> None:
    fake = bitbucket_support.new_fake()
    with httpx.Client(transport=httpx.MockTransport(fake.handle)) as http:
        client = BitbucketClient(http, token=bitbucket_support.TOKEN, api_url=fake.api_url)
        target = BitbucketPullRequest.create("acme", "stockroom", 7)
        result = post_bitbucket(client, target, draft(side="LEFT"))
    assert result.moved_to_summary == COUNT
    text = summary_of([c["content"]["raw"] for c in fake.comments])
    assert len(text) <= MAX_BODY


def test_gitlab_posts_the_whole_summary() -> None:
    fake = gitlab_support.new_fake()
    with httpx.Client(transport=httpx.MockTransport(fake.handle)) as http:
        client = GitLabClient(
            http, token=gitlab_support.TOKEN, api_url=fake.api_url, sleep=fake.time.sleep,
            clock=fake.time.clock,
        )  # fmt: skip
        result = post_merge_request(client, MergeRequest.create("acme/stockroom", 7), draft())
    assert result.moved_to_summary == COUNT
    text = summary_of(
        [n["body"] for d in fake.threads_by(gitlab_support.QUORUM) for n in d["notes"]]
    )
    assert len(text) > MAX_BODY and text.count("src/untouched.py") == COUNT


def test_a_dry_run_asked_of_the_poster_sends_nothing_on_any_platform() -> None:
    """`dry_run=True` holds even when the client itself would send (a library caller's
    client): every write is printed, none sent."""
    azure, bitbucket, gitlab = (
        ado_support.new_fake(), bitbucket_support.new_fake(), gitlab_support.new_fake()
    )  # fmt: skip
    with httpx.Client(transport=httpx.MockTransport(azure.handle)) as http:
        client = AzureDevOpsClient(http, token=ado_support.TOKEN, api_url=azure.api_url)
        target = AzurePullRequest("contoso", "Stock Room", "stockroom", 7)
        assert post_azure(client, target, draft(), dry_run=True).dry_run
        assert client.unsent
    with httpx.Client(transport=httpx.MockTransport(bitbucket.handle)) as http:
        bb = BitbucketClient(http, token=bitbucket_support.TOKEN, api_url=bitbucket.api_url)
        pull = BitbucketPullRequest.create("acme", "stockroom", 7)
        assert post_bitbucket(bb, pull, draft(), dry_run=True).dry_run
        assert bb.unsent
    with httpx.Client(transport=httpx.MockTransport(gitlab.handle)) as http:
        gl = GitLabClient(http, token=gitlab_support.TOKEN, api_url=gitlab.api_url)
        merge_request = MergeRequest.create("acme/stockroom", 7)
        assert post_merge_request(gl, merge_request, draft(), dry_run=True).dry_run
        assert gl.unsent
    assert (azure.writes(), bitbucket.writes(), gitlab.writes()) == ([], [], [])
