"""The GraphQL operations of posting: comment states, hiding, restoring, resolving threads.

REST can neither hide a comment nor resolve a review thread; GraphQL can. `comment_states`
asks for the minimized state of comments by node id (100 per query); `review_threads`
maps each thread's first comment (by REST id) to the thread, walking ``reviewThreads``
page by page; `minimize`, `unminimize` and `resolve_threads` send one mutation per
subject, up to `BATCH` of them aliased in one request, and say per subject what failed
(GitHub's partial errors). A refusal (an error of type FORBIDDEN, or HTTP 403) stops the
run's mutations of that kind: a token that may not do one may do none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from review_quorum.errors import GitHubError
from review_quorum.github.client import GitHubClient
from review_quorum.github.graphql import FORBIDDEN, RATE_LIMIT_FIELDS, database_id
from review_quorum.github.target import PullRequest

BATCH = 10
NODES_PER_QUERY = 100

STATES = f"""query CommentStates($ids: [ID!]!) {{
  {RATE_LIMIT_FIELDS}
  nodes(ids: $ids) {{
    __typename
    id
    ... on Minimizable {{ isMinimized minimizedReason viewerCanMinimize }}
  }}
}}"""

THREADS = f"""query ReviewThreads(
  $owner: String!, $name: String!, $number: Int!, $cursor: String
) {{
  {RATE_LIMIT_FIELDS}
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      reviewThreads(first: 100, after: $cursor) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ id isResolved comments(first: 1) {{ nodes {{ fullDatabaseId }} }} }}
      }}
    }}
  }}
}}"""

# Per kind: the operation name and one aliased field, `{alias}` being the subject variable.
MUTATIONS = {
    "minimize": (
        "HideDuplicates",
        "minimizeComment(input: {subjectId: $ALIAS, classifier: DUPLICATE}) "
        "{ minimizedComment { isMinimized } }",
    ),
    "unminimize": (
        "RestoreComments",
        "unminimizeComment(input: {subjectId: $ALIAS}) { unminimizedComment { isMinimized } }",
    ),
    "resolve": (
        "ResolveFixedThreads",
        "resolveReviewThread(input: {threadId: $ALIAS}) { thread { isResolved } }",
    ),
}


class CommentState(msgspec.Struct, frozen=True):
    """A comment's minimized state (GitHub's lower-case reason) and whether we may change it."""

    minimized: str | None
    can_minimize: bool


class ReviewThread(msgspec.Struct, frozen=True):
    id: str
    resolved: bool


class MutationResult(msgspec.Struct, frozen=True):
    """What a run of mutations did: subjects changed, subjects failed (with why), refusal."""

    done: tuple[str, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()
    refused: bool = False


def comment_states(client: GitHubClient, node_ids: Sequence[str]) -> dict[str, CommentState]:
    """The state of each comment GitHub knows (an unknown id is simply left out)."""
    states: dict[str, CommentState] = {}
    for start in range(0, len(node_ids), NODES_PER_QUERY):
        chunk = list(node_ids[start : start + NODES_PER_QUERY])
        nodes = client.graphql_result(STATES, {"ids": chunk}).data.get("nodes")
        if client.offline:
            return states
        if not isinstance(nodes, list) or len(nodes) != len(chunk):
            raise GitHubError("GitHub GraphQL nodes(ids:) did not answer one entry per id")
        for node in nodes:
            if isinstance(node, dict) and isinstance(node.get("id"), str):
                states[node["id"]] = _state(node)
    return states


def review_threads(client: GitHubClient, target: PullRequest) -> dict[int, ReviewThread]:
    """Each review thread by the REST id of its first comment."""
    variables = {"owner": target.owner, "name": target.repo, "number": target.number}
    path = ("repository", "pullRequest", "reviewThreads")
    threads: dict[int, ReviewThread] = {}
    for node in client.graphql_nodes(THREADS, variables, path):
        first = _first_comment(node)
        if first is not None and isinstance(node.get("id"), str):
            threads[first] = ReviewThread(node["id"], node.get("isResolved") is True)
    return threads


def minimize(client: GitHubClient, node_ids: Sequence[str], *, dry_run: bool) -> MutationResult:
    return _mutate(client, "minimize", node_ids, dry_run)


def unminimize(client: GitHubClient, node_ids: Sequence[str], *, dry_run: bool) -> MutationResult:
    return _mutate(client, "unminimize", node_ids, dry_run)


def resolve_threads(
    client: GitHubClient, thread_ids: Sequence[str], *, dry_run: bool
) -> MutationResult:
    return _mutate(client, "resolve", thread_ids, dry_run)


def mutation_document(kind: str, count: int) -> str:
    """The aliased mutation of `kind` for `count` subjects ($s0, $s1, ...)."""
    name, field = MUTATIONS[kind]
    variables = ", ".join(f"$s{index}: ID!" for index in range(count))
    fields = "\n".join(
        f"  s{index}: {field.replace('$ALIAS', f'$s{index}')}" for index in range(count)
    )
    return f"mutation {name}({variables}) {{\n{fields}\n}}"


def _mutate(
    client: GitHubClient, kind: str, subjects: Sequence[str], dry_run: bool
) -> MutationResult:
    done: list[str] = []
    failed: list[tuple[str, str]] = []
    for start in range(0, len(subjects), BATCH):
        chunk = list(subjects[start : start + BATCH])
        document = mutation_document(kind, len(chunk))
        variables = {f"s{index}": subject for index, subject in enumerate(chunk)}
        try:
            result = client.graphql_result(document, variables, mutation=True, dry_run=dry_run)
        except GitHubError as err:
            left = list(subjects[start:])
            failed += [(subject, str(err)) for subject in left]
            return MutationResult(tuple(done), tuple(failed), refused=err.status == 403)
        if dry_run or client.dry_run:
            done += chunk
            continue
        refused = False
        for index, subject in enumerate(chunk):
            problems = result.problems_at(f"s{index}")
            if problems:
                failed.append((subject, "; ".join(problem.message for problem in problems)))
                refused = refused or any(problem.type == FORBIDDEN for problem in problems)
            elif result.data.get(f"s{index}") is not None:
                done.append(subject)
            else:
                failed.append((subject, "GitHub answered no result"))
        if refused:
            failed += [(subject, "not tried: refused") for subject in subjects[start + BATCH :]]
            return MutationResult(tuple(done), tuple(failed), refused=True)
    return MutationResult(tuple(done), tuple(failed))


def _state(node: dict[str, Any]) -> CommentState:
    reason = node.get("minimizedReason")
    if node.get("isMinimized") is not True:
        minimized = None
    else:  # GitHub answers "duplicate", "off-topic", ...: lower case, unlike the classifiers
        minimized = reason.lower() if isinstance(reason, str) and reason else "unknown"
    return CommentState(minimized, can_minimize=node.get("viewerCanMinimize") is True)


def _first_comment(node: object) -> int | None:
    if not isinstance(node, dict):
        return None
    comments = node.get("comments")
    nodes = comments.get("nodes") if isinstance(comments, dict) else None
    return database_id(nodes[0]) if isinstance(nodes, list) and nodes else None
