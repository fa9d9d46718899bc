"""A stateful in-process fake of the GitHub REST endpoints review-quorum posts through.

`FakeGitHub` keeps one pull request's reviews, review comments, issue comments, users and
the diff's addressable lines per path, and answers with JSON shaped like GitHub's (checked
against the OpenAPI extract's response schemas). `GitHubStandIn` (`fake_rest`) validates
every request against GitHub's OpenAPI extract first (`SpecViolation` on a malformed one),
pages lists with `Link` headers and injects faults per operation (a rate limit with
Retry-After, a 422, a 5xx, optionally after applying the request, as when an answer is
lost; a connection reset instead of an answer, before or after applying the request; or
an interruption that stops the run half-way); this module adds the rules GitHub
enforces beyond the schema: line anchors inside the diff, bodies of at most 65,536
characters, one pending review per user, edits by the author only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpx

from github.fake_checks import CheckRuns
from github.fake_graphql import GraphQLEndpoint
from github.fake_payloads import (
    FIRST_ID,
    Payloads,
    error,
    json_response,
    unprocessable,
    validation,
)
from github.fake_rest import API, FakeTime, Fault, GitHubStandIn, Handler, Interrupted
from github.github_openapi import GitHubSpec
from github.graphql_contract import Checked

__all__ = ["API", "HEAD", "FakeGitHub", "FakeTime", "Fault", "Interrupted"]

HEAD = "a" * 40


class FakeGitHub(GitHubStandIn, Payloads):
    def __init__(
        self,
        spec: GitHubSpec,
        *,
        owner: str = "octo-org",
        repo: str = "widgets",
        number: int = 7,
        author: str = "pr-author",
        head_sha: str = HEAD,
        api_url: str = API,
        graphql_url: str | None = None,
    ) -> None:
        super().__init__(spec, owner=owner, repo=repo, api_url=api_url, graphql_url=graphql_url)
        self.number, self.author, self.head_sha = number, author, head_sha
        self.graphql = GraphQLEndpoint(self)
        self.checks = CheckRuns(self)
        self.user_ids: dict[str, int] = {}
        self.right: dict[str, set[int]] = {}
        self.left: dict[str, set[int]] = {}
        self.reviews: list[dict[str, Any]] = []
        self.review_comments: list[dict[str, Any]] = []
        self.issue_comments: list[dict[str, Any]] = []
        # Reading a pull request: accounts GitHub marks as bots without a [bot] suffix
        # (Copilot), when the head commit was committed, and the base commit.
        self.bot_users: set[str] = set()
        self.head_committed_at = "2025-12-31T23:00:00Z"
        self.base_sha = "b" * 40
        # The repository's other pull requests, least recently updated first: each one's
        # number and who commented on it and who reviewed it (GraphQL `pullRequests`).
        self.other_pulls: list[tuple[int, tuple[list[str], list[str]]]] = []
        self._ids = FIRST_ID
        self._tick = 0

    # --- setting the scene --------------------------------------------------------------

    def set_diff(
        self, right: Mapping[str, Iterable[int]], left: Mapping[str, Iterable[int]] = {}
    ) -> None:
        self.right = {path: set(lines) for path, lines in right.items()}
        self.left = {path: set(left.get(path, ())) for path in right}

    def add_other_pull(
        self, number: int, commenters: Iterable[str] = (), reviewers: Iterable[str] = ()
    ) -> None:
        """Another pull request of the repository, updated after those added before it."""
        self.other_pulls.append((number, (list(commenters), list(reviewers))))

    def add_issue_comment(self, login: str, body: str) -> dict[str, Any]:
        comment = self._issue_comment(login, body)
        self.issue_comments.append(comment)
        return comment

    def add_review(
        self,
        login: str,
        body: str,
        comments: list[dict[str, Any]],
        *,
        commit: str | None = None,
    ) -> dict[str, Any]:
        review = self._review(login, body, "COMMENTED", commit)
        self.reviews.append(review)
        for comment in comments:
            posted = self._review_comment(login, review["id"], comment)
            posted["commit_id"] = posted["original_commit_id"] = review["commit_id"]
            self.review_comments.append(posted)
        return review

    def add_reply(self, login: str, to: dict[str, Any], body: str) -> dict[str, Any]:
        reply = self._review_comment(
            login, None, {"path": to["path"], "line": to["line"], "body": body}
        )
        reply["in_reply_to_id"] = to["id"]
        self.review_comments.append(reply)
        return reply

    def push(
        self, sha: str, right: Mapping[str, Iterable[int]], move: Callable[[str, int], int | None]
    ) -> None:
        """A new head commit: the diff changes and comments follow their code (or go outdated)."""
        self.checks.commits.add(self.head_sha)
        self.head_sha = sha
        self.head_committed_at = self._now()
        self.set_diff(right)
        for comment in self.review_comments:
            if comment["line"] is None:
                continue
            line = move(comment["path"], comment["line"])
            comment["line"] = comment["position"] = line
            if line is not None:
                comment["commit_id"] = sha

    # --- what tests look at -------------------------------------------------------------

    def comments_by(self, login: str) -> list[dict[str, Any]]:
        return [
            c
            for c in self.review_comments
            if c["user"]["login"] == login and not c.get("in_reply_to_id")
        ]

    def submitted_reviews_by(self, login: str) -> list[dict[str, Any]]:
        return [r for r in self.reviews if r["user"]["login"] == login and r["state"] != "PENDING"]

    def issue_comments_by(self, login: str) -> list[dict[str, Any]]:
        return [c for c in self.issue_comments if c["user"]["login"] == login]

    # --- what the transport asks ---------------------------------------------------------

    def _has_pull(self, number: int) -> bool:
        return number == self.number

    def _run_graphql(self, checked: Checked, login: str, access: str) -> httpx.Response:
        return self.graphql.handle(checked, login, access)

    def _handlers(self) -> dict[str, Handler]:
        return {
            "users/get-authenticated": self._get_user,
            "pulls/get": self._get_pull,
            "pulls/list-reviews": self._list_reviews,
            "pulls/create-review": self._create_review,
            "pulls/delete-pending-review": self._delete_review,
            "pulls/dismiss-review": self._dismiss_review,
            "pulls/list-review-comments": self._list_review_comments,
            "pulls/update-review-comment": self._update_review_comment,
            "issues/list-comments": self._list_issue_comments,
            "issues/create-comment": self._create_issue_comment,
            "issues/update-comment": self._update_issue_comment,
            **self.checks.handlers(),
        }

    # --- endpoints ----------------------------------------------------------------------

    def _get_user(self, login: str, token: str, **_: Any) -> httpx.Response:
        if token in self.installation_tokens:
            return error(403, "Resource not accessible by integration")
        return json_response(200, self._user(login) | {"name": login})

    def _get_pull(self, **_: Any) -> httpx.Response:
        pull = {
            "id": 1,
            "number": self.number,
            "state": "open",
            "user": self._user(self.author),
            "head": {"sha": self.head_sha, "ref": "feature"},
            "base": {"sha": self.base_sha, "ref": "main"},
        }
        return json_response(200, pull)

    def _list_reviews(
        self, login: str, query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        visible = [
            r for r in self.reviews if r["state"] != "PENDING" or r["user"]["login"] == login
        ]
        return self._page(visible, query, path)

    def _create_review(self, login: str, body: dict[str, Any], **_: Any) -> httpx.Response:
        event = body.get("event")
        text = body.get("body", "")
        if event in ("COMMENT", "REQUEST_CHANGES") and not text:
            return unprocessable(f"Body is required when event is {event}")
        if event == "REQUEST_CHANGES" and login == self.author:
            return unprocessable("Can not request changes on your own pull request")
        if len(text) > 65_536 or any(len(c["body"]) > 65_536 for c in body.get("comments", [])):
            return validation(
                "PullRequestReview", "body", "body is too long (maximum is 65536 characters)"
            )
        if event is None and any(
            r["state"] == "PENDING" and r["user"]["login"] == login for r in self.reviews
        ):
            return unprocessable("User can only have one pending review per pull request")
        for comment in body.get("comments", []):
            problem = self._anchor_problem(comment)
            if problem:
                return unprocessable(problem)
        states = {
            "COMMENT": "COMMENTED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            "APPROVE": "APPROVED",
        }
        state = states.get(event or "", "PENDING")
        review = self._review(login, text, state, body.get("commit_id"))
        self.reviews.append(review)
        for comment in body.get("comments", []):
            posted = self._review_comment(login, review["id"], comment)
            posted["commit_id"] = posted["original_commit_id"] = review["commit_id"]
            self.review_comments.append(posted)
        return json_response(200, review)

    def _anchor_problem(self, comment: dict[str, Any]) -> str | None:
        if comment["path"] not in self.right:
            return "Path could not be resolved"
        lines = self.left if comment.get("side") == "LEFT" else self.right
        wanted = [comment.get("line"), comment.get("start_line")]
        if any(line is not None and line not in lines[comment["path"]] for line in wanted):
            return "Line could not be resolved"
        return None

    def _delete_review(self, login: str, params: dict[str, str], **_: Any) -> httpx.Response:
        review = self._find(self.reviews, params["review_id"])
        if review is None or review["user"]["login"] != login:
            return error(404, "Not Found")
        if review["state"] != "PENDING":
            return unprocessable("Can not delete a non-pending pull request review")
        self.reviews.remove(review)
        self.review_comments = [
            c for c in self.review_comments if c["pull_request_review_id"] != review["id"]
        ]
        return json_response(200, review)

    def _dismiss_review(self, params: dict[str, str], **_: Any) -> httpx.Response:
        review = self._find(self.reviews, params["review_id"])
        if review is None:
            return error(404, "Not Found")
        if review["state"] not in ("CHANGES_REQUESTED", "APPROVED"):
            return unprocessable("Can not dismiss a commented pull request review")
        review["state"] = "DISMISSED"
        return json_response(200, review)

    def _list_review_comments(
        self, login: str, query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        pending = {
            r["id"] for r in self.reviews if r["state"] == "PENDING" and r["user"]["login"] != login
        }
        visible = [c for c in self.review_comments if c["pull_request_review_id"] not in pending]
        return self._page(visible, query, path)

    def _update_review_comment(
        self, login: str, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        return self._edit(self.review_comments, login, params["comment_id"], body["body"])

    def _list_issue_comments(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        return self._page(self.issue_comments, query, path)

    def _create_issue_comment(self, login: str, body: dict[str, Any], **_: Any) -> httpx.Response:
        if len(body["body"]) > 65_536:
            return validation(
                "IssueComment", "body", "body is too long (maximum is 65536 characters)"
            )
        comment = self._issue_comment(login, body["body"])
        self.issue_comments.append(comment)
        return json_response(201, comment, {"Location": comment["url"]})

    def _update_issue_comment(
        self, login: str, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        return self._edit(self.issue_comments, login, params["comment_id"], body["body"])

    def _edit(
        self, items: list[dict[str, Any]], login: str, item_id: str, text: str
    ) -> httpx.Response:
        item = self._find(items, item_id)
        if item is None:
            return error(404, "Not Found")
        if item["user"]["login"] != login:
            return error(403, "You must have push access to edit this comment")
        if len(text) > 65_536:
            return validation("Comment", "body", "body is too long (maximum is 65536 characters)")
        item["body"], item["updated_at"] = text, self._now()
        return json_response(200, item)

    # --- helpers -------------------------------------------------------------------------

    def _find(self, items: list[dict[str, Any]], item_id: str) -> dict[str, Any] | None:
        return next((item for item in items if item["id"] == int(item_id)), None)
