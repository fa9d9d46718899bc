"""A stateful stand-in for the GitLab REST v4 endpoints review-quorum reads and posts through.

`FakeGitLab` keeps one merge request of one project (addressed by id or by its encoded
path): its versions with their file diffs, its discussions and notes, commit statuses and
the users behind tokens. Every request is validated against GitLab's OpenAPI extract
first (`SpecViolation` on a malformed one), then against the rules GitLab enforces beyond
the schema: a diff note's position names the SHAs of one version and a line of its diff
(an added line by ``new_line`` alone, an unchanged line by ``old_line`` and ``new_line``,
``line_range`` ends with their line codes: `fake_diffs`), only a note's author edits its body, only
resolvable discussions resolve, job tokens are refused. Lists are paged with ``x-next-page``
(and ``Link``); answers are checked against the response schemas. Faults are injected per
operation (by alias, such as ``discussions/create``) as for the GitHub stand-in
(`github.fake_rest.Faults`): a 429 with Retry-After, a 5xx (optionally after applying the
request), an interruption. `push` makes a new version and traces diff notes to their new
lines, as GitLab does; a note whose line changed keeps its old position and becomes outdated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import orjson

from github.fake_payloads import json_response
from github.fake_rest import FakeTime, Fault, Interrupted, RestStandIn
from github.github_openapi import SpecViolation
from gitlab.fake_diffs import anchor_problem, diff_text, trace
from gitlab.gitlab_openapi import GitLabSpec

API = "https://gitlab.example.com/api/v4"
WEB = "https://gitlab.example.com"
PROJECT_ID = 4242
PROJECT_PATH = "acme/stockroom"

__all__ = ["API", "FakeGitLab", "FakeTime", "Interrupted", "diff_text"]


class FakeGitLab(RestStandIn):
    """One merge request of one project; faults are injected as for the GitHub stand-in."""

    def __init__(self, spec: GitLabSpec, *, api_url: str = API, iid: int = 7) -> None:
        self.spec, self.api_url, self.iid = spec, api_url.rstrip("/"), iid
        self.tokens: dict[str, dict[str, Any]] = {}
        self.read_only: set[str] = set()
        self.versions: list[dict[str, Any]] = []
        self.version_diffs: dict[int, dict[str, str]] = {}
        self.discussions: list[dict[str, Any]] = []
        self.statuses: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.log: list[tuple[str, str, int]] = []
        self.page_cap: int | None = None
        self.time = FakeTime()
        self.state, self.author = "opened", "dana"  # the merge request's
        self.awards: dict[int, list[dict[str, Any]]] = {}  # note id -> award emoji
        self._ids = 9000
        self._tick = 0

    # --- setting the scene --------------------------------------------------------------

    def add_user(self, token: str | None, username: str, *, bot: bool = False) -> dict[str, Any]:
        user = {"id": 100 + len(self.tokens), "username": username, "name": username, "bot": bot}
        self.tokens[token or f"no-token-{username}"] = user
        return user

    def user(self, username: str) -> dict[str, Any]:
        found = next((u for u in self.tokens.values() if u["username"] == username), None)
        return found or self.add_user(None, username)

    def push(
        self,
        sha: str,
        diffs: Mapping[str, str],
        move: Callable[[str, int], int | None] | None = None,
    ) -> dict[str, Any]:
        """A new version with head `sha`: diff notes that `move` maps follow their line."""
        self._ids += 1
        base = "b" * 40
        version: dict[str, Any] = {
            "id": self._ids,
            "head_commit_sha": sha,
            "base_commit_sha": base,
            "start_commit_sha": base,
            "created_at": self._now(),
            "merge_request_id": 1,
            "state": "collected",
            "real_size": str(len(diffs)),
            "patch_id_sha": hashlib.sha1(sha.encode()).hexdigest(),
        }
        self.versions.append(version)
        self.version_diffs[version["id"]] = dict(diffs)
        if move is not None:
            for discussion in self.discussions:
                for note in discussion["notes"]:
                    trace(note, version, self.version_diffs[version["id"]], move)
        return version

    def add_note(
        self,
        username: str,
        body: str,
        *,
        position: dict[str, Any] | None = None,
        reply_to: dict[str, Any] | None = None,
        system: bool = False,
    ) -> dict[str, Any]:
        """A note by `username`: a new thread (a diff thread with `position`) or a reply."""
        if reply_to is not None:
            note = self._note(username, body, "DiscussionNote", None)
            reply_to["notes"].append(note)
            return note
        kind = "DiffNote" if position else None
        discussion = self._discussion([self._note(username, body, kind, position, system)])
        discussion["individual_note"] = position is None
        if position is None:
            discussion["notes"][0]["resolvable"] = False
        self.discussions.append(discussion)
        return discussion

    def position(self, path: str, new_line: int, old_line: int | None = None) -> dict[str, Any]:
        """A text position on the newest version."""
        head = self.versions[-1]
        position = {
            "base_sha": head["base_commit_sha"],
            "start_sha": head["start_commit_sha"],
            "head_sha": head["head_commit_sha"],
            "position_type": "text",
            "new_path": path,
            "old_path": path,
            "new_line": new_line,
            "old_line": old_line,
        }
        return position

    def award(self, note: dict[str, Any], username: str, name: str) -> dict[str, Any]:
        """`username` awards `name` (thumbsup, thumbsdown...) to `note`."""
        self._ids += 1
        award = {
            "id": self._ids,
            "name": name,
            "user": self._author(username),
            "created_at": self._now(),
            "updated_at": self._now(),
            "awardable_id": note["id"],
            "awardable_type": "Note",
        }
        self.awards.setdefault(note["id"], []).append(award)
        return award

    def resolve(self, discussion: dict[str, Any], username: str) -> None:
        """`username` resolves `discussion` in the web interface."""
        for note in discussion["notes"]:
            if note["resolvable"]:
                note.update(resolved=True, resolved_by=self._author(username))
                note["resolved_at"] = self._now()
        discussion["resolved"] = True

    # --- what tests look at -------------------------------------------------------------

    @property
    def head_sha(self) -> str:
        return str(self.versions[-1]["head_commit_sha"])

    def threads_by(self, username: str) -> list[dict[str, Any]]:
        return [d for d in self.discussions if d["notes"][0]["author"]["username"] == username]

    # --- the transport ------------------------------------------------------------------

    def _answer(
        self, request: httpx.Request, path: str, query: dict[str, str], body: Any
    ) -> httpx.Response:
        if "job-token" in request.headers:
            return _error(401, "401 Unauthorized")
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        user = self.tokens.get(token) or self.tokens.get(request.headers.get("private-token", ""))
        if user is None:
            return _error(401, "401 Unauthorized")
        matched = self.spec.match(request.method, path)
        if matched is None:
            raise SpecViolation(f"no GitLab operation for {request.method} {path}")
        route, params = matched
        self.spec.check_request(route, params, query, body)
        if "per_page" in query and int(query["per_page"]) > 100:
            raise SpecViolation("per_page is at most 100")
        if "id" in params and params["id"] not in (str(PROJECT_ID), quote(PROJECT_PATH, safe="")):
            return _error(404, "404 Project Not Found")
        iid = params.get("merge_request_iid") or params.get("noteable_id")
        if iid is not None and int(iid) != self.iid:
            return _error(404, "404 Not found")
        if request.method != "GET" and token in self.read_only:
            return _error(403, "403 Forbidden")
        fault = self._fault(self.spec.names.get(route.operation_id, route.operation_id))
        if fault is not None and not fault.apply:
            return fault.response()
        response = self._dispatch(route.operation_id, user, params, query, body, path)
        if response.status_code < 300:
            data = orjson.loads(response.content or b"null")
            self.spec.check_response(route, response.status_code, data)
        if fault is not None:
            return fault.response()
        return response

    def _dispatch(
        self,
        operation_id: str,
        user: dict[str, Any],
        params: dict[str, str],
        query: dict[str, str],
        body: Any,
        path: str,
    ) -> httpx.Response:
        name = self.spec.names.get(operation_id, operation_id)
        handlers: dict[str, Callable[..., httpx.Response]] = {
            "users/get-current": self._current_user,
            "merge_requests/get": self._get_merge_request,
            "award_emoji/list-for-note": self._list_awards,
            "merge_requests/list-versions": self._list_versions,
            "merge_requests/get-version": self._get_version,
            "discussions/list": self._list_discussions,
            "discussions/create": self._create_discussion,
            "discussions/resolve": self._resolve,
            "discussions/update-note": self._update_discussion_note,
            "discussions/delete-note": self._delete_discussion_note,
            "notes/list": self._list_notes,
            "notes/create": self._create_note,
            "notes/update": self._update_note,
            "commit_statuses/create": self._create_status,
        }
        handler = handlers.get(name)
        if handler is None:
            raise SpecViolation(f"the stand-in does not implement {name}")
        return handler(user=user, params=params, query=query, body=body, path=path)

    # --- endpoints ----------------------------------------------------------------------

    def _current_user(self, user: dict[str, Any], **_: Any) -> httpx.Response:
        return json_response(
            200, {**user, "state": "active", "web_url": f"{WEB}/{user['username']}"}
        )

    def _get_merge_request(self, **_: Any) -> httpx.Response:
        head = self.versions[-1]
        merge_request = {
            "id": 1,
            "iid": self.iid,
            "project_id": PROJECT_ID,
            "title": "Stock counts",
            "state": self.state,
            "author": self._author(self.author),
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": self.versions[-1]["created_at"],
            "sha": head["head_commit_sha"],
            "source_branch": "counts",
            "target_branch": "main",
            "web_url": f"{WEB}/{PROJECT_PATH}/-/merge_requests/{self.iid}",
            "diff_refs": {
                "base_sha": head["base_commit_sha"],
                "start_sha": head["start_commit_sha"],
                "head_sha": head["head_commit_sha"],
            },
        }
        if self.state == "merged":
            merge_request["merged_at"] = "2026-01-02T00:00:00Z"
        return json_response(200, merge_request)

    def _list_versions(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        return self._page(list(reversed(self.versions)), query, path)

    def _get_version(self, params: dict[str, str], **_: Any) -> httpx.Response:
        version = next((v for v in self.versions if v["id"] == int(params["version_id"])), None)
        if version is None:
            return _error(404, "404 Not found")
        diffs = [
            {
                "old_path": name,
                "new_path": name,
                "diff": text,
                "new_file": False,
                "renamed_file": False,
                "deleted_file": False,
                "a_mode": "100644",
                "b_mode": "100644",
            }
            for name, text in self.version_diffs[version["id"]].items()
        ]
        return json_response(200, {**version, "commits": [], "diffs": diffs})

    def _list_awards(
        self, params: dict[str, str], query: dict[str, str], path: str, **_: Any
    ) -> httpx.Response:
        return self._page(self.awards.get(int(params["note_id"]), []), query, path)

    def _list_discussions(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        return self._page(self.discussions, query, path)

    def _list_notes(self, query: dict[str, str], path: str, **_: Any) -> httpx.Response:
        notes = [note for discussion in self.discussions for note in discussion["notes"]]
        return self._page(notes, query, path)

    def _create_discussion(
        self, user: dict[str, Any], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        position = body.get("position")
        if position is not None:
            problem = anchor_problem(self.versions, self.version_diffs, position)
            if problem:
                return _error(400, {"line_code": [problem]})
        kind = "DiffNote" if position else "DiscussionNote"
        discussion = self._discussion([self._note(user["username"], body["body"], kind, position)])
        self.discussions.append(discussion)
        return json_response(201, discussion)

    def _resolve(
        self, user: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        discussion = self._find_discussion(params["discussion_id"])
        if discussion is None:
            return _error(404, "404 Not found")
        if not discussion["notes"][0]["resolvable"]:
            return _error(400, "400 Bad request - discussion is not resolvable")
        for note in discussion["notes"]:
            if note["resolvable"]:
                note["resolved"] = body["resolved"]
                if body["resolved"]:
                    note["resolved_by"] = self._author(user["username"])
        discussion["resolved"] = body["resolved"]
        return json_response(200, discussion)

    def _update_discussion_note(
        self, user: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        note = self._find_note(params["discussion_id"], params["note_id"])
        if note is None:
            return _error(404, "404 Not found")
        if "resolved" in body:
            note["resolved"] = body["resolved"]
            return json_response(200, note)
        return self._edit(note, user, body["body"])

    def _delete_discussion_note(
        self, user: dict[str, Any], params: dict[str, str], **_: Any
    ) -> httpx.Response:
        discussion = self._find_discussion(params["discussion_id"])
        note = self._find_note(params["discussion_id"], params["note_id"])
        if discussion is None or note is None:
            return _error(404, "404 Not found")
        if note["author"]["username"] != user["username"]:
            return _error(403, "403 Forbidden")
        discussion["notes"].remove(note)
        if not discussion["notes"]:
            self.discussions.remove(discussion)
        return json_response(200, note)

    def _create_note(self, user: dict[str, Any], body: dict[str, Any], **_: Any) -> httpx.Response:
        discussion = self._discussion([self._note(user["username"], body["body"], None, None)])
        discussion["individual_note"] = True
        discussion["notes"][0]["resolvable"] = False
        self.discussions.append(discussion)
        return json_response(201, discussion["notes"][0])

    def _update_note(
        self, user: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        note = next(
            (n for d in self.discussions for n in d["notes"] if n["id"] == int(params["note_id"])),
            None,
        )
        if note is None:
            return _error(404, "404 Not found")
        return self._edit(note, user, body.get("body", note["body"]))

    def _create_status(
        self, user: dict[str, Any], params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        if params["sha"] not in {v["head_commit_sha"] for v in self.versions}:
            return _error(404, "404 Commit Not Found")
        name = body.get("name") or body.get("context") or "default"
        status = next(
            (s for s in self.statuses if (s["sha"], s["name"]) == (params["sha"], name)), None
        )
        if status is None:
            self._ids += 1
            status = {
                "id": self._ids,
                "sha": params["sha"],
                "name": name,
                "created_at": self._now(),
            }
            self.statuses.append(status)
        status.update(
            status=body["state"],
            description=body.get("description", ""),
            target_url=body.get("target_url", ""),
            author=self._author(user["username"]),
        )
        return json_response(200, status)

    # --- rules and helpers ---------------------------------------------------------------

    def _discussion(self, notes: list[dict[str, Any]]) -> dict[str, Any]:
        self._ids += 1
        key = hashlib.sha1(str(self._ids).encode()).hexdigest()
        return {
            "id": key,
            "individual_note": False,
            "notes": notes,
            "resolvable": True,
            "resolved": False,
        }

    def _note(
        self,
        username: str,
        body: str,
        kind: str | None,
        position: dict[str, Any] | None,
        system: bool = False,
    ) -> dict[str, Any]:
        self._ids += 1
        now = self._now()
        note: dict[str, Any] = {
            "id": self._ids,
            "body": body,
            "author": self._author(username),
            "created_at": now,
            "updated_at": now,
            "system": system,
            "noteable_id": 1,
            "noteable_type": "MergeRequest",
            "noteable_iid": self.iid,
            "project_id": PROJECT_ID,
            "resolvable": not system,
            "resolved": False,
            "confidential": False,
            "internal": False,
        }
        if kind is not None:  # GitLab answers null for a plain note; the contract says string
            note["type"] = kind
        if position is not None:
            note["position"] = dict(position)
            note["commit_id"] = position["head_sha"]
        return note

    def _author(self, username: str) -> dict[str, Any]:
        user = self.user(username)
        return {
            "id": user["id"],
            "username": username,
            "name": username,
            "state": "active",
            "web_url": f"{WEB}/{username}",
        }

    def _edit(self, note: dict[str, Any], user: dict[str, Any], text: str) -> httpx.Response:
        if note["author"]["username"] != user["username"]:
            return _error(403, "403 Forbidden")
        note["body"], note["updated_at"] = text, self._now()
        return json_response(200, note)

    def _find_discussion(self, key: str) -> dict[str, Any] | None:
        return next((d for d in self.discussions if d["id"] == key), None)

    def _find_note(self, key: str, note_id: str) -> dict[str, Any] | None:
        discussion = self._find_discussion(key)
        notes = discussion["notes"] if discussion else []
        return next((n for n in notes if n["id"] == int(note_id)), None)

    def _page(
        self, items: list[dict[str, Any]], query: dict[str, str], path: str
    ) -> httpx.Response:
        per_page, page = int(query.get("per_page", 20)), int(query.get("page", 1))
        per_page = min(per_page, self.page_cap or per_page)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {
            "x-page": str(page),
            "x-per-page": str(per_page),
            "x-total": str(len(items)),
            "x-total-pages": str(last),
            "x-next-page": str(page + 1) if page < last else "",
            "x-prev-page": str(page - 1) if page > 1 else "",
        }
        if page < last:
            headers["Link"] = (
                f'<{self.api_url}{path}?{urlencode(query | {"page": str(page + 1)})}>; rel="next"'
            )
        return json_response(200, chunk, headers)

    def _now(self) -> str:
        self._tick += 1
        hours, minutes, seconds = self._tick // 3600 % 24, self._tick // 60 % 60, self._tick % 60
        return f"2026-01-01T{hours:02d}:{minutes:02d}:{seconds:02d}Z"


def _error(status: int, message: object) -> httpx.Response:
    return json_response(status, {"message": message})
