"""Idempotence as a property: any sequence of runs leaves one live comment per reported finding,
and resolving fixed ones leaves no other, except those posted on the head commit."""

from __future__ import annotations

import functools
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from github.fake import FakeGitHub
from github.github_support import BOT, TARGET, TOKEN, comment, draft, new_fake
from review_quorum.github import post_review
from review_quorum.markup.markers import find_markers

POOL = [f"fp{index}" for index in range(8)]
LINES = range(1, 40)

findings = st.dictionaries(st.sampled_from(POOL), st.sampled_from(LINES), max_size=len(POOL))
runs = st.lists(st.tuples(findings, st.booleans(), st.integers(0, 5)), min_size=1, max_size=4)


def live(fake: FakeGitHub) -> Counter[str]:
    counts: Counter[str] = Counter()
    for item in fake.comments_by(BOT):
        kinds = dict(find_markers(item["body"]))
        if "fixed" not in kinds:
            counts[kinds["finding"]] += 1
    return counts


def _moved(path: str, line: int, by: int) -> int | None:
    return line + by


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs)
def test_any_sequence_of_runs_keeps_one_live_comment_per_reported_finding(
    sequence: list[tuple[dict[str, int], bool, int]],
) -> None:
    fake = new_fake()
    fake.set_diff({"src/app.py": range(1, 50)})
    for reported, resolve_fixed, shift in sequence:
        if shift:
            moved = {"src/app.py": range(1, 50)}
            fake.push(f"{shift:040x}", moved, functools.partial(_moved, by=shift))
        plan = [comment(fingerprint, "src/app.py", line) for fingerprint, line in reported.items()]
        post_review(fake.client(TOKEN), TARGET, draft(plan), env={}, resolve_fixed=resolve_fixed)
        counts = live(fake)
        assert all(counts[fingerprint] == 1 for fingerprint in reported)
        assert max(counts.values(), default=0) <= 1
        if resolve_fixed:  # what is gone is fixed, unless it was reported on this head
            here = {
                dict(find_markers(item["body"]))["finding"]
                for item in fake.comments_by(BOT)
                if item["original_commit_id"] == fake.head_sha
            }
            assert set(reported) <= set(counts) <= set(reported) | here
        assert len(fake.issue_comments_by(BOT)) == 1
        assert all(review["state"] != "PENDING" for review in fake.reviews)
    again = post_review(fake.client(TOKEN), TARGET, draft(plan), env={})
    assert (again.created, again.reviews) == (0, 0)
