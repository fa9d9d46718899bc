"""Typed views of the GitHub objects the poster reads: reviews, review and issue comments.

GitHub's JSON is decoded once, here, into small frozen values keeping only what the poster
decides on. A deleted account's comments come back with ``user: null``; they get the
author ``""``, which never equals a real login (nor counts as a bot). Each item also keeps
its GraphQL `node_id` and whether GitHub marks its author as a bot (``user.type``), which is
what hiding duplicates decides on. Bodies are read with LF line ends (the web
UI saves CRLF, and markers are matched per line). A response that is not the documented
shape raises `GitHubError` naming the list and the index, rather than a KeyError later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec

from review_quorum.errors import GitHubError

T = TypeVar("T")


class RemoteReview(msgspec.Struct, frozen=True):
    id: int
    author: str
    state: str
    body: str
    node_id: str = ""
    bot: bool = False


class RemoteComment(msgspec.Struct, frozen=True):
    """A pull request review comment; `line` is None once GitHub considers it outdated."""

    id: int
    author: str
    body: str
    path: str
    line: int | None
    review_id: int | None
    in_reply_to: int | None
    node_id: str = ""
    bot: bool = False
    commit: str = ""  # `original_commit_id`: the head commit it was posted on


class RemoteIssueComment(msgspec.Struct, frozen=True):
    id: int
    author: str
    body: str
    html_url: str | None
    node_id: str = ""
    bot: bool = False


def reviews(items: Iterable[Any]) -> list[RemoteReview]:
    return _parse(items, "reviews", _review)


def review_comments(items: Iterable[Any]) -> list[RemoteComment]:
    return _parse(items, "review comments", _comment)


def issue_comments(items: Iterable[Any]) -> list[RemoteIssueComment]:
    return _parse(items, "issue comments", _issue_comment)


def _parse(items: Iterable[Any], what: str, parse: Callable[[dict[str, Any]], T]) -> list[T]:
    parsed: list[T] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not _is_id(item.get("id")):
            raise GitHubError(f"GitHub API listed {what} item {index} without an id")
        parsed.append(parse(item))
    return parsed


def _review(item: dict[str, Any]) -> RemoteReview:
    state = str(item.get("state") or "")
    return RemoteReview(item["id"], _author(item), state, _body(item), _node(item), _bot(item))


def _comment(item: dict[str, Any]) -> RemoteComment:
    return RemoteComment(
        id=item["id"],
        author=_author(item),
        body=_body(item),
        path=str(item.get("path") or ""),
        line=_optional_id(item.get("line")),
        review_id=_optional_id(item.get("pull_request_review_id")),
        in_reply_to=_optional_id(item.get("in_reply_to_id")),
        node_id=_node(item),
        bot=_bot(item),
        commit=_text(item.get("original_commit_id")),
    )


def _issue_comment(item: dict[str, Any]) -> RemoteIssueComment:
    url = item.get("html_url")
    return RemoteIssueComment(
        item["id"],
        _author(item),
        _body(item),
        url if isinstance(url, str) else None,
        _node(item),
        _bot(item),
    )


def _author(item: dict[str, Any]) -> str:
    user = item.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else ""


def _bot(item: dict[str, Any]) -> bool:
    user = item.get("user")
    return isinstance(user, dict) and user.get("type") == "Bot"


def _node(item: dict[str, Any]) -> str:
    node_id = item.get("node_id")
    return node_id if isinstance(node_id, str) else ""


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _body(item: dict[str, Any]) -> str:
    body = item.get("body")
    # A body edited in the web UI comes back with CRLF; markers are matched per line.
    return body.replace("\r\n", "\n") if isinstance(body, str) else ""


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_id(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
