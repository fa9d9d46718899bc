"""Reading a pull request's conversation: its head commit and every comment, as GitHub sends it.

`read_pull(client, target)` asks `pulls/get` for the head commit, then lists the pull
request's review comments, reviews and issue comments through `GitHubClient.paginate`
(every page, rate limits and server errors handled there). The comment objects are kept
as GitHub's JSON, untouched, because the bot-comment readers in `ingest` decide what they
mean (`pull_comments` labels them for those readers). The head commit's date, which
tells whether an issue comment came after the latest push, is asked only when a caller
needs it: REST has no operation for one commit in the set we use, so `head_commit_date`
asks GraphQL. So does `recent_authors`, which tells who has spoken on the repository's
recent pull requests, for `--wait-for` to skip a bot that is not installed there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import msgspec

from review_quorum.checked_plan import Fresh
from review_quorum.comment_kinds import CommentKind
from review_quorum.delivery.timestamps import parse_timestamp
from review_quorum.errors import GitHubError
from review_quorum.github.client import GitHubClient
from review_quorum.github.target import PullRequest
from review_quorum.ingest.base import ReadOptions
from review_quorum.ingest.comments import PullComment, read_comments

CommitDate = Callable[[GitHubClient, PullRequest], datetime | None]


class PullSnapshot(msgspec.Struct, frozen=True):
    """One reading of a pull request: its head commit and its three comment collections."""

    target: PullRequest
    head_sha: str
    review_comments: tuple[dict[str, Any], ...] = ()
    reviews: tuple[dict[str, Any], ...] = ()
    issue_comments: tuple[dict[str, Any], ...] = ()
    head_committed_at: datetime | None = None


def read_pull(
    client: GitHubClient, target: PullRequest, *, commit_date: CommitDate | None = None
) -> PullSnapshot:
    """Read `target` now; `commit_date` looks up when its head commit was committed."""
    pull_path = f"{target.path}/pulls/{target.number}"
    head_sha = _head_sha(client.get(pull_path), pull_path)
    target = PullRequest(target.owner, target.repo, target.number, head_sha)
    return PullSnapshot(
        target=target,
        head_sha=head_sha,
        review_comments=_objects(client.paginate(f"{pull_path}/comments"), "review comments"),
        reviews=_objects(client.paginate(f"{pull_path}/reviews"), "reviews"),
        issue_comments=_objects(
            client.paginate(f"{target.path}/issues/{target.number}/comments"), "issue comments"
        ),
        head_committed_at=commit_date(client, target) if commit_date else None,
    )


def pull_comments(
    review_comments: Sequence[object], reviews: Sequence[object], issue_comments: Sequence[object]
) -> list[PullComment]:
    """Every comment with its collection, pointed at as ``/reviews/3`` in Skipped records."""
    collections = (
        ("review_comments", CommentKind.INLINE, review_comments),
        ("reviews", CommentKind.REVIEW, reviews),
        ("issue_comments", CommentKind.ISSUE, issue_comments),
    )
    return [
        PullComment(record, kind, f"/{name}/{index}")
        for name, kind, records in collections
        for index, record in enumerate(records)
    ]


def read_fresh(
    collections: tuple[list[Any], list[Any], list[Any]], *, name: str, options: ReadOptions
) -> Fresh:
    """What the bot-comment readers make of (review comments, reviews, issue comments):
    read together, and each collection alone (as a saved file of it is read)."""
    together = read_comments(pull_comments(*collections), name=name, options=options)
    alone = [
        finding
        for index in range(len(collections))
        for finding in read_comments(
            pull_comments(*(c if i == index else [] for i, c in enumerate(collections))),
            name=name,
            options=options,
        ).findings
    ]
    return Fresh(tuple(together.findings), tuple(alone))


def read_pull_fresh(client: GitHubClient, target: PullRequest, options: ReadOptions) -> Fresh:
    """`read_fresh` of the pull request's three comment collections as GitHub serves them."""
    pull = f"{target.path}/pulls/{target.number}"
    collections = (
        client.paginate(f"{pull}/comments"),
        client.paginate(f"{pull}/reviews"),
        client.paginate(f"{target.path}/issues/{target.number}/comments"),
    )
    return read_fresh(collections, name=str(target), options=options)


COMMIT_DATE_QUERY = """
query CommitDate($owner: String!, $name: String!, $oid: GitObjectID!) {
  repository(owner: $owner, name: $name) {
    object(oid: $oid) {
      ... on Commit {
        committedDate
      }
    }
  }
}
"""


def head_commit_date(client: GitHubClient, target: PullRequest) -> datetime | None:
    """When `target`'s head commit was committed (None offline); GitHubError if GitHub won't say."""
    if target.head_sha is None:
        return None
    variables = {"owner": target.owner, "name": target.repo, "oid": target.head_sha}
    data = client.graphql(COMMIT_DATE_QUERY, variables)
    if data is None:
        return None
    repository = data.get("repository") if isinstance(data, dict) else None
    commit = repository.get("object") if isinstance(repository, dict) else None
    moment = parse_timestamp(commit.get("committedDate") if isinstance(commit, dict) else None)
    if moment is None:
        raise GitHubError(f"GitHub GraphQL API gave no commit date for {target.head_sha}")
    return moment


# How far back "has this bot ever spoken here" looks: the pull request itself and the
# repository's most recently updated ones, the latest comments and reviews of each.
RECENT_PULLS = 30
RECENT_ITEMS = 50
RECENT_AUTHORS_QUERY = f"""
query RecentAuthors($owner: String!, $name: String!, $number: Int!) {{
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      ...Authors
    }}
    pullRequests(first: {RECENT_PULLS}, orderBy: {{field: UPDATED_AT, direction: DESC}}) {{
      nodes {{
        ...Authors
      }}
    }}
  }}
}}

fragment Authors on PullRequest {{
  comments(last: {RECENT_ITEMS}) {{
    nodes {{
      author {{
        __typename
        login
      }}
    }}
  }}
  reviews(last: {RECENT_ITEMS}) {{
    nodes {{
      author {{
        __typename
        login
      }}
    }}
  }}
}}
"""


def recent_authors(client: GitHubClient, target: PullRequest) -> set[tuple[str, str]] | None:
    """(login, ``Bot``/``User``/...) of who commented or reviewed on `target` and on the
    repository's most recently updated pull requests; None offline.

    One GraphQL query (GitHub counts it as one point): `RECENT_ITEMS` conversation comments
    and reviews (which hold the inline comments) of `target` and of each of the
    `RECENT_PULLS` most recently updated pull requests. A deleted author is left out.
    """
    variables = {"owner": target.owner, "name": target.repo, "number": target.number}
    data = client.graphql(RECENT_AUTHORS_QUERY, variables)
    if data is None:
        return None
    repository = _field(data, "repository")
    pulls = [_field(repository, "pullRequest")]
    pulls += _list(_field(repository, "pullRequests").get("nodes"))
    authors: set[tuple[str, str]] = set()
    for pull in pulls:
        for collection in ("comments", "reviews"):
            for node in _list(_field(pull, collection).get("nodes")):
                author = _field(node, "author")
                login, kind = author.get("login"), author.get("__typename")
                if isinstance(login, str) and login and isinstance(kind, str):
                    authors.add((login, kind))
    return authors


def _field(value: object, name: str) -> dict[str, Any]:
    """`value[name]` when both are JSON objects, else an empty object (null means none)."""
    found = value.get(name) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _head_sha(pull: object, path: str) -> str:
    head = pull.get("head") if isinstance(pull, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    if not isinstance(sha, str) or not sha:
        raise GitHubError(f"GitHub API GET {path} returned no head commit")
    return sha


def _objects(items: list[Any], what: str) -> tuple[dict[str, Any], ...]:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise GitHubError(f"GitHub API listed {what} item {index} that is not an object")
    return tuple(items)
