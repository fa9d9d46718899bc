"""GitHub's GraphQL endpoint for the fake: documents validated against GitHub's own schema.

Every document a client sends is parsed and validated with graphql-core against
../shared/github/graphql/schema.graphql (built once, trusting the file, as its README
says); an invalid one is a `SpecViolation`, like a malformed REST request. Valid documents
are executed against that schema with plain resolvers over the fake's state, so the answer
has exactly the shape the document asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import graphql
import httpx

from conftest import shared_path
from github.fake_payloads import json_response
from github.github_openapi import SpecViolation

Resolvers = dict[str, Callable[..., Any]]


@functools.cache
def schema() -> graphql.GraphQLSchema:
    sdl = shared_path("github", "graphql", "schema.graphql").read_text(encoding="utf-8")
    return graphql.build_ast_schema(graphql.parse(sdl), assume_valid=True, assume_valid_sdl=True)


def check_document(body: Any) -> graphql.DocumentNode:
    """The parsed document of a GraphQL request body, or `SpecViolation`."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        raise SpecViolation("GraphQL: the body must be an object with a 'query' string")
    if not isinstance(body.get("variables", {}), dict):
        raise SpecViolation("GraphQL: 'variables' must be an object")
    try:
        document = graphql.parse(body["query"])
    except graphql.GraphQLError as err:
        raise SpecViolation(f"GraphQL: {err.message}") from None
    errors = graphql.validate(schema(), document)
    if errors:
        raise SpecViolation(f"GraphQL: {errors[0].message}")
    return document


def answer(body: Any, root: Resolvers) -> httpx.Response:
    """Execute a validated request with `root` resolving the top-level fields."""
    document = check_document(body)
    result = graphql.execute_sync(
        schema(), document, root_value=root, variable_values=body.get("variables") or {}
    )
    data: dict[str, Any] = {"data": result.data}
    if result.errors:
        data["errors"] = [{"message": error.message} for error in result.errors]
    return json_response(200, data)
