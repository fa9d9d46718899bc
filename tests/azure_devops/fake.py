"""A stateful stand-in for the Azure DevOps Git REST 7.1 endpoints quorum reads and posts.

`FakeAzureDevOps` keeps one pull request of one repository: its iterations (each with the
files it changes and their line counts), its threads and comments, its statuses and the
identities behind tokens (a PAT as HTTP Basic, the build service's token as Bearer). Every
request is validated against the extract first (`ado_contract`, strict: the integer enum
codes of Microsoft's example are refused, since quorum must send strings), then against the
rules Azure DevOps enforces beyond the schema: a thread on a file names a file of the
iteration its ``iterationContext`` compares, with that file's ``changeTrackingId``, a
``filePath`` with a leading ``/`` and right-side lines inside the file; a new thread
has at least one comment; only a comment's author edits or deletes it; a thread whose
comments are all deleted is deleted. Answers are checked against the response schemas and
lists are wrapped in ``{"count", "value"}`` as the service does. ``connectionData`` (who a
token is, outside the extract) is checked here by hand. Faults are injected per operation
alias (``threads/create``...) as for the GitHub stand-in. `push` adds an iteration and
tracks threads to their new lines, as Azure DevOps does; a thread whose line changed stays
where it was.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

import httpx
import orjson

from azure_devops.ado_contract import AzureDevOpsSpec
from github.fake_payloads import json_response
from github.fake_rest import FakeTime, Fault, Interrupted, RestStandIn
from github.github_openapi import SpecViolation

API = "https://dev.azure.example"
ORGANIZATION = "contoso"
PROJECT = "Stock Room"
REPOSITORY = "stockroom"

__all__ = ["API", "FakeAzureDevOps", "FakeTime", "Interrupted"]


class FakeAzureDevOps(RestStandIn):
    """One pull request; faults are injected as for the GitHub stand-in."""

    def __init__(self, spec: AzureDevOpsSpec, *, api_url: str = API, pull_id: int = 7) -> None:
        self.spec, self.api_url, self.pull_id = spec, api_url.rstrip("/"), pull_id
        self.tokens: dict[str, dict[str, Any]] = {}
        self.read_only: set[str] = set()
        self.iterations: list[dict[str, Any]] = []
        self.files: dict[int, dict[str, dict[str, Any]]] = {}  # iteration -> path -> file
        self.threads: list[dict[str, Any]] = []
        self.statuses: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        self.time = FakeTime()
        self.status, self.creator = "active", "Dana"  # the pull request's
        self._ids = 100
        self._tick = 0

    # --- setting the scene --------------------------------------------------------------

    def add_identity(
        self, token: str | None, name: str, *, service: bool = False, bearer: bool = False
    ) -> dict[str, Any]:
        number = len(self.tokens) + 1
        identity = {
            "id": f"{number:08d}-aaaa-bbbb-cccc-{number:012d}",
            "displayName": name,
            "uniqueName": f"Build\\{number:08d}" if service else name,
            "descriptor": f"svc.{number}" if service else f"aad.{number}",
        }
        key = token or f"no-token-{name}"
        if token is not None and not bearer:
            key = "Basic " + base64.b64encode(f":{token}".encode()).decode()
        elif token is not None:
            key = f"Bearer {token}"
        self.tokens[key] = identity
        return identity

    def identity(self, name: str) -> dict[str, Any]:
        found = next((i for i in self.tokens.values() if i["displayName"] == name), None)
        return found or self.add_identity(None, name)

    def push(
        self,
        sha: str,
        files: Mapping[str, int],
        move: Callable[[str, int], int | None] | None = None,
        *,
        deleted: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """A new iteration with head `sha` changing `files` (path -> line count); threads
        whose lines `move` maps follow them."""
        number = len(self.iterations) + 1
        iteration = {
            "id": number,
            "sourceRefCommit": {"commitId": sha},
            "targetRefCommit": {"commitId": "b" * 40},
            "createdDate": self._now(),
            "reason": "create" if number == 1 else "push",
        }
        self.iterations.append(iteration)
        changed: dict[str, dict[str, Any]] = {}
        for index, (path, count) in enumerate({**files, **dict.fromkeys(deleted, 0)}.items()):
            changed["/" + path] = {
                "lines": count,
                "changeTrackingId": index + 1,
                "changeType": "delete" if path in deleted else "edit",
            }
        self.files[number] = changed
        if move is not None:
            for thread in self.threads:
                context = thread.get("threadContext")
                if not context or "rightFileEnd" not in context:
                    continue
                path = context["filePath"].lstrip("/")
                start = move(path, context["rightFileStart"]["line"])
                end = move(path, context["rightFileEnd"]["line"])
                if start is not None and end is not None:
                    context["rightFileStart"]["line"], context["rightFileEnd"]["line"] = start, end
        return iteration

    def add_thread(
        self,
        name: str,
        content: str,
        *,
        path: str | None = None,
        line: int | None = None,
        status: str = "active",
        system: bool = False,
    ) -> dict[str, Any]:
        """A thread by `name`: on `path`'s `line` of the latest iteration, or general."""
        thread = self._thread(status, [self._comment(self.identity(name), content, system)])
        if path is not None and line is not None:
            thread["threadContext"] = {
                "filePath": "/" + path,
                "rightFileStart": {"line": line, "offset": 1},
                "rightFileEnd": {"line": line, "offset": 1},
            }
        self.threads.append(thread)
        return thread

    def reply(self, thread: dict[str, Any], name: str, content: str) -> dict[str, Any]:
        comment = self._comment(self.identity(name), content)
        comment["id"] = max(c["id"] for c in thread["comments"]) + 1  # unique in its thread
        comment["parentCommentId"] = thread["comments"][0]["id"]
        thread["comments"].append(comment)
        return comment

    def like(self, comment: dict[str, Any], name: str) -> None:
        comment["usersLiked"].append(dict(self.identity(name)))

    # --- what tests look at -------------------------------------------------------------

    @property
    def head_sha(self) -> str:
        return str(self.iterations[-1]["sourceRefCommit"]["commitId"])

    def threads_by(self, name: str) -> list[dict[str, Any]]:
        return [
            t
            for t in self.threads
            if not t["isDeleted"] and t["comments"][0]["author"]["displayName"] == name
        ]

    # --- the transport ------------------------------------------------------------------

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        key = request.headers.get("authorization", "")
        identity = self.tokens.get(key)
        if identity is None:
            # Azure DevOps answers an unknown token with 203 and a sign-in page, or 401.
            return _error(401, "TF400813: The user is not authorized to access this resource.")
        if path == f"/{ORGANIZATION}/_apis/connectionData":
            if request.method != "GET" or body is not None:
                raise SpecViolation("connectionData is a GET without a body")
            return json_response(200, {"authenticatedUser": identity, "authorizedUser": identity})
        matched = self.spec.match(request.method, path)
        if matched is None:
            raise SpecViolation(f"no Azure DevOps operation for {request.method} {path}")
        operation, params = matched
        self.spec.check_request(operation, params, query, body)
        expected = (ORGANIZATION, quote(PROJECT, safe=""), REPOSITORY)
        if (params["organization"], params["project"], params["repositoryId"]) != expected:
            return _error(404, "TF401019: The Git repository does not exist.")
        if "pullRequestId" in params and int(params["pullRequestId"]) != self.pull_id:
            return _error(404, "TF401180: The requested pull request was not found.")
        if request.method != "GET" and key in self.read_only:
            return _error(403, "TF401027: You need the Git 'PullRequestContribute' permission.")
        fault = self._fault(operation.alias)
        if fault is not None and not fault.apply:
            return fault.response(request)
        response = self._dispatch(operation.alias, identity, params, query, body)
        if response.status_code < 300 and response.content:
            self.spec.check_response(operation, orjson.loads(response.content))
        if fault is not None:
            return fault.response(request)
        return response

    def _dispatch(
        self,
        alias: str,
        identity: dict[str, Any],
        params: dict[str, str],
        query: dict[str, str],
        body: Any,
    ) -> httpx.Response:
        handlers: dict[str, Callable[..., httpx.Response]] = {
            "pr/get": self._get_pull,
            "iterations/list": self._list_iterations,
            "iterations/changes": self._changes,
            "threads/list": self._list_threads,
            "threads/create": self._create_thread,
            "threads/update": self._update_thread,
            "comments/update": self._update_comment,
            "comments/delete": self._delete_comment,
            "pr-statuses/create": self._create_status,
            "pr-statuses/list": self._list_statuses,
        }
        handler = handlers.get(alias)
        if handler is None:
            raise SpecViolation(f"the stand-in does not implement {alias}")
        return handler(identity=identity, params=params, query=query, body=body)

    # --- endpoints ----------------------------------------------------------------------

    def _get_pull(self, **_: Any) -> httpx.Response:
        web = f"https://dev.azure.com/{ORGANIZATION}/{quote(PROJECT)}/_git/{REPOSITORY}"
        return json_response(
            200,
            {
                "pullRequestId": self.pull_id,
                "status": self.status,
                "createdBy": dict(self.identity(self.creator)),
                "creationDate": "2026-01-01T00:00:00Z",
                **({"closedDate": "2026-01-02T00:00:00Z"} if self.status != "active" else {}),
                "title": "Stock counts",
                "sourceRefName": "refs/heads/counts",
                "targetRefName": "refs/heads/main",
                "lastMergeSourceCommit": {"commitId": self.head_sha},
                "lastMergeTargetCommit": {"commitId": "b" * 40},
                "repository": {"id": "r-1", "name": REPOSITORY, "webUrl": web},
                "supportsIterations": True,
            },
        )

    def _list_iterations(self, **_: Any) -> httpx.Response:
        return _list(self.iterations)

    def _changes(self, params: dict[str, str], query: dict[str, str], **_: Any) -> httpx.Response:
        number = int(params["iterationId"])
        if number not in self.files:
            return _error(404, "TF401175: The iteration does not exist.")
        entries = [
            {
                "changeTrackingId": file["changeTrackingId"],
                "changeId": file["changeTrackingId"],
                "item": {"path": path},
                "changeType": file["changeType"],
            }
            for path, file in self.files[number].items()
        ]
        top, skip = int(query.get("$top", 100)), int(query.get("$skip", 0))
        top = min(top, self.page_cap or top)
        page = entries[skip : skip + top]
        more = skip + top < len(entries)
        answer: dict[str, Any] = {"changeEntries": page}
        if more:
            answer.update(nextSkip=skip + top, nextTop=top)
        return json_response(200, answer)

    page_cap: int | None = None

    def _list_threads(self, **_: Any) -> httpx.Response:
        return _list([t for t in self.threads if not t["isDeleted"]])

    def _create_thread(
        self, identity: dict[str, Any], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        comments = body.get("comments") or []
        if not comments:
            return _error(400, "A thread must have at least one comment.")
        context = body.get("threadContext")
        if context is not None:
            problem = self._anchor_problem(context, body.get("pullRequestThreadContext"))
            if problem:
                return _error(400, problem)
        thread = self._thread(
            body.get("status", "unknown"),
            [self._comment(identity, c.get("content", "")) for c in comments],
        )
        if context is not None:
            thread["threadContext"] = context
            thread["pullRequestThreadContext"] = body["pullRequestThreadContext"]
        if body.get("properties"):
            thread["properties"] = body["properties"]
        self.threads.append(thread)
        return json_response(200, thread)

    def _anchor_problem(self, context: dict[str, Any], pull_context: Any) -> str:
        path = context.get("filePath")
        if not isinstance(path, str) or not path.startswith("/"):
            return "filePath must start with /"
        if not isinstance(pull_context, dict):
            return "pullRequestThreadContext is required on a file thread"
        iteration = (pull_context.get("iterationContext") or {}).get("secondComparingIteration")
        files = self.files.get(iteration or 0)
        if files is None:
            return f"TF401175: iteration {iteration} does not exist"
        if iteration != len(self.iterations):
            return f"iteration {iteration} is not the latest"  # quorum must use the latest
        file = files.get(path)
        if file is None or file["changeTrackingId"] != pull_context.get("changeTrackingId"):
            return f"{path} is not a change of iteration {iteration} with that tracking id"
        start, end = context.get("rightFileStart"), context.get("rightFileEnd")
        if start is None or end is None:
            return "a right-side thread names rightFileStart and rightFileEnd"
        if file["changeType"] == "delete":
            return f"{path} is deleted: it has no right side"
        if not 1 <= start["line"] <= end["line"] <= file["lines"]:
            return f"lines {start['line']}-{end['line']} are outside {path}"
        if start.get("offset", 1) < 1 or end.get("offset", 1) < 1:
            return "offsets start at 1"
        return ""

    def _update_thread(
        self, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        thread = self._find(params["threadId"])
        if thread is None:
            return _error(404, "TF401181: The thread does not exist.")
        if "status" in body:
            thread["status"] = body["status"]
        if "properties" in body:
            thread["properties"] = {**thread.get("properties", {}), **body["properties"]}
        thread["lastUpdatedDate"] = self._now()
        return json_response(200, thread)

    def _update_comment(
        self, identity: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        comment = self._find_comment(params)
        if comment is None:
            return _error(404, "TF401181: The comment does not exist.")
        if comment["author"]["id"] != identity["id"]:
            return _error(403, "Only the author of a comment can edit it.")
        comment["content"] = body.get("content", comment["content"])
        comment["lastUpdatedDate"] = comment["lastContentUpdatedDate"] = self._now()
        return json_response(200, comment)

    def _delete_comment(
        self, identity: dict[str, Any], params: dict[str, str], **_: Any
    ) -> httpx.Response:
        thread, comment = self._find(params["threadId"]), self._find_comment(params)
        if thread is None or comment is None:
            return _error(404, "TF401181: The comment does not exist.")
        if comment["author"]["id"] != identity["id"]:
            return _error(403, "Only the author of a comment can delete it.")
        comment["isDeleted"] = True
        if all(c["isDeleted"] for c in thread["comments"]):
            thread["isDeleted"] = True
        return httpx.Response(200)

    def _create_status(
        self, identity: dict[str, Any], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        context = body.get("context") or {}
        if not context.get("name") or body.get("state") is None:
            return _error(400, "A status needs a context name and a state.")
        if body.get("iterationId") not in (None, *range(1, len(self.iterations) + 1)):
            return _error(400, "TF401175: the iteration does not exist")
        self._ids += 1
        status = {
            **body,
            "id": self._ids,
            "createdBy": identity,
            "creationDate": self._now(),
            "updatedDate": self._now(),
        }
        self.statuses.append(status)
        return json_response(200, status)

    def _list_statuses(self, **_: Any) -> httpx.Response:
        return _list(self.statuses)

    # --- helpers ------------------------------------------------------------------------

    def _thread(self, status: str, comments: list[dict[str, Any]]) -> dict[str, Any]:
        self._ids += 1
        for index, comment in enumerate(comments):
            comment["id"] = index + 1
            comment["parentCommentId"] = 0 if index == 0 else 1
        now = self._now()
        return {
            "id": self._ids,
            "status": status,
            "comments": comments,
            "publishedDate": now,
            "lastUpdatedDate": now,
            "isDeleted": False,
            "properties": {},
        }

    def _comment(
        self, identity: dict[str, Any], content: str, system: bool = False
    ) -> dict[str, Any]:
        now = self._now()
        return {
            "id": 0,
            "parentCommentId": 0,
            "author": dict(identity),
            "content": content,
            "commentType": "system" if system else "text",
            "publishedDate": now,
            "lastUpdatedDate": now,
            "lastContentUpdatedDate": now,
            "isDeleted": False,
            "usersLiked": [],
        }

    def _find(self, thread_id: str) -> dict[str, Any] | None:
        return next(
            (t for t in self.threads if t["id"] == int(thread_id) and not t["isDeleted"]), None
        )

    def _find_comment(self, params: dict[str, str]) -> dict[str, Any] | None:
        thread = self._find(params["threadId"])
        comments = thread["comments"] if thread else []
        found = [c for c in comments if c["id"] == int(params["commentId"])]
        return found[0] if found and not found[0]["isDeleted"] else None

    def _now(self) -> str:
        self._tick += 1
        return f"2026-01-01T00:{self._tick // 60 % 60:02d}:{self._tick % 60:02d}Z"


def _list(items: list[dict[str, Any]]) -> httpx.Response:
    return json_response(200, {"count": len(items), "value": items})


def _error(status: int, message: str) -> httpx.Response:
    return json_response(
        status,
        {
            "$id": "1",
            "message": message,
            "typeKey": "InvalidArgumentValueException",
            "errorCode": 0,
        },
    )
