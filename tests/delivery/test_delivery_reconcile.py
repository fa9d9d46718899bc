"""What every poster decides alike (`delivery.reconcile`), one row per case, and the same
rules seen through GitHub's and GitLab's readers: ours is our login in any case, never an
empty one; a fixed comment or one without a fingerprint is not live; line endings and outer
space do not make a comment stale; a finding gone is marked fixed unless someone replied."""

from __future__ import annotations

from typing import Any

import pytest

from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.reconcile import gone, is_ours, live_fingerprint, normal
from review_quorum.github.reconcile import index, writes_for
from review_quorum.github.remote import RemoteComment
from review_quorum.gitlab.reconcile import find_ours
from review_quorum.markup.markers import marker

FINDING = marker("finding", "fp1")
SUMMARY = marker("summary")


@pytest.mark.parametrize(
    ("author", "login", "ours"),
    [
        ("quorum-bot", "quorum-bot", True),
        ("Quorum-Bot", "quorum-bot", True),
        ("quorum-bot", "QUORUM-BOT", True),
        ("alice", "quorum-bot", False),
        ("", "", False),
        ("quorum-bot", "", False),
    ],
)
def test_ours_is_our_login_in_any_case_and_never_an_empty_one(
    author: str, login: str, ours: bool
) -> None:
    assert is_ours(author, login) is ours


@pytest.mark.parametrize(
    ("body", "fingerprint"),
    [
        (f"{FINDING}\nThe count can go negative.", "fp1"),
        (f"{FINDING}\n{marker('fixed', 'abc')}\n~~The count~~", None),
        (f"{marker('finding')}\nA marker without a fingerprint.", None),
        (f"{marker('summary')}\nThe review.", None),
        ("No marker at all.", None),
    ],
)
def test_a_comment_is_live_when_it_names_a_finding_not_yet_fixed(
    body: str, fingerprint: str | None
) -> None:
    assert live_fingerprint(body) == fingerprint


@pytest.mark.parametrize(
    ("posted", "drafted", "same"),
    [
        ("line one\r\nline two", "line one\nline two", True),
        ("line one\nline two\n\n", "line one\nline two", True),
        ("  line one", "line one", True),
        ("line one\nline three", "line one\nline two", False),
    ],
)
def test_line_endings_and_outer_space_do_not_make_a_comment_stale(
    posted: str, drafted: str, same: bool
) -> None:
    assert (normal(posted) == normal(drafted)) is same


def draft(*fingerprints: str) -> ReviewDraft:
    comments = tuple(
        DraftComment("app.py", 10, f"{marker('finding', fp)}\nText\nMore", fp)
        for fp in fingerprints
    )
    return ReviewDraft(body="", comments=comments, summary=marker("summary"))


@pytest.mark.parametrize(
    ("reported", "replied", "fixed", "kept"),
    [
        ((), set(), ["a", "b"], 0),
        ((), {"b"}, ["a"], 1),
        (("a",), set(), ["b"], 0),
        (("a", "b"), {"a"}, [], 0),
    ],
)
def test_a_finding_gone_is_marked_fixed_unless_someone_replied(
    reported: tuple[str, ...], replied: set[str], fixed: list[str], kept: int
) -> None:
    live = {"a": ["a"], "b": ["b"]}
    marked, left = gone(draft(*reported), live, lambda thread: thread in replied)
    assert ([fingerprint for _, fingerprint in marked], left) == (fixed, kept)


def remote(comment_id: int, author: str, body: str, reply_to: int | None = None) -> RemoteComment:
    return RemoteComment(comment_id, author, body, "app.py", 10, 1, reply_to)


def test_github_reads_ours_whatever_the_case_and_ignores_blank_differences() -> None:
    posted = remote(1, "Quorum-Bot", f"{FINDING}\nText\r\nMore\n")
    existing = index("quorum-bot", [], [posted], [])
    writes = writes_for(draft("fp1"), existing, resolve_fixed=True)
    assert list(existing.live) == ["fp1"]
    assert (writes.to_post, writes.to_update, writes.to_resolve) == ((), (), ())


def test_github_our_own_reply_is_no_reason_to_leave_a_thread() -> None:
    comments = [remote(1, "quorum-bot", f"{FINDING}\nOld"), remote(2, "Quorum-Bot", "ok", 1)]
    existing = index("quorum-bot", [], comments, [])
    assert existing.replied == frozenset()
    writes = writes_for(draft(), existing, resolve_fixed=False)
    assert writes.to_resolve == () and writes.kept_replied == 0


def note(author: str, body: str, **extra: Any) -> dict[str, Any]:
    return {"id": 7, "author": {"username": author}, "body": body, **extra}


@pytest.mark.parametrize(
    ("login", "notes", "replied"),
    [
        ("quorum-bot", [note("Quorum-Bot", FINDING)], False),
        ("quorum-bot", [note("quorum-bot", FINDING), note("alice", "no")], True),
        ("quorum-bot", [note("quorum-bot", FINDING), note("QUORUM-BOT", "ok")], False),
        ("quorum-bot", [note("quorum-bot", FINDING), note("alice", "moved", system=True)], False),
    ],
)
def test_gitlab_reads_ours_whatever_the_case_and_who_replied(
    login: str, notes: list[dict[str, Any]], replied: bool
) -> None:
    ours = find_ours(login, [{"id": "d1", "notes": notes}])
    [thread] = ours.live["fp1"]
    assert thread.replied is replied


def test_gitlab_with_no_login_nothing_is_ours() -> None:
    discussions = [{"id": "d1", "notes": [{"id": 7, "body": FINDING}]}]
    assert find_ours("", discussions).live == {}


def test_gitlab_the_sticky_is_our_first_summary_note() -> None:
    discussions = [
        {"id": "d1", "notes": [{"id": 7, "author": {"username": "quorum-bot"}, "body": SUMMARY}]},
        {"id": "d2", "notes": [{"id": 8, "author": {"username": "quorum-bot"}, "body": SUMMARY}]},
    ]
    assert find_ours("quorum-bot", discussions).sticky == 7
