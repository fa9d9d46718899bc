"""`--reporter bitbucket-insights` over HTTP against the stand-in: one Code Insights report
on the head commit under our id, an annotation per finding on a line (sent in bulks of at
most 100), a re-run that sends nothing new, fixed findings' annotations removed, and a dry
run that prints the requests."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bitbucket.bitbucket_support import (
    HEAD,
    PATH,
    PULL,
    TOKEN,
    new_fake,
    over_http,
    seed_bot_comments,
)
from bitbucket.fake import FakeBitbucket
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.insights import post_insights
from review_quorum.bitbucket.target import BitbucketPullRequest
from review_quorum.cli import main
from review_quorum.render.code_insights import InsightsReport

REPORT = [
    "review", "--bitbucket", *PULL, "--reporter", "bitbucket-insights",
    "--inline-level", "unverified", "--threshold", "30", "--cap", "50", "--line-window", "0",
    "--gate-level", "unverified",
]  # fmt: skip


def annotated(fake: FakeBitbucket) -> dict[str, dict[str, Any]]:
    return fake.annotations[(HEAD[:12], "review-quorum")]


def test_report_annotations_rerun_and_fixed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert main(REPORT) == 1
        first = capsys.readouterr().err
        assert errors == []
        report = fake.reports[(HEAD[:12], "review-quorum")]
        assert (report["result"], report["report_type"]) == ("FAILED", "BUG")
        assert report["link"] == "https://bitbucket.org/acme/stockroom/pull-requests/7"
        found = annotated(fake)
        assert sorted(a["line"] for a in found.values()) == [line for _, _, line, _ in BOT_NOTES]
        assert all(a["path"] == PATH and a["result"] == "FAILED" for a in found.values())
        assert "sent 10 annotation(s), 0 unchanged, 0 removed" in first

        writes = len(fake.writes())
        assert main(REPORT) == 1
        assert [m for m, _, _ in fake.writes()[writes:]] == ["PUT"]  # the report alone
        assert "sent 0 annotation(s), 10 unchanged" in capsys.readouterr().err

        for c in fake.comments:  # cubic's finding is fixed
            if c["user"]["display_name"] == BOT_NOTES[9][1]:
                c["deleted"] = True
        assert main(REPORT) == 1
        assert errors == []
    # the agreement of each finding changed (1/9 bots now): every one is sent again
    assert "sent 9 annotation(s), 0 unchanged, 1 removed" in capsys.readouterr().err
    assert sorted(a["line"] for a in annotated(fake).values()) == [
        line for _, _, line, _ in BOT_NOTES[:9]
    ]
    assert len(fake.reports) == 1


def test_more_than_a_hundred_annotations_go_in_bulks_of_a_hundred() -> None:
    fake = new_fake()
    client = BitbucketClient(httpx.Client(transport=httpx.MockTransport(fake.handle)),
                             token=TOKEN, api_url=fake.api_url)  # fmt: skip
    items = tuple(
        {
            "external_id": f"quorum-{n}",
            "annotation_type": "BUG",
            "summary": f"Bug {n}",
            "path": PATH,
            "line": n,
        }  # fmt: skip
        for n in range(1, 251)
    )
    report = {"title": "review-quorum", "report_type": "BUG", "result": "FAILED"}
    target = BitbucketPullRequest.create("acme", "stockroom", 7)
    result = post_insights(client, target, InsightsReport(report, items, 0))
    bulks = [e for e in fake.log if e[0] == "POST" and e[1].endswith("/annotations")]
    assert len(bulks) == 3 and len(annotated(fake)) == 250 and result.sent == 250
    # a re-run with one finding gone: one deletion, nothing sent
    again = post_insights(client, target, InsightsReport(report, items[:-1], 0))
    assert (again.sent, again.unchanged, again.deleted) == (0, 249, 1)
    assert "quorum-250" not in annotated(fake)


def test_dry_run_prints_the_report_and_annotations(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert main([*REPORT, "--dry-run"]) == 1
        assert errors == [] and fake.writes() == []
    out = capsys.readouterr().out
    assert "PUT http://127.0.0.1" in out and "/reports/review-quorum" in out
    assert out.count('"external_id": "quorum-') == len(BOT_NOTES)


def test_only_findings_that_block_the_gate_are_marked_failed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_comments(fake)
        assert REPORT[-2:] == ["--gate-level", "unverified"]
        assert main([*REPORT[:-2], "--gate-level", "confirmed"]) == 0
        assert errors == []
    found = list(annotated(fake).values())
    assert len(found) == len(BOT_NOTES)
    assert all(
        "result" not in a for a in found
    )  # one bot each: nothing is confirmed, nothing blocks
    assert fake.reports[(HEAD[:12], "review-quorum")]["result"] == "PASSED"
