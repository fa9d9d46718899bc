"""Every GraphQL document review-quorum sends is valid against GitHub's schema and uses
nothing the schema marks deprecated (GitHub removes deprecated fields: `databaseId`, which
cannot hold ids past 2^31, is one), and REST ids past 2^31 map to review threads."""

from __future__ import annotations

import importlib
import pkgutil

import graphql
import pytest

import review_quorum
from github.github_support import TARGET, TOKEN, new_fake
from github.graphql_contract import RULES, github_schema
from review_quorum.github import moderation
from review_quorum.github.graphql import database_id


def _documents() -> dict[str, str]:
    """Every module-level string of the package that is a GraphQL operation, by name,
    and every mutation the poster builds."""
    found: dict[str, str] = {}
    for module_info in pkgutil.walk_packages(review_quorum.__path__, "review_quorum."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, str) and value.lstrip().startswith(("query ", "mutation ")):
                found[f"{module_info.name}.{name}"] = value
    for kind in moderation.MUTATIONS:
        found[f"moderation.mutation_document({kind!r})"] = moderation.mutation_document(kind, 2)
    return found


def test_the_documents_are_found() -> None:
    names = set(_documents())
    assert {
        "review_quorum.github.moderation.STATES",
        "review_quorum.github.moderation.THREADS",
        "review_quorum.github.snapshot.COMMIT_DATE_QUERY",
        "review_quorum.github.snapshot.RECENT_AUTHORS_QUERY",
        "review_quorum.history.github_reads.THREADS",
        "review_quorum.history.github_reads.MINIMIZED",
        "moderation.mutation_document('resolve')",
    } <= names


@pytest.mark.parametrize("name", sorted(_documents()))
def test_no_document_uses_a_deprecated_or_unknown_field(name: str) -> None:
    problems = graphql.validate(github_schema(), graphql.parse(_documents()[name]), RULES)
    assert [problem.message for problem in problems] == []


def test_the_check_reports_a_deprecated_field() -> None:
    old = moderation.THREADS.replace("fullDatabaseId", "databaseId")
    problems = graphql.validate(github_schema(), graphql.parse(old), RULES)
    [problem] = problems
    assert problem.message.startswith(
        "The field PullRequestReviewComment.databaseId is deprecated. `databaseId` will be "
        "removed because it does not support 64-bit signed integer identifiers."
    )


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"fullDatabaseId": "4300000001"}, 4_300_000_001),
        ({"fullDatabaseId": "2147483648"}, 2**31),
        ({"fullDatabaseId": 12}, None),  # a BigInt is a string
        ({"fullDatabaseId": "-1"}, None),
        ({"fullDatabaseId": "１２"}, None),  # full-width digits are not an id
        ({"fullDatabaseId": ""}, None),
        ({"databaseId": 12}, None),
        (None, None),
    ],
)
def test_a_rest_id_is_read_from_full_database_id(node: object, expected: int | None) -> None:
    assert database_id(node) == expected


def test_review_threads_are_found_by_ids_past_two_to_the_31() -> None:
    fake = new_fake()
    fake.set_diff({"src/app.py": range(1, 20)})
    review = fake.add_review(
        "coderabbitai[bot]", "", [{"path": "src/app.py", "line": 3, "body": "Off by one."}]
    )
    [comment] = fake.review_comments
    assert comment["id"] > 2**32 and review["id"] > 2**32
    threads = moderation.review_threads(fake.client(TOKEN), TARGET)
    assert threads == {comment["id"]: moderation.ReviewThread(f"PRRT_{comment['id']}", False)}
