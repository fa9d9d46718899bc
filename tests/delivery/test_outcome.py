"""Each thread platform's log line: the same counts, in the platform's own words."""

from __future__ import annotations

from typing import Any

import pytest

from review_quorum.azure_devops.poster import AzurePostResult
from review_quorum.bitbucket.poster import BitbucketPostResult
from review_quorum.delivery.outcome import ThreadPostResult
from review_quorum.gitlab.poster import GitLabPostResult

COUNTS: dict[str, Any] = {
    "target": "o/r!7",
    "created": 1,
    "skipped_existing": 2,
    "moved_to_summary": 3,
    "reanchored": 4,
    "updated": 5,
    "resolved": 6,
    "kept_replied": 7,
    "sticky": "updated",
    "status": "failed",
    "unchecked": 8,
}


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        (
            GitLabPostResult,
            "o/r!7: would post 1 new diff discussion(s), 2 already there, 3 listed in the "
            "summary (not on the diff), 4 re-anchored after a push, 5 refreshed, 6 resolved "
            "as fixed, 7 fixed but left alone (someone replied), 8 kept open (not re-checked, "
            "or not shown changed); summary note updated; commit status failed",
        ),
        (
            AzurePostResult,
            "o/r!7: would post 1 new thread(s), 2 already there, 3 listed in the summary (not "
            "on the diff), 4 re-anchored after a push, 5 refreshed, 6 set to fixed, 7 fixed but "
            "left alone (replied to or triaged), 8 kept open (not re-checked, or not shown "
            "changed); summary thread updated; pull request status failed",
        ),
        (
            BitbucketPostResult,
            "o/r!7: would post 1 new inline comment(s), 2 already there, 3 listed in the "
            "summary (not on the diff), 4 re-anchored after a push, 5 refreshed, 6 resolved "
            "as fixed, 7 fixed but left alone (someone replied), 8 kept open (not re-checked, "
            "or not shown changed); summary comment updated; build status failed",
        ),
    ],
)
def test_the_log_line_names_every_count_in_the_platforms_words(
    kind: type[ThreadPostResult], line: str
) -> None:
    assert kind(**COUNTS, dry_run=True).describe() == line


def test_counts_of_nothing_are_left_out_and_a_real_run_posted() -> None:
    quiet = {**COUNTS, "kept_replied": 0, "unchecked": 0}
    text = GitLabPostResult(**quiet, dry_run=False).describe()
    assert text.startswith("o/r!7: posted 1 new diff discussion(s)")
    assert "left alone" not in text and "kept open" not in text
