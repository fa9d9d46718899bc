"""Reading past pull requests from GitHub for `quorum history sync` (REST and GraphQL).

REST: the repository's pull requests (``GET /repos/{o}/{r}/pulls``, newest first, read
until `--since` or `--last` is satisfied), each one's comments (as `quorum review --github`
reads them), its commits (``pulls/{n}/commits``), the files and patches of the commits made
after the first bot comment (``commits/{sha}``), and the reactions of bot comments that have
any (``pulls/comments/{id}/reactions``, ``issues/comments/{id}/reactions``). GraphQL: the
review threads (resolved, and by whom) and whether each bot comment is minimized, and why.
Quorum's own record of the comments it hid (markers in its sticky summary) says which
minimizations were quorum's. Pages are the client's business (it follows `Link`), and so
are rate limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import GitHubError
from review_quorum.github.client import PER_PAGE, GitHubClient
from review_quorum.github.duplicates import HIDDEN, HIDING, read_record
from review_quorum.github.graphql import RATE_LIMIT_FIELDS, database_id
from review_quorum.github.snapshot import read_pull
from review_quorum.github.target import PullRequest
from review_quorum.history.changes import Commit, CommitFile
from review_quorum.history.outcomes import is_bot
from review_quorum.history.pulls import BotComment, PullInfo, PullReading, ThreadState, anchor_index
from review_quorum.ingest.bots.authors import is_own
from review_quorum.ingest.comments import PullComment
from review_quorum.markup.markers import SUMMARY, opens_with_marker

QUORUM_HIDDEN = (HIDDEN, HIDING)
REACTIONS: dict[str, str] = {  # BotComment.kind -> the REST collection of its reactions
    CommentKind.INLINE.source_kind: "pulls/comments",
    CommentKind.ISSUE.source_kind: "issues/comments",
}

THREADS = f"""query PullThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {{
  {RATE_LIMIT_FIELDS}
  repository(owner: $owner, name: $name) {{
    pullRequest(number: $number) {{
      reviewThreads(first: 100, after: $cursor) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{
          isResolved
          resolvedBy {{ login }}
          comments(first: 1) {{ nodes {{ fullDatabaseId }} }}
        }}
      }}
    }}
  }}
}}"""
THREADS_PATH = ("repository", "pullRequest", "reviewThreads")

MINIMIZED = f"""query MinimizedComments($ids: [ID!]!) {{
  {RATE_LIMIT_FIELDS}
  nodes(ids: $ids) {{
    id
    ... on Minimizable {{ isMinimized minimizedReason }}
  }}
}}"""


def list_pulls(
    client: GitHubClient, owner: str, repo: str, *, since: str | None, last: int | None
) -> list[PullInfo]:
    """Pull requests updated since `since` and/or the `last` most recent, newest first."""
    sort = "created" if since is None else "updated"
    path = f"/repos/{owner}/{repo}/pulls?state=all&sort={sort}&direction=desc"
    pulls: list[PullInfo] = []
    for item in client.items(path):
        info = PullInfo.from_rest(item)
        if since is not None and info.updated_at < since:
            break
        pulls.append(info)
        if last is not None and len(pulls) >= last:
            break
    return pulls


def read_pull_comments(
    client: GitHubClient, owner: str, repo: str, number: int
) -> list[PullComment]:
    """The pull request's review comments, reviews and issue comments, with their kinds."""
    snapshot = read_pull(client, PullRequest(owner, repo, number))
    return [
        *(PullComment(item, CommentKind.INLINE) for item in snapshot.review_comments),
        *(PullComment(item, CommentKind.REVIEW) for item in snapshot.reviews),
        *(PullComment(item, CommentKind.ISSUE) for item in snapshot.issue_comments),
    ]


def read_reading(
    client: GitHubClient,
    owner: str,
    repo: str,
    info: PullInfo,
    records: Sequence[Mapping[str, Any]],
    comments: Sequence[BotComment],
) -> PullReading:
    """Everything `label` needs about a pull request whose bot comments are `comments`."""
    base = f"/repos/{owner}/{repo}"
    commits = [_commit(item) for item in client.paginate(f"{base}/pulls/{info.number}/commits")]
    if comments:
        first = min(anchor_index(comment, commits) for comment in comments)
        commits = [
            _with_files(client, base, commit) if index > first else commit
            for index, commit in enumerate(commits)
        ]
    return PullReading(
        info=info,
        records=tuple(records),
        commits=tuple(commits),
        reactions={c.key: _reactions(client, base, c) for c in comments if _has_reactions(c)},
        threads=_threads(client, owner, repo, info.number) if _inline(comments) else {},
        minimized=_minimized(client, comments),
        quorum_hidden=_quorum_hidden(records),
    )


def _commit(item: Mapping[str, Any]) -> Commit:
    details = item.get("commit") or {}
    committer = details.get("committer") or {}
    return Commit(
        sha=str(item["sha"]),
        committed_at=str(committer.get("date") or ""),
        parents=len(item.get("parents") or ()) or 1,
    )


def _with_files(client: GitHubClient, base: str, commit: Commit) -> Commit:
    files: list[CommitFile] = []
    for data in client.pages(f"{base}/commits/{commit.sha}"):
        listed = data.get("files") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise GitHubError(f"GitHub API gave no files for commit {commit.sha}")
        files.extend(_file(item) for item in listed)
    return Commit(commit.sha, commit.committed_at, commit.parents, tuple(files))


def _file(item: Mapping[str, Any]) -> CommitFile:
    patch = item.get("patch")
    return CommitFile(
        path=str(item.get("filename") or ""),
        status=str(item.get("status") or "modified"),
        patch=patch if isinstance(patch, str) else None,
        previous_path=str(item.get("previous_filename") or ""),
    )


def _has_reactions(comment: BotComment) -> bool:
    if comment.kind not in REACTIONS:
        return False  # REST lists no reactions of review bodies
    rollup = comment.record.get("reactions")
    return not isinstance(rollup, Mapping) or bool(rollup.get("total_count"))


def _reactions(client: GitHubClient, base: str, comment: BotComment) -> list[Any]:
    return client.paginate(f"{base}/{REACTIONS[comment.kind]}/{comment.rest_id}/reactions")


def _inline(comments: Sequence[BotComment]) -> bool:
    return any(comment.kind == CommentKind.INLINE.source_kind for comment in comments)


def _threads(client: GitHubClient, owner: str, repo: str, number: int) -> dict[int, ThreadState]:
    """Each review thread's state, by the REST id of its first comment."""
    variables = {"owner": owner, "name": repo, "number": number}
    threads: dict[int, ThreadState] = {}
    for node in client.graphql_nodes(THREADS, variables, THREADS_PATH):
        first = database_id((_dig(node, "comments").get("nodes") or [None])[0])
        if first is not None:
            resolver = node.get("resolvedBy") or {}
            thread = ThreadState(bool(node.get("isResolved")), str(resolver.get("login") or ""))
            threads[first] = thread
    return threads


def _minimized(client: GitHubClient, comments: Sequence[BotComment]) -> dict[str, str]:
    """The minimized bot comments' reasons (``off-topic``, ``duplicate``, ...), by key."""
    keys = {str(c.record.get("node_id")): c.key for c in comments if c.record.get("node_id")}
    ids = sorted(keys)
    reasons: dict[str, str] = {}
    for start in range(0, len(ids), PER_PAGE):
        data = client.graphql(MINIMIZED, {"ids": ids[start : start + PER_PAGE]})
        for node in (data or {}).get("nodes") or ():
            if isinstance(node, Mapping) and node.get("isMinimized") and node.get("id") in keys:
                reason = str(node.get("minimizedReason") or "unknown")
                reasons[keys[node["id"]]] = reason.lower().replace("_", "-")
    return reasons


def _quorum_hidden(records: Sequence[Mapping[str, Any]]) -> frozenset[str]:
    """The comments quorum's sticky summary (ours: see `authors.is_own`) records as hidden."""
    hidden: set[str] = set()
    for record in records:
        body = str(record.get("body") or "")
        user = record.get("user")
        if not isinstance(user, Mapping) or not is_bot(user):
            continue
        if is_own(str(user.get("login") or ""), body) and opens_with_marker(body, SUMMARY):
            hidden.update(key for key, kind in read_record(body).items() if kind in QUORUM_HIDDEN)
    return frozenset(hidden)


def _dig(data: Any, *keys: str) -> Mapping[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(data, Mapping):
        raise GitHubError(f"GitHub GraphQL API answered without {'.'.join(keys)}")
    return data
