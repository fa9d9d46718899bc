"""GitHub's GraphQL contract for the fake GitHub: every request checked against the schema.

The schema is ../shared/github/graphql/schema.graphql, built once per session trusting the
SDL (GitHub's own does not pass graphql-core's schema checks). A request must parse,
validate (using no field, argument or enum value the schema marks deprecated: GitHub
removes them, as it did `databaseId`, which cannot hold today's ids), name an operation
that exists, and come with exactly the variables that operation defines, each coercible
to its declared type; anything else is a `SpecViolation` (a bug in the client under
test). `fake_graphql` runs what passes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import graphql
from graphql import GraphQLError, GraphQLSchema
from graphql.execution.values import get_variable_values
from graphql.language import OperationDefinitionNode
from graphql.validation import NoDeprecatedCustomRule, specified_rules

from conftest import shared_path
from github.github_openapi import SpecViolation

RULES = (*specified_rules, NoDeprecatedCustomRule)


@functools.cache
def github_schema() -> GraphQLSchema:
    """GitHub's public schema, trusted as published (see ../shared/github/README.md)."""
    sdl = shared_path("github", "graphql", "schema.graphql").read_text(encoding="utf-8")
    return graphql.build_ast_schema(graphql.parse(sdl), assume_valid=True, assume_valid_sdl=True)


@dataclass(frozen=True)
class Checked:
    """A request that passed the schema: its document, operation and variables."""

    document: graphql.DocumentNode
    operation: OperationDefinitionNode
    variables: dict[str, Any]

    text: str

    @property
    def is_mutation(self) -> bool:
        return self.operation.operation is graphql.OperationType.MUTATION

    @property
    def name(self) -> str:
        return self.operation.name.value if self.operation.name else ""


def check_request(schema: GraphQLSchema, body: Any) -> Checked:
    """The request as GitHub would run it, or `SpecViolation` saying what is wrong."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        raise SpecViolation("a GraphQL request is a JSON object with a string `query`")
    unknown = set(body) - {"query", "variables", "operationName"}
    if unknown:
        raise SpecViolation(f"unknown GraphQL request keys {sorted(unknown)}")
    try:
        document = graphql.parse(body["query"])
    except GraphQLError as err:
        raise SpecViolation(f"GraphQL syntax: {err.message}") from None
    problems = graphql.validate(schema, document, RULES)
    if problems:
        raise SpecViolation("GraphQL document invalid: " + "; ".join(p.message for p in problems))
    operation = _operation(document, body.get("operationName"))
    variables = body.get("variables") or {}
    if not isinstance(variables, dict):
        raise SpecViolation("GraphQL variables must be an object")
    defined = {item.variable.name.value for item in operation.variable_definitions or ()}
    if set(variables) - defined:
        raise SpecViolation(f"variables {sorted(set(variables) - defined)} are not defined")
    outcome = get_variable_values(schema, operation.variable_definitions or (), variables)
    if isinstance(outcome, list):  # graphql-core's way of saying: these did not coerce
        raise SpecViolation("GraphQL variables: " + "; ".join(p.message for p in outcome))
    return Checked(document, operation, variables, body["query"])


def _operation(document: graphql.DocumentNode, name: object) -> OperationDefinitionNode:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if name is None and len(operations) == 1:
        return operations[0]
    named = [op for op in operations if op.name is not None and op.name.value == name]
    if len(named) != 1:
        raise SpecViolation(f"no single GraphQL operation named {name!r}")
    return named[0]
