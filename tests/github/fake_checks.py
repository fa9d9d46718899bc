"""The stand-in's check runs: checks/create, update and get, and the list for a commit.

Bodies are validated against GitHub's OpenAPI extract by `FakeGitHub` before they get here;
this module adds what GitHub enforces beyond the schema (an annotation's title of at most
255 characters, message and raw_details of at most 64 KB, columns only on a one-line
annotation, a head SHA the repository has, only GitHub Apps create check runs, an app
updates only its own) and GitHub's semantics: an update replaces the output's title,
summary and text, appends its annotations, and a conclusion completes the run. The list
of a commit's check runs (checks/list-for-ref) is not in the extract; `beyond_extract`
describes it, so that its requests are checked the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from github.fake_payloads import WEB, error, json_response, unprocessable, validation

if TYPE_CHECKING:
    from github.fake import FakeGitHub

MAX_ANNOTATION_BYTES = 64 * 1024


class CheckRuns:
    """The repository's check runs, and each run's annotations in the order they came."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.runs: list[dict[str, Any]] = []
        self.annotations: dict[int, list[dict[str, Any]]] = {}
        self.commits: set[str] = set()
        self.apps: dict[int, str] = {}  # the app that created each run

    def handlers(self) -> dict[str, Any]:
        return {
            "checks/create": self.create,
            "checks/update": self.update,
            "checks/get": self.get,
            "checks/list-for-ref": self.list_for_ref,
        }

    def named(self, name: str, head_sha: str | None = None) -> list[dict[str, Any]]:
        sha = head_sha or self.fake.head_sha
        return [run for run in self.runs if run["name"] == name and run["head_sha"] == sha]

    # --- endpoints ----------------------------------------------------------------------

    def create(self, login: str, body: dict[str, Any], **_: Any) -> httpx.Response:
        if not login.endswith("[bot]"):
            return error(403, "You must authenticate via a GitHub App.")
        if body["head_sha"] not in self.commits | {self.fake.head_sha}:
            return unprocessable(f"No commit found for SHA: {body['head_sha']}")
        problem = _output_problem(body.get("output"))
        if problem:
            return validation("CheckRun", "output", problem)
        run = self._run(login, body)
        self.runs.append(run)
        self.apps[run["id"]] = _slug(login)
        self.annotations[run["id"]] = []
        self._apply(run, body)
        return json_response(201, run)

    def update(
        self, login: str, params: dict[str, str], body: dict[str, Any], **_: Any
    ) -> httpx.Response:
        run = self._find(params["check_run_id"])
        if run is None:
            return error(404, "Not Found")
        if self.apps[run["id"]] != _slug(login):
            return error(403, "Invalid app: this check run belongs to another GitHub App")
        problem = _output_problem(body.get("output"))
        if problem:
            return validation("CheckRun", "output", problem)
        self._apply(run, body)
        return json_response(200, run)

    def get(self, params: dict[str, str], **_: Any) -> httpx.Response:
        run = self._find(params["check_run_id"])
        return error(404, "Not Found") if run is None else json_response(200, run)

    def list_for_ref(
        self, params: dict[str, str], query: dict[str, str], **_: Any
    ) -> httpx.Response:
        runs = [run for run in self.runs if run["head_sha"] == params["ref"]]
        if "check_name" in query:
            runs = [run for run in runs if run["name"] == query["check_name"]]
        if "status" in query:
            runs = [run for run in runs if run["status"] == query["status"]]
        if query.get("filter", "latest") == "latest":
            newest = {run["name"]: run for run in sorted(runs, key=lambda run: run["id"])}
            runs = list(newest.values())
        runs = sorted(runs, key=lambda run: -run["id"])
        per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
        chunk = runs[(page - 1) * per_page : page * per_page]
        return json_response(200, {"total_count": len(runs), "check_runs": chunk})

    # --- helpers ------------------------------------------------------------------------

    def _run(self, login: str, body: dict[str, Any]) -> dict[str, Any]:
        run_id = self.fake._next_id()
        repository = f"{self.fake.owner}/{self.fake.repo}"
        url = f"{self.fake.api_url}/repos/{repository}/check-runs/{run_id}"
        now = self.fake._now()
        return {
            "id": run_id,
            "node_id": f"CR_{run_id}",
            "head_sha": body["head_sha"],
            "name": body["name"],
            "external_id": body.get("external_id", ""),
            "url": url,
            "html_url": f"{WEB}/{repository}/runs/{run_id}",
            "details_url": body.get("details_url", f"{WEB}/apps/{_slug(login)}"),
            "status": "queued",
            "conclusion": None,
            "started_at": now,
            "completed_at": None,
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": f"{url}/annotations",
            },
            "check_suite": {"id": 1},
            # The extract abbreviates the app's owner to a oneOf that no object satisfies
            # (two alternatives both reduced to "an object"), so the app is left null.
            "app": None,
            "pull_requests": [],
        }

    def _apply(self, run: dict[str, Any], body: dict[str, Any]) -> None:
        if "status" in body:
            run["status"] = body["status"]
        if "conclusion" in body:
            run["status"], run["conclusion"] = "completed", body["conclusion"]
            run["completed_at"] = self.fake._now()
        output = body.get("output")
        if output is None:
            return
        for key in ("title", "summary", "text"):
            if key in output:
                run["output"][key] = output[key]
        added = output.get("annotations", [])
        self.annotations[run["id"]].extend(added)
        run["output"]["annotations_count"] += len(added)

    def _find(self, run_id: str) -> dict[str, Any] | None:
        return next((run for run in self.runs if run["id"] == int(run_id)), None)


def _slug(login: str) -> str:
    return login.removesuffix("[bot]")


def _output_problem(output: dict[str, Any] | None) -> str | None:
    for annotation in (output or {}).get("annotations", []):
        if len(annotation.get("title", "")) > 255:
            return "annotation title is too long (maximum is 255 characters)"
        for key in ("message", "raw_details"):
            if len(annotation.get(key, "").encode("utf-8")) > MAX_ANNOTATION_BYTES:
                return f"annotation {key} is too long (maximum is 64 KB)"
        columns = "start_column" in annotation or "end_column" in annotation
        if columns and annotation["start_line"] != annotation["end_line"]:
            return "start_column and end_column are only allowed on a one-line annotation"
        if annotation["end_line"] < annotation["start_line"]:
            return "end_line must not be before start_line"
    return None
