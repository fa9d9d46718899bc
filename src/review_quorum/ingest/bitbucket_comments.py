"""Bitbucket Cloud pull request comments read into findings by the same bot readers as GitHub's.

`conversation(comments, own_uuid=...)` turns the comments Bitbucket lists into comment
records the GitHub readers know: a comment with ``inline`` (``path``, and ``to``, its line
in the new file; a comment on an old line only, ``from``, keeps it as an outdated line)
becomes an inline review comment, any other a conversation comment, and a reply
(``parent``) is never a finding. Deleted comments are counted as skipped.

Who is a bot is decided here, as for GitLab: an app account (``user.type`` ``app_user``,
what an access token or an app posts as) is a bot, read under the bot its comments'
signature names (`bots.signatures`) or else by the generic reader under its name; a
nickname with a dedicated reader (``coderabbitai``) is that bot; the configuration's
``bot-logins`` win over both; anyone else is a person. The author whose uuid is
`own_uuid` (the token's account) is named by that uuid, so that only our own marked
comments are ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import Skipped
from review_quorum.ingest.azure_devops_threads import signed_accounts
from review_quorum.ingest.base import Batch, ReadOptions, signed
from review_quorum.ingest.comments import PullComment, read_comments

DELETED = "deleted comment"
APP_ACCOUNT = "app_user"


class BitbucketConversation(msgspec.Struct, frozen=True):
    """A pull request's comments as comment records, and what was skipped and why."""

    head_sha: str
    comments: tuple[PullComment, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()


def login_of(user: object, own_uuid: str = "") -> str:
    """The name a Bitbucket account's comments are read under: our own account's uuid,
    else its nickname, else its display name."""
    if not isinstance(user, dict):
        return ""
    if own_uuid and user.get("uuid") == own_uuid:
        return own_uuid
    for key in ("nickname", "display_name"):
        value = user.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def conversation(
    comments: Sequence[object], *, head_sha: str, own_uuid: str = ""
) -> BitbucketConversation:
    """`comments` as review comments, conversation comments and replies."""
    records: list[PullComment] = []
    skipped: list[tuple[str, str]] = []
    for index, comment in enumerate(comments):
        where = f"/comments/{index}"
        if not isinstance(comment, dict):
            records.append(PullComment(comment, CommentKind.ISSUE, where))
            continue
        if comment.get("deleted") is True:
            skipped.append((where, DELETED))
            continue
        record, kind = _record(comment, own_uuid)
        records.append(PullComment(record, kind, where))
    return BitbucketConversation(head_sha, tuple(records), tuple(skipped))


def read_pull_comments(
    talk: BitbucketConversation, *, name: str = "bitbucket", options: ReadOptions | None = None
) -> Batch:
    """Every finding in the pull request's comments; deleted ones counted as skipped."""
    options = options or ReadOptions()
    batch = read_comments(
        talk.comments, name=name, options=signed(options, signed_accounts(talk.comments))
    )
    batch.skipped.extend(Skipped(name, where, reason) for where, reason in talk.skipped)
    return batch


def _record(comment: Mapping[str, Any], own_uuid: str) -> tuple[dict[str, Any], CommentKind]:
    user = comment.get("user")
    content = comment.get("content")
    record: dict[str, Any] = {
        "id": comment.get("id"),
        "user": None
        if user is None
        else {
            "login": login_of(user, own_uuid),
            "type": "Bot" if isinstance(user, dict) and user.get("type") == APP_ACCOUNT else "",
        },
        "body": content.get("raw") if isinstance(content, dict) else None,
        "created_at": comment.get("created_on"),
        "updated_at": comment.get("updated_on"),
    }
    html = comment.get("links")
    href = html.get("html", {}).get("href") if isinstance(html, dict) else None
    if isinstance(href, str):
        record["html_url"] = href
    parent = comment.get("parent")
    if isinstance(parent, dict):
        record["in_reply_to_id"] = parent.get("id") or "parent"
    inline = comment.get("inline")
    if not isinstance(inline, dict):
        return record, CommentKind.INLINE if isinstance(parent, dict) else CommentKind.ISSUE
    record["path"] = inline.get("path")
    line = inline.get("to")
    record["line"] = line
    if line is None:
        record["original_line"] = inline.get("from")
    return record, CommentKind.INLINE
