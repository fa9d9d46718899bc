"""Bitbucket Cloud's REST 2.0 extract (../shared/bitbucket-cloud) as a request checker.

Swagger 2.0, as for Azure DevOps: a request is matched by method and path template, its
path and query parameters checked (an integer is an integer, an unknown query parameter
refused, ``pagelen`` at most 100), and its body validated with `jsonschema.Draft4Validator`.
What the README asks beyond the schemas: a comment body (create or update) is checked
against the authored ``pullrequest-comment-create`` (Atlassian's own schema requires a
``type`` no client sends); other bodies get their resource ``type`` added first; a bulk of
annotations is also checked against ``annotations-bulk`` (at most 100); and a report's
``data[].value`` may be any JSON value (Atlassian's own sample sends numbers). Answers are
checked against the response schemas as given.
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

# The resource type a body stands for, added before validating it (README: every schema
# inherits `object`, which requires `type`).
TYPES = {
    "commitstatus": "commitstatus",
    "report": "report",
    "report_annotation": "report_annotation",
}


@dataclass(frozen=True)
class Operation:
    alias: str
    method: str
    pattern: re.Pattern[str]
    parameters: dict[str, dict[str, Any]]
    body: dict[str, Any] | None
    response: dict[str, Any] | None


class BitbucketSpec:
    def __init__(self, document: dict[str, Any]) -> None:
        schemas = copy.deepcopy(document["schemas"])
        data = schemas["report_data"]
        data.get("properties", data)["value"] = {}
        self.schemas = schemas
        self.extra = document["extra_schemas"]
        self.operations = [_operation(alias, op) for alias, op in document["operations"].items()]

    @classmethod
    def load(cls, path: Path) -> BitbucketSpec:
        return cls(orjson.loads(path.read_bytes()))

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        for operation in self.operations:
            found = operation.pattern.fullmatch(path)
            if operation.method == method and found:
                return operation, found.groupdict()
        return None

    def check_request(
        self, operation: Operation, params: dict[str, str], query: dict[str, str], body: Any
    ) -> None:
        where = operation.alias
        for name, value in params.items():
            _check_value(where, operation.parameters[name], value)
        for name, value in query.items():
            if name in ("page", "pagelen") and operation.response is not None:
                if not value.isdigit() or (name == "pagelen" and not 1 <= int(value) <= 100):
                    raise SpecViolation(f"{where}: {name} must be a number (pagelen 1-100)")
                continue
            declared = operation.parameters.get(name)
            if declared is None or declared["in"] != "query":
                raise SpecViolation(f"{where}: unknown query parameter {name!r}")
            _check_value(where, declared, value)
        if operation.body is None:
            if body is not None:
                raise SpecViolation(f"{where} takes no request body")
            return
        if body is None:
            raise SpecViolation(f"{where} requires a request body")
        if where in ("comments/create", "comments/update"):
            self._validate(where, self.extra["pullrequest-comment-create"], body)
            return
        if where == "annotations/bulk-create-or-update":
            self._validate(where, self.extra["annotations-bulk"], body)
            body = [{"type": "report_annotation", **item} for item in body]
        else:
            name = operation.body.get("$ref", "").rsplit("/", 1)[-1]
            body = {"type": TYPES[name], **body} if name in TYPES else body
        self._validate(where, operation.body, body)

    def check_response(self, operation: Operation, data: Any) -> None:
        if operation.response:
            schema = {"schemas": self.schemas, **operation.response}
            jsonschema.Draft4Validator(schema).validate(data)

    def _validate(self, where: str, schema: dict[str, Any], data: Any) -> None:
        validator = jsonschema.Draft4Validator({"schemas": self.schemas, **schema})
        errors = sorted(validator.iter_errors(data), key=str)
        if errors:
            at = "/".join(str(part) for part in errors[0].absolute_path)
            raise SpecViolation(f"{where}: body /{at}: {errors[0].message}")


def _operation(alias: str, operation: dict[str, Any]) -> Operation:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(operation["path"]))
    parameters = {p["name"]: p for p in operation.get("parameters", [])}
    body = next((p["schema"] for p in parameters.values() if p["in"] == "body"), None)
    responses = operation["responses"]
    success: dict[str, Any] = next((responses[c] for c in ("200", "201") if c in responses), {})
    return Operation(
        alias,
        operation["method"],
        re.compile(pattern),
        parameters,
        body,
        success.get("schema"),
    )


def _check_value(where: str, parameter: dict[str, Any], text: str) -> None:
    if parameter.get("type") == "integer" and not re.fullmatch(r"\d+", text):
        raise SpecViolation(f"{where}: parameter {parameter['name']} must be an integer: {text!r}")
    if not text:
        raise SpecViolation(f"{where}: parameter {parameter['name']} is empty")
