"""The reading the GitLab, Azure DevOps and Bitbucket history readers share: which comments
are ours, what was said, which account we read as, and whose signatures name bots."""

from __future__ import annotations

from review_quorum.comment_kinds import CommentKind
from review_quorum.history.pulls import reading_as
from review_quorum.history.triage import spoken
from review_quorum.ingest.base import ReadOptions, signed
from review_quorum.ingest.comments import PullComment
from review_quorum.markup.markers import FINDING, marker


def _note(number: int, login: str | None, body: str, kind: CommentKind | None) -> PullComment:
    user = {} if login is None else {"login": login}
    return PullComment({"id": number, "user": user, "body": body}, kind)


def test_only_our_accounts_marked_comments_are_ours() -> None:
    mark = marker(FINDING, "abc123")
    comments = [
        _note(1, "quorum-bot", f"{mark}\nSQL injection", CommentKind.INLINE),
        _note(2, "mallory", f"{mark}\ncopied marker", CommentKind.INLINE),
        _note(3, None, f"{mark}\nno author", CommentKind.ISSUE),
    ]
    ours, _ = spoken(comments, "quorum-bot")
    assert ours == {1: "abc123"}


def test_without_our_account_nothing_is_ours_not_even_an_authorless_comment() -> None:
    comments = [_note(3, None, marker(FINDING, "abc123"), CommentKind.ISSUE)]
    assert spoken(comments, "")[0] == {}


def test_what_was_said_leaves_out_records_of_no_kind() -> None:
    comments = [
        _note(1, "alice", "/quorum ack", CommentKind.ISSUE),
        _note(2, "gitlab", "changed the description", None),
    ]
    _, said = spoken(comments, "quorum-bot")
    assert [(kind, record["id"]) for kind, record in said] == [(CommentKind.ISSUE.source_kind, 1)]


def test_reading_as_our_account_keeps_an_account_the_user_named() -> None:
    assert reading_as(ReadOptions(), "quorum-bot") == ReadOptions(own_login="quorum-bot")
    named = ReadOptions(own_login="team-bot")
    assert reading_as(named, "quorum-bot") == named
    assert reading_as(ReadOptions(), "") == ReadOptions()
    assert reading_as(None, "quorum-bot") is None


def test_configured_bot_logins_win_over_signatures() -> None:
    options = ReadOptions(bot_logins={"token-1": "coderabbit"})
    read = signed(options, {"token-1": "copilot", "token-2": "qodo"})
    assert read.bot_logins == {"token-1": "coderabbit", "token-2": "qodo"}
