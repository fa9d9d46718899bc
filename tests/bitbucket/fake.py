"""A stateful stand-in for the Bitbucket Cloud REST 2.0 endpoints quorum reads and posts.

`FakeBitbucket` keeps one pull request of one repository: its head commit and the files it
changes (with their line counts), its comments, the commits' build statuses and Code
Insights reports with their annotations, and the accounts behind credentials (an access
token as Bearer, a user name and app password as Basic). Every request is validated
against the extract first (`bitbucket_contract`), then against the rules Bitbucket
enforces beyond the schema: an inline comment names a file the pull request changes and a
line of it, a reply's parent exists, only a comment's author edits or deletes it (a
deleted comment stays listed with ``deleted: true``), a report holds at most 1,000
annotations. Lists are paged with ``next`` links (``pagelen`` at most 100; `page_cap`
makes pages smaller); answers are checked against the response schemas. Faults are
injected per operation alias (``comments/create``...) as for the GitHub stand-in. `push`
moves the head: inline comments that `move` maps follow their line, others stay where
they were.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson

from bitbucket.bitbucket_contract import BitbucketSpec
from github.fake_payloads import json_response
from github.fake_rest import FakeTime, Fault, Interrupted, RestStandIn
from github.github_openapi import SpecViolation

API = "https://api.bitbucket.example/2.0"
WORKSPACE = "acme"
REPO = "stockroom"
MAX_ANNOTATIONS = 1000

__all__ = ["API", "FakeBitbucket", "FakeTime", "Interrupted"]


class FakeBitbucket(RestStandIn):
    """One pull request; faults are injected as for the GitHub stand-in."""

    def __init__(self, spec: BitbucketSpec, *, api_url: str = API, pull_id: int = 7) -> None:
        self.spec, self.api_url, self.pull_id = spec, api_url.rstrip("/"), pull_id
        self.accounts: dict[str, dict[str, Any]] = {}
        self.read_only: set[str] = set()
        self.head = ""
        self.files: dict[str, int] = {}
        self.comments: list[dict[str, Any]] = []
        self.statuses: dict[tuple[str, str], dict[str, Any]] = {}
        self.reports: dict[tuple[str, str], dict[str, Any]] = {}
        self.annotations: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        self.page_cap: int | None = None
        self.time = FakeTime()
        self.state, self.author = "OPEN", "Dana"  # the pull request's
        self._ids = 500
        self._tick = 0

    # --- setting the scene --------------------------------------------------------------

    def add_account(
        self,
        credentials: tuple[str, str] | str | None,
        name: str,
        *,
        app: bool = False,
    ) -> dict[str, Any]:
        """An account behind a token (str) or a user name and app password (pair)."""
        number = len(self.accounts) + 1
        account = {
            "type": "app_user" if app else "user",
            "uuid": f"{{{number:08d}-0000-4000-8000-{number:012d}}}",
            "display_name": name,
            "nickname": name,
            "account_id": f"5f{number:010d}",
        }
        if isinstance(credentials, tuple):
            pair = ":".join(credentials).encode()
            key = "Basic " + base64.b64encode(pair).decode()
        elif credentials is not None:
            key = f"Bearer {credentials}"
        else:
            key = f"none {name}"
        self.accounts[key] = account
        return account

    def account(self, name: str, *, app: bool = False) -> dict[str, Any]:
        found = next((a for a in self.accounts.values() if a["display_name"] == name), None)
        return found or self.add_account(None, name, app=app)

    def push(
        self,
        sha: str,
        files: Mapping[str, int],
        move: Callable[[str, int], int | None] | None = None,
    ) -> None:
        """A new head `sha` changing `files` (path -> line count)."""
        self.head, self.files = sha, dict(files)
        if move is None:
            return
        for comment in self.comments:
            inline = comment.get("inline")
            if inline and "to" in inline:
                moved = move(inline["path"], inline["to"])
                if moved is not None:
                    inline["to"] = moved

    def add_comment(
        self,
        name: str,
        raw: str,
        *,
        path: str | None = None,
        line: int | None = None,
        parent: dict[str, Any] | None = None,
        app: bool = False,
    ) -> dict[str, Any]:
        inline = {"path": path, "to": line} if path is not None and line is not None else None
        comment = self._comment(self.account(name, app=app), raw, inline, parent)
        self.comments.append(comment)
        return comment

    def resolve(self, comment: dict[str, Any], name: str) -> None:
        """`name` resolves `comment`'s thread in the web interface."""
        comment["resolution"] = {
            "type": "comment_resolution",
            "user": self.account(name),
            "created_on": self._now(),
        }

    # --- what tests look at -------------------------------------------------------------

    def comments_by(self, name: str) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["user"]["display_name"] == name and not c["deleted"]]

    # --- the transport ------------------------------------------------------------------

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        key = request.headers.get("authorization", "")
        account = self.accounts.get(key)
        if account is None:
            return _error(401, "Token is invalid, expired, or not supported for this endpoint.")
        matched = self.spec.match(request.method, path)
        if matched is None:
            raise SpecViolation(f"no Bitbucket operation for {request.method} {path}")
        operation, params = matched
        self.spec.check_request(operation, params, query, body)
        if "workspace" in params and (params["workspace"], params["repo_slug"]) != (
            WORKSPACE,
            REPO,
        ):
            return _error(404, "Repository not found")
        if "pull_request_id" in params and int(params["pull_request_id"]) != self.pull_id:
            return _error(404, "Pull request not found")
        if request.method != "GET" and key in self.read_only:
            return _error(403, "Your credentials lack one or more required privilege scopes.")
        fault = self._fault(operation.alias)
        if fault is not None and not fault.apply:
            return fault.response(request)
        response = self._dispatch(operation.alias, account, params, query, body, path)
        if response.status_code < 300 and response.content:
            self.spec.check_response(operation, orjson.loads(response.content))
        if fault is not None:
            return fault.response(request)
        return response

    def _dispatch(
        self,
        alias: str,
        account: dict[str, Any],
        params: dict[str, str],
        query: dict[str, str],
        body: Any,
        path: str,
    ) -> httpx.Response:
        handlers: dict[str, Callable[..., httpx.Response]] = {
            "user/get": self._user,
            "pr/get": self._get_pull,
            "comments/list": self._list_comments,
            "comments/create": self._create_comment,
            "comments/update": self._update_comment,
            "comments/delete": self._delete_comment,
            "comments/resolve": self._resolve,
            "comments/reopen": self._reopen,
            "commit-statuses/create": self._create_status,
            "commit-statuses/list": self._list_statuses,
            "reports/create-or-update": self._put_report,
            "reports/get": self._get_report,
            "annotations/list": self._list_annotations,
            "annotations/bulk-create-or-update": self._bulk_annotations,
            "annotations/delete": self._delete_annotation,
        }
        handler = handlers.get(alias)
        if handler is None:
            raise SpecViolation(f"the stand-in does not implement {alias}")
        return handler(account=account, params=params, query=query, body=body, path=path)

    # --- endpoints ----------------------------------------------------------------------

    def _user(self, account: dict[str, Any], **_: Any) -> httpx.Response:
        return json_response(200, account)

    def _get_pull(self, **_: Any) -> httpx.Response:
        web = f"https://bitbucket.org/{WORKSPACE}/{REPO}/pull-requests/{self.pull_id}"
        return json_response(
            200,
            {
                "type": "pullrequest",
                "id": self.pull_id,
                "title": "Stock counts",
                "state": self.state,
                "author": self.account(self.author),
                "created_on": "2026-01-01T00:00:00Z",
                "updated_on": "2026-01-02T00:00:00Z",
                "source": {"commit": {"hash": self.head[:12]}, "branch": {"name": "counts"}},
                "destination": {"commit": {"hash": "b" * 12}, "branch": {"name": "main"}},
                "links": {"html": {"href": web}},
            },
        )

    def _list_comments(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        return self._page(self.comments, query, path)

    def _create_comment(
        self, account: dict[str, Any], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        inline, parent = body.get("inline"), None
        if inline is not None:
            lines = self.files.get(inline["path"])
            line = inline.get("to") or inline.get("from")
            if lines is None or line is None or line > lines:
                return _error(400, f"Inline comment is not on a line of {inline['path']}.")
        if "parent" in body:
            parent = next((c for c in self.comments if c["id"] == body["parent"]["id"]), None)
            if parent is None:
                return _error(400, "Parent comment not found.")
        comment = self._comment(account, body["content"]["raw"], inline, parent)
        self.comments.append(comment)
        return json_response(201, comment)

    def _update_comment(
        self, account: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        comment = self._find(params["comment_id"])
        if comment is None:
            return _error(404, "Comment not found")
        if comment["user"]["uuid"] != account["uuid"]:
            return _error(403, "You can only edit your own comments.")
        comment["content"]["raw"] = body["content"]["raw"]
        comment["updated_on"] = self._now()
        return json_response(200, comment)

    def _delete_comment(
        self, account: dict[str, Any], params: dict[str, str], **_: Any
    ) -> httpx.Response:
        comment = self._find(params["comment_id"])
        if comment is None:
            return _error(404, "Comment not found")
        if comment["user"]["uuid"] != account["uuid"]:
            return _error(403, "You can only delete your own comments.")
        comment["deleted"] = True
        return httpx.Response(204)

    def _resolve(self, account: dict[str, Any], params: dict[str, str], **_: Any) -> httpx.Response:
        comment = self._find(params["comment_id"])
        if comment is None:
            return _error(404, "Comment not found")
        if "parent" in comment:
            return _error(400, "Only the first comment of a thread can be resolved.")
        if "resolution" in comment:
            return _error(409, "The comment thread is already resolved.")
        comment["resolution"] = {
            "type": "comment_resolution",
            "user": account,
            "created_on": self._now(),
        }
        return json_response(200, comment["resolution"])

    def _reopen(self, params: dict[str, str], **_: Any) -> httpx.Response:
        comment = self._find(params["comment_id"])
        if comment is None or "resolution" not in comment:
            return _error(404, "The comment thread is not resolved.")
        del comment["resolution"]
        return httpx.Response(204)

    def _create_status(
        self, account: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        if not self.head.startswith(params["commit"]) and params["commit"] != self.head:
            return _error(404, "Commit not found")
        if not body.get("key") or not body.get("url") or not body.get("state"):
            return _error(400, "key, state and url are required")
        status = self.statuses.setdefault(
            (self.head, body["key"]),
            {"type": "commitstatus", "uuid": self._uuid(), "created_on": self._now()},
        )
        status.update(body, updated_on=self._now())
        return json_response(201, status)

    def _list_statuses(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        found = [s for (sha, _), s in self.statuses.items() if sha.startswith(params["commit"])]
        return self._page(found, query, path)

    def _put_report(self, params: dict[str, str], body: dict[str, Any], **_: Any) -> httpx.Response:
        if not self.head.startswith(params["commit"]):
            return _error(404, "Commit not found")
        key = (params["commit"], params["reportId"])
        report = self.reports.setdefault(
            key, {"type": "report", "uuid": self._uuid(), "created_on": self._now()}
        )
        for field in ("details", "link", "data", "result", "reporter"):
            report.pop(field, None)
        report.update(body, external_id=params["reportId"], updated_on=self._now())
        return json_response(200, report)

    def _get_report(self, params: dict[str, str], **_: Any) -> httpx.Response:
        report = self.reports.get((params["commit"], params["reportId"]))
        return json_response(200, report) if report else _error(404, "Report not found")

    def _list_annotations(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        key = (params["commit"], params["reportId"])
        return self._page(list(self.annotations.get(key, {}).values()), query, path)

    def _bulk_annotations(
        self, params: dict[str, str], body: list[dict[str, Any]], **_: Any
    ) -> httpx.Response:
        key = (params["commit"], params["reportId"])
        if key not in self.reports:
            return _error(404, "Report not found")
        ids = [item["external_id"] for item in body]
        if len(set(ids)) != len(ids):
            return _error(400, "external_id must be unique within a request")
        existing = self.annotations.setdefault(key, {})
        if len(existing.keys() | set(ids)) > MAX_ANNOTATIONS:
            return _error(400, "A report can hold at most 1000 annotations.")
        answer = []
        for item in body:
            annotation = existing.setdefault(
                item["external_id"],
                {"type": "report_annotation", "uuid": self._uuid(), "created_on": self._now()},
            )
            annotation.update(item, updated_on=self._now())
            answer.append(annotation)
        return json_response(200, answer)

    def _delete_annotation(self, params: dict[str, str], **_: Any) -> httpx.Response:
        existing = self.annotations.get((params["commit"], params["reportId"]), {})
        if existing.pop(params["annotationId"], None) is None:
            return _error(404, "Annotation not found")
        return httpx.Response(204)

    # --- helpers ------------------------------------------------------------------------

    def _comment(
        self,
        account: dict[str, Any],
        raw: str,
        inline: dict[str, Any] | None,
        parent: dict[str, Any] | None,
    ) -> dict[str, Any]:
        self._ids += 1
        now = self._now()
        web = f"https://bitbucket.org/{WORKSPACE}/{REPO}/pull-requests/{self.pull_id}"
        comment: dict[str, Any] = {
            "type": "pullrequest_comment",
            "id": self._ids,
            "content": {"raw": raw, "markup": "markdown", "html": ""},
            "user": dict(account),
            "created_on": now,
            "updated_on": now,
            "deleted": False,
            "pending": False,
            "links": {"html": {"href": f"{web}#comment-{self._ids}"}},
        }
        if inline is not None:
            comment["inline"] = {k: v for k, v in inline.items() if v is not None}
        if parent is not None:
            comment["parent"] = {"type": "pullrequest_comment", "id": parent["id"]}
        return comment

    def _find(self, comment_id: str) -> dict[str, Any] | None:
        found = next((c for c in self.comments if c["id"] == int(comment_id)), None)
        return found if found is not None and not found["deleted"] else None

    def _page(
        self, items: list[dict[str, Any]], query: dict[str, str], path: str
    ) -> httpx.Response:
        pagelen, page = int(query.get("pagelen", 10)), int(query.get("page", 1))
        pagelen = min(pagelen, self.page_cap or pagelen)
        chunk = items[(page - 1) * pagelen : page * pagelen]
        answer: dict[str, Any] = {
            "values": chunk,
            "page": page,
            "pagelen": pagelen,
            "size": len(items),
        }
        if page * pagelen < len(items):
            following = query | {"page": str(page + 1), "pagelen": str(pagelen)}
            answer["next"] = f"{self.api_url}{path}?{urlencode(following)}"
        return json_response(200, answer)

    def _uuid(self) -> str:
        self._ids += 1
        return f"{{{self._ids:08d}-1111-4000-8000-{self._ids:012d}}}"

    def _now(self) -> str:
        self._tick += 1
        return f"2026-01-01T00:{self._tick // 60 % 60:02d}:{self._tick % 60:02d}+00:00"


def _error(status: int, message: str) -> httpx.Response:
    return json_response(status, {"type": "error", "error": {"message": message}})
