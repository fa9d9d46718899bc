"""Azure DevOps' Git REST 7.1 extract (../shared/azure-devops) as a request checker.

The extract is Swagger 2.0: each operation's path template, its parameters (``in`` path,
query or body, with ``type`` inline) and its responses. A request is matched by method and
template; path and query parameters are checked (an integer is an integer, an unknown
query parameter is refused, ``api-version`` is ``7.1``), and a body is validated with
`jsonschema.Draft4Validator` against the body parameter's schema, resolved in the
extract's ``schemas``. What the README asks of a validator beyond the schemas: thread
``status`` and comment ``commentType`` are accepted as Microsoft's integer codes too
(``extra_schemas``), although the client under test must send the strings (`strict`
refuses the integers, and the stand-in uses it); a change's ``item`` is an object with a
``path`` on the wire (the extract types it as a string). List answers are checked item by
item, since Azure DevOps wraps a list in ``{"count", "value"}``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import orjson

from github.github_openapi import SpecViolation

API_VERSION = "7.1"


@dataclass(frozen=True)
class Operation:
    operation_id: str
    alias: str
    method: str
    pattern: re.Pattern[str]
    parameters: dict[str, dict[str, Any]]
    body: dict[str, Any] | None
    response: dict[str, Any] | None


class AzureDevOpsSpec:
    def __init__(self, document: dict[str, Any], *, strict: bool = True) -> None:
        self.document = document
        schemas = copy.deepcopy(document["schemas"])
        extra = document["extra_schemas"]
        if not strict:  # Microsoft's own example: integer codes
            codes = {k: v for k, v in extra["comment-thread-status-codes"].items() if k != "x-map"}
            schemas["CommentThread"]["properties"]["status"] = codes
            kinds = {k: v for k, v in extra["comment-type-codes"].items() if k != "x-map"}
            schemas["Comment"]["properties"]["commentType"] = kinds
        schemas["Change"]["properties"]["item"] = {
            "type": "object",
            "required": ["path"],
            "properties": {"path": {"type": "string", "pattern": "^/"}},
        }
        self.schemas = schemas
        names = {operation_id: alias for alias, operation_id in document["aliases"].items()}
        self.operations = [
            _operation(operation_id, names[operation_id], operation)
            for operation_id, operation in document["operations"].items()
        ]

    @classmethod
    def load(cls, path: Path, *, strict: bool = True) -> AzureDevOpsSpec:
        return cls(orjson.loads(path.read_bytes()), strict=strict)

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        for operation in self.operations:
            found = operation.pattern.fullmatch(path)
            if operation.method == method and found:
                return operation, found.groupdict()
        return None

    def check_request(
        self, operation: Operation, params: dict[str, str], query: dict[str, str], body: Any
    ) -> None:
        """Raise `SpecViolation` unless the request is what the operation accepts."""
        where = operation.alias
        for name, value in params.items():
            _check_value(where, operation.parameters[name], value)
        for name, value in query.items():
            declared = operation.parameters.get(name)
            if declared is None or declared["in"] != "query":
                raise SpecViolation(f"{where}: unknown query parameter {name!r}")
            _check_value(where, declared, value)
        if query.get("api-version") != API_VERSION:
            raise SpecViolation(f"{where}: api-version=7.1 is required, not {query!r}")
        if operation.body is None:
            if body is not None:
                raise SpecViolation(f"{where} takes no request body")
            return
        if body is None:
            raise SpecViolation(f"{where} requires a request body")
        self._validate(where, operation.body, body)

    def check_response(self, operation: Operation, data: Any) -> None:
        """Raise AssertionError unless a stand-in answer matches the response schema."""
        if operation.response is None or not operation.response:
            return
        schema = operation.response
        if schema.get("type") == "array" and isinstance(data, dict):
            data = data["value"]
        jsonschema.Draft4Validator({"schemas": self.schemas, **schema}).validate(data)

    def validate(self, name: str, data: Any) -> None:
        """Raise `SpecViolation` unless `data` is a valid `name` (a schema of the extract)."""
        self._validate(name, {"$ref": f"#/schemas/{name}"}, data)

    def _validate(self, where: str, schema: dict[str, Any], data: Any) -> None:
        validator = jsonschema.Draft4Validator({"schemas": self.schemas, **schema})
        errors = sorted(validator.iter_errors(data), key=str)
        if errors:
            at = "/".join(str(part) for part in errors[0].absolute_path)
            raise SpecViolation(f"{where}: body /{at}: {errors[0].message}")


def _operation(operation_id: str, alias: str, operation: dict[str, Any]) -> Operation:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(operation["path"]))
    parameters = {p["name"]: p for p in operation["parameters"]}
    body = next((p["schema"] for p in operation["parameters"] if p["in"] == "body"), None)
    response = (operation["responses"].get("200") or {}).get("schema")
    return Operation(
        operation_id,
        alias,
        operation["method"],
        re.compile(pattern),
        parameters,
        body,
        response,
    )


def _check_value(where: str, parameter: dict[str, Any], text: str) -> None:
    kind = parameter.get("type")
    if kind == "integer" and not re.fullmatch(r"-?\d+", text):
        raise SpecViolation(f"{where}: parameter {parameter['name']} must be an integer: {text!r}")
    if kind == "boolean" and text not in ("true", "false"):
        raise SpecViolation(f"{where}: parameter {parameter['name']} must be true or false")
    if not text:
        raise SpecViolation(f"{where}: parameter {parameter['name']} is empty")
