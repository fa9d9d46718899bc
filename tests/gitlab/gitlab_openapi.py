"""GitLab's OpenAPI extract (../shared/gitlab/gitlab-rest-subset.json) as a request checker.

The extract has the GitHub one's shape, so `github_openapi.GitHubSpec` matches routes and
checks parameters and bodies; this adds what its README asks of a GitLab validator:
request bodies with ``nullable`` turned into a type union first, the rules that exist only
as text (a note body of at most 1,000,000 characters; updating a discussion note takes
exactly one of ``body`` and ``resolved``; a text position names a path and a line), and
the list operations whose 200 schema describes one item (``x-source-quirk``) checked item
by item, without the ``notes`` the source types as one object.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import orjson

from github.github_openapi import GitHubSpec, Route, SpecViolation, nullable_to_jsonschema

MAX_NOTE_BODY = 1_000_000
UPDATE_DISCUSSION_NOTE = (
    "putApiV4ProjectsIdMergeRequestsNoteableIdDiscussionsDiscussionIdNotesNoteId"
)


class GitLabSpec(GitHubSpec):
    def __init__(self, document: dict[str, Any]) -> None:
        document = copy.deepcopy(document)
        for operation in document["operations"].values():
            if operation.get("requestBody") is not None:
                operation["requestBody"] = nullable_to_jsonschema(operation["requestBody"])
        super().__init__(document)
        self.aliases: dict[str, str] = document["aliases"]
        self.names = {operation_id: alias for alias, operation_id in self.aliases.items()}

    @classmethod
    def load(cls, path: Path) -> GitLabSpec:
        return cls(orjson.loads(path.read_bytes()))

    def check_request(
        self, route: Route, params: dict[str, str], query: dict[str, str], body: Any
    ) -> None:
        super().check_request(route, params, query, body)
        if not isinstance(body, dict):
            return
        text = body.get("body")
        if isinstance(text, str) and len(text) > MAX_NOTE_BODY:
            raise SpecViolation(
                f"{route.operation_id}: a note body is at most 1,000,000 characters"
            )
        if route.operation_id == UPDATE_DISCUSSION_NOTE and ("body" in body) == (
            "resolved" in body
        ):
            raise SpecViolation(f"{route.operation_id}: exactly one of body and resolved")
        position = body.get("position")
        if isinstance(position, dict) and position.get("position_type") == "text":
            if not (position.get("new_path") or position.get("old_path")):
                raise SpecViolation(f"{route.operation_id}: a text position names a path")
            if position.get("new_line") is None and position.get("old_line") is None:
                raise SpecViolation(f"{route.operation_id}: a text position names a line")

    def check_response(
        self, route: Route, status: int, data: Any, *, nullable: frozenset[str] = frozenset()
    ) -> None:
        """Validate a stand-in answer; a one-item schema is checked against every item."""
        name = route.operation.get("responseSchemas", {}).get(str(status), "")
        if name.startswith("array<") or name not in self.schemas:
            super().check_response(route, status, data, nullable=nullable)
            return
        item = nullable_to_jsonschema(self.schemas[name])
        item["properties"].pop("notes", None)  # typed as one object by the source: a quirk
        note = nullable_to_jsonschema(self.schemas["APIEntitiesNote"])
        for entry in data if isinstance(data, list) else [data]:
            jsonschema.Draft7Validator(item).validate(entry)
            for each in entry.get("notes", []) if name == "APIEntitiesDiscussion" else []:
                jsonschema.Draft7Validator(note).validate(each)
