"""GitLab merge request discussions read into findings by the same bot readers as GitHub's.

`conversation(discussions, ...)` turns GitLab's discussions (each a list of notes) into the
three collections the GitHub readers know: the first note of a diff discussion becomes an
inline review comment (``path`` and ``line`` from its ``position``: ``new_path`` and
``new_line``, a multi-line note's ``line_range`` giving ``start_line``; a removed line's
``old_line`` is kept as an outdated line), every other first note a conversation comment,
and each later note of a thread a reply (``in_reply_to_id``), which is never a finding.
GitLab's system notes (the activity log) are no one's comments: they are counted as
skipped. `read_notes` then reads them with `comments.read_comments`.

GitLab's note authors carry no ``bot`` flag, so who is a bot is decided here: a project or
group access-token account (``project_<id>_bot_<hex>``, ``group_<id>_bot_<hex>``) is a bot,
read under the bot its comments' signature names (`bots.signatures`: Kodus, Cursor, Devin,
cubic, Codoki...) or else by the generic reader under its username; a username with a
dedicated reader (``coderabbitai``) is that bot; the configuration's ``bot-logins`` win
over both, as on GitHub; anyone else is a person. A signature in a person's note changes
nothing, since anyone can paste one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import Skipped
from review_quorum.ingest.base import Batch, ReadOptions, signed
from review_quorum.ingest.bots.signatures import signed_by
from review_quorum.ingest.comments import PullComment, read_comments

BOT_ACCOUNT = re.compile(r"(?:project|group)_[0-9]+_bot_[0-9A-Za-z]+")
SYSTEM_NOTE = "GitLab system note (activity log), not a comment"


class MergeRequestConversation(msgspec.Struct, frozen=True):
    """A merge request's notes in the shape of a pull request's comments."""

    head_sha: str
    review_comments: tuple[dict[str, Any], ...] = ()
    issue_comments: tuple[dict[str, Any], ...] = ()
    reviews: tuple[dict[str, Any], ...] = ()
    head_committed_at: datetime | None = None
    comments: tuple[PullComment, ...] = ()
    system: tuple[str, ...] = ()


def is_bot_account(username: object) -> bool:
    """Whether `username` is a project or group access-token account."""
    return isinstance(username, str) and bool(BOT_ACCOUNT.fullmatch(username.strip()))


def conversation(
    discussions: Sequence[object],
    *,
    head_sha: str,
    web_url: str = "",
    head_committed_at: datetime | None = None,
) -> MergeRequestConversation:
    """The notes of `discussions` as review comments, conversation comments and replies."""
    comments: list[PullComment] = []
    system: list[str] = []
    for number, discussion in enumerate(discussions):
        if not isinstance(discussion, dict):
            comments.append(PullComment(discussion, CommentKind.ISSUE, f"/discussions/{number}"))
            continue
        notes = discussion.get("notes")
        if not isinstance(notes, list):  # read as one record: skipped, saying what it is
            where = f"/discussions/{number}/notes"
            comments.append(PullComment(notes, CommentKind.ISSUE, where))
            continue
        first: object = None
        for index, note in enumerate(notes):
            where = f"/discussions/{number}/notes/{index}"
            if isinstance(note, dict) and note.get("system") is True:
                system.append(where)
                continue
            record, kind = _record(note, first, web_url)
            if first is None:  # later notes answer this one, whatever its id looks like
                first = (record or {}).get("id") or where
            comments.append(PullComment(record if record is not None else note, kind, where))
    inline = [c.record for c in comments if c.kind is CommentKind.INLINE]
    general = [c.record for c in comments if c.kind is CommentKind.ISSUE]
    return MergeRequestConversation(
        head_sha=head_sha,
        review_comments=tuple(r for r in inline if isinstance(r, dict)),
        issue_comments=tuple(r for r in general if isinstance(r, dict)),
        head_committed_at=head_committed_at,
        comments=tuple(comments),
        system=tuple(system),
    )


def read_notes(
    talk: MergeRequestConversation, *, name: str = "gitlab", options: ReadOptions | None = None
) -> Batch:
    """Every finding in the merge request's notes; system notes are counted as skipped."""
    options = options or ReadOptions()
    batch = read_comments(
        talk.comments, name=name, options=signed(options, signed_accounts(talk.comments))
    )
    batch.skipped.extend(Skipped(name, where, SYSTEM_NOTE) for where in talk.system)
    return batch


def signed_accounts(comments: Iterable[PullComment]) -> dict[str, str]:
    """Access-token accounts mapped to the bot their notes' signatures name (one bot each)."""
    signed: dict[str, Counter[str]] = {}
    for comment in comments:
        record = comment.record if isinstance(comment.record, dict) else {}
        login, body = _login(record), record.get("body")
        bot = signed_by(body) if isinstance(body, str) and is_bot_account(login) else ""
        if bot:
            signed.setdefault(str(login), Counter())[bot] += 1
    return {login: bots.most_common(1)[0][0] for login, bots in signed.items() if len(bots) == 1}


def _record(note: object, first: object, web_url: str) -> tuple[dict[str, Any] | None, CommentKind]:
    """One note as a GitHub-shaped record and its kind; None for a note that is no object."""
    if not isinstance(note, dict):
        return None, CommentKind.ISSUE
    author = note.get("author")
    username = author.get("username") if isinstance(author, dict) else None
    record: dict[str, Any] = {
        "id": note.get("id"),
        "user": None if author is None else {"login": username, "type": _type(username)},
        "body": note.get("body"),
        "created_at": note.get("created_at"),
        "updated_at": note.get("updated_at"),
    }
    if isinstance(note.get("id"), int) and web_url:
        record["html_url"] = f"{web_url}#note_{note['id']}"
    if first is not None:
        record["in_reply_to_id"] = first
    position = note.get("position")
    if not isinstance(position, dict) or position.get("position_type") != "text":
        return record, CommentKind.INLINE if first is not None else CommentKind.ISSUE
    record.update(_place(position))
    return record, CommentKind.INLINE


def _place(position: Mapping[str, Any]) -> dict[str, Any]:
    """``path``, ``line``, ``start_line`` and ``commit_id`` of a text position."""
    line, start = position.get("new_line"), _range_start(position.get("line_range"))
    place: dict[str, Any] = {
        "path": position.get("new_path") or position.get("old_path"),
        "line": line,
        "commit_id": position.get("head_sha"),
    }
    if line is None:
        place["original_line"] = position.get("old_line")
    if isinstance(start, int) and isinstance(line, int) and start < line:
        place["start_line"] = start
    return place


def _range_start(line_range: object) -> object:
    start = line_range.get("start") if isinstance(line_range, dict) else None
    return start.get("new_line") if isinstance(start, dict) else None


def _type(username: object) -> str:
    """GitHub's ``user.type`` for a GitLab author: Bot for access-token accounts, else
    unknown (GitLab does not say), which lets a known bot's username find its reader."""
    return "Bot" if is_bot_account(username) else ""


def _login(record: Mapping[str, Any]) -> object:
    user = record.get("user")
    return user.get("login") if isinstance(user, dict) else None
