"""GitHub's OpenAPI extract (../shared/github/github-rest-subset.json) as a request checker.

Routes are matched by method and path template; path and query parameters are checked
against their parameter schemas (plus the documented `per_page` maximum of 100, which the
description states only in prose); request bodies are validated with jsonschema against the
operation's fully resolved `requestBody`. Response schemas are OpenAPI 3.0, so `nullable`
is turned into a JSON Schema type union before they are used to check the fake's answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import orjson


class SpecViolation(AssertionError):
    """A request the real GitHub would reject as malformed: a bug in the client under test."""


@dataclass(frozen=True)
class Route:
    operation_id: str
    method: str
    template: str
    pattern: re.Pattern[str]
    operation: dict[str, Any]


class GitHubSpec:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.routes = [
            make_route(operation_id, operation)
            for operation_id, operation in document["operations"].items()
        ]
        # Schemas "captured in passing" (the check run) are in `extra_schemas`.
        self.schemas: dict[str, Any] = {**document.get("extra_schemas", {}), **document["schemas"]}

    @classmethod
    def load(cls, path: Path) -> GitHubSpec:
        return cls(orjson.loads(path.read_bytes()))

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            found = route.pattern.fullmatch(path)
            if route.method == method and found:
                return route, found.groupdict()
        return None

    def check_request(
        self, route: Route, params: dict[str, str], query: dict[str, str], body: Any
    ) -> None:
        """Raise `SpecViolation` unless the request is what the operation accepts."""
        declared = {p["name"]: p for p in route.operation["parameters"]}
        for name, value in params.items():
            _check_parameter(route, declared[name], value)
        for name, value in query.items():
            if name not in declared or declared[name]["in"] != "query":
                raise SpecViolation(f"{route.operation_id}: unknown query parameter {name!r}")
            _check_parameter(route, declared[name], value)
        if "per_page" in query and int(query["per_page"]) > 100:
            raise SpecViolation(f"{route.operation_id}: per_page is at most 100")
        schema = route.operation.get("requestBody")
        if schema is None:
            if body is not None:
                raise SpecViolation(f"{route.operation_id} takes no request body")
            return
        if body is None and route.operation.get("requestBodyRequired"):
            raise SpecViolation(f"{route.operation_id} requires a request body")
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(body), key=str)
        if errors:
            where = "/".join(str(part) for part in errors[0].absolute_path)
            raise SpecViolation(f"{route.operation_id}: body /{where}: {errors[0].message}")

    def check_response(
        self, route: Route, status: int, data: Any, *, nullable: frozenset[str] = frozenset()
    ) -> None:
        """Raise AssertionError unless a fake answer matches the documented response schema."""
        name = route.operation.get("responseSchemas", {}).get(str(status))
        if name is None:
            return
        many = name.startswith("array<")
        name = name.removeprefix("array<").removesuffix(">")
        if name not in self.schemas:
            return
        schema = nullable_to_jsonschema(self.schemas[name])
        for prop in nullable & schema.get("properties", {}).keys():
            kind = schema["properties"][prop]["type"]
            schema["properties"][prop]["type"] = [kind, "null"] if isinstance(kind, str) else kind
        if many:
            schema = {"type": "array", "items": schema}
        jsonschema.Draft7Validator(schema).validate(data)


def nullable_to_jsonschema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema with every `nullable: true` turned into a `null` type option."""
    if isinstance(schema, list):
        return [nullable_to_jsonschema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: nullable_to_jsonschema(value) for key, value in schema.items()}
    if converted.pop("nullable", False) and "type" in converted:
        converted["type"] = [converted["type"], "null"]
        if "enum" in converted:
            converted["enum"] = [*converted["enum"], None]
    return converted


def make_route(operation_id: str, operation: dict[str, Any]) -> Route:
    """The route of an operation in the extract's shape (method, path template, parameters)."""
    template = operation["path"]
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    return Route(operation_id, operation["method"], template, re.compile(pattern), operation)


def _check_parameter(route: Route, parameter: dict[str, Any], text: str) -> None:
    schema = parameter["schema"]
    value: Any = text
    if schema.get("type") == "integer":
        if not re.fullmatch(r"-?\d+", text):
            raise SpecViolation(
                f"{route.operation_id}: parameter {parameter['name']} must be an integer, "
                f"not {text!r}"
            )
        value = int(text)
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(value))
    if errors:
        raise SpecViolation(
            f"{route.operation_id}: parameter {parameter['name']}: {errors[0].message}"
        )
