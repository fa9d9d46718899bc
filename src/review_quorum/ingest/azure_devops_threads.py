"""Azure DevOps pull request threads read into findings by the same bot readers as GitHub's.

`conversation(threads, own_id=...)` turns the threads Azure DevOps lists (each a list of
comments) into comment records the GitHub readers know: the first comment of a thread
anchored on a file (``threadContext``: ``filePath`` without its leading ``/``, the right
side's ``rightFileEnd.line`` as the line and ``rightFileStart.line`` as the start of a
range; a left-side-only thread keeps its line as an outdated one) becomes an inline review
comment, the first comment of any other thread a conversation comment, and every later
comment a reply (never a finding). System comments (``commentType: system``, the activity
log) are counted as skipped, and so are deleted comments and threads.

Azure DevOps identities carry no ``bot`` flag, so who is a bot is decided here: a service
identity (a descriptor starting ``svc.``, a ``Build\\`` unique name, or a "Build Service"
display name: what a pipeline's token posts as) is a bot, read under the bot its comments'
signature names (`bots.signatures`) or else by the generic reader under its name; a name
with a dedicated reader (``coderabbitai``) is that bot; the configuration's ``bot-logins``
win over both; anyone else is a person. The comment author whose id is `own_id` (the
token's identity) is named by that id, so that only our own marked comments are ours.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import Skipped
from review_quorum.ingest.base import Batch, ReadOptions, signed
from review_quorum.ingest.bots.signatures import signed_by
from review_quorum.ingest.comments import PullComment, read_comments

SYSTEM_COMMENT = "Azure DevOps system comment (activity log), not a comment"
DELETED = "deleted comment"
_BUILD_SERVICE = re.compile(r"\bBuild Service\b")


class AzureThreadsConversation(msgspec.Struct, frozen=True):
    """A pull request's threads as comment records, and what was skipped and why."""

    head_sha: str
    comments: tuple[PullComment, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (where, reason)


def is_service_identity(author: object) -> bool:
    """Whether an ``IdentityRef`` is a service identity (a build service, an app)."""
    if not isinstance(author, dict):
        return False
    descriptor, unique = author.get("descriptor"), author.get("uniqueName")
    name = author.get("displayName")
    return (
        (isinstance(descriptor, str) and descriptor.startswith("svc."))
        or (isinstance(unique, str) and unique.startswith("Build\\"))
        or (isinstance(name, str) and bool(_BUILD_SERVICE.search(name)))
    )


def login_of(author: object, own_id: str = "") -> str:
    """The name an identity's comments are read under: our own identity's id, else its
    unique name, else its display name."""
    if not isinstance(author, dict):
        return ""
    if own_id and author.get("id") == own_id:
        return own_id
    for key in ("uniqueName", "displayName"):
        value = author.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def conversation(
    threads: Sequence[object], *, head_sha: str, web_url: str = "", own_id: str = ""
) -> AzureThreadsConversation:
    """The comments of `threads` as review comments, conversation comments and replies."""
    comments: list[PullComment] = []
    skipped: list[tuple[str, str]] = []
    for number, thread in enumerate(threads):
        if not isinstance(thread, dict) or not isinstance(thread.get("comments"), list):
            comments.append(PullComment(thread, CommentKind.ISSUE, f"/threads/{number}"))
            continue
        first: object = None
        for index, comment in enumerate(thread["comments"]):
            where = f"/threads/{number}/comments/{index}"
            if isinstance(comment, dict) and comment.get("commentType") == "system":
                skipped.append((where, SYSTEM_COMMENT))
                continue
            if isinstance(comment, dict) and (comment.get("isDeleted") or thread.get("isDeleted")):
                skipped.append((where, DELETED))
                continue
            record, kind = _record(thread, comment, first, web_url, own_id)
            if first is None:
                first = (record or {}).get("id") or where
            comments.append(PullComment(record if record is not None else comment, kind, where))
    return AzureThreadsConversation(head_sha, tuple(comments), tuple(skipped))


def read_threads(
    talk: AzureThreadsConversation,
    *,
    name: str = "azure-devops",
    options: ReadOptions | None = None,
) -> Batch:
    """Every finding in the pull request's threads; system and deleted comments skipped."""
    options = options or ReadOptions()
    batch = read_comments(
        talk.comments, name=name, options=signed(options, signed_accounts(talk.comments))
    )
    batch.skipped.extend(Skipped(name, where, reason) for where, reason in talk.skipped)
    return batch


def signed_accounts(comments: Iterable[PullComment]) -> dict[str, str]:
    """Service identities mapped to the bot their comments' signatures name (one bot each)."""
    signed: dict[str, Counter[str]] = {}
    for comment in comments:
        record = comment.record if isinstance(comment.record, dict) else {}
        user = record.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        body = record.get("body")
        bot_account = isinstance(user, dict) and user.get("type") == "Bot"
        bot = signed_by(body) if isinstance(body, str) and bot_account else ""
        if bot and isinstance(login, str):
            signed.setdefault(login, Counter())[bot] += 1
    return {login: bots.most_common(1)[0][0] for login, bots in signed.items() if len(bots) == 1}


def _record(
    thread: Mapping[str, Any], comment: object, first: object, web_url: str, own_id: str
) -> tuple[dict[str, Any] | None, CommentKind]:
    """One comment as a GitHub-shaped record and its kind; None for one that is no object."""
    if not isinstance(comment, dict):
        return None, CommentKind.ISSUE
    author = comment.get("author")
    record: dict[str, Any] = {
        "id": comment.get("id") if first is None else _reply_id(thread, comment),
        "user": None
        if author is None
        else {
            "login": login_of(author, own_id),
            "type": "Bot" if is_service_identity(author) else "",
        },
        "body": comment.get("content"),
        "created_at": comment.get("publishedDate"),
        "updated_at": comment.get("lastUpdatedDate"),
    }
    thread_id = thread.get("id")
    if first is None and isinstance(thread_id, int):
        record["id"] = thread_id  # a finding's comment is named by its thread
        if web_url:
            record["html_url"] = f"{web_url}?discussionId={thread_id}"
    if first is not None:
        record["in_reply_to_id"] = first
    context = thread.get("threadContext")
    if not isinstance(context, dict) or not isinstance(context.get("filePath"), str):
        return record, CommentKind.INLINE if first is not None else CommentKind.ISSUE
    record.update(_place(context))
    return record, CommentKind.INLINE


def _reply_id(thread: Mapping[str, Any], comment: Mapping[str, Any]) -> str:
    return f"{thread.get('id')}/{comment.get('id')}"


def _place(context: Mapping[str, Any]) -> dict[str, Any]:
    """``path``, ``line`` and ``start_line`` of a thread context."""
    path = str(context["filePath"]).lstrip("/")
    end, start = _line(context.get("rightFileEnd")), _line(context.get("rightFileStart"))
    if end is None and start is not None:
        end = start
    place: dict[str, Any] = {"path": path, "line": end}
    if end is None:
        left = _line(context.get("leftFileEnd")) or _line(context.get("leftFileStart"))
        place["original_line"] = left
    if start is not None and end is not None and start < end:
        place["start_line"] = start
    return place


def _line(position: object) -> int | None:
    line = position.get("line") if isinstance(position, dict) else None
    return line if isinstance(line, int) and not isinstance(line, bool) and line >= 1 else None
