"""Benchmark the history store (not a test): recording, syncing, and stats at scale.

Four workloads on one database (SQLite in a temporary folder by default, or `--db URL`
for PostgreSQL, where the tables are emptied first):

- record: `--pulls` review runs (10,000), one per pull request, each a plan of five
  consensus findings with two members, through `record_run` (one transaction each).
- sync: the same number of merged pull requests read through the real `sync` and GitHub
  client from an in-memory GitHub (an `httpx.MockTransport` answering the REST and GraphQL
  reads with synthetic JSON: three bot comments, one reply, reactions, two commits with a
  patch each per pull request), so the time includes HTTP handling, the bot readers, the
  consensus clustering, the labelling and the writes.
- recorded: `--findings` (1,000,000) source findings recorded as successive runs of
  pull requests (1,000 per run, ten runs per pull request), each run labelling what became
  of the previous run's findings.
- stats: `--comments` (1,000,000) stored bot comments with one finding each, inserted in
  bulk, then `compute_stats` with the default outcome rule over them and the recorded
  findings together, and the text and HTML pages.

Prints the time of each step, and the database's size after each.

    python bench/history_store.py                  # 10,000 pull requests, 1M comments
    python bench/history_store.py --pulls 1000 --comments 100000
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import orjson
from msgspec.structs import replace

from review_quorum import NormalizedFinding, Settings, review
from review_quorum.github import GitHubClient
from review_quorum.history import Database, RunRecord, open_history, record_run
from review_quorum.history.changes import Commit, CommitFile
from review_quorum.history.html import render_html
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.recording import ensure_pull_request
from review_quorum.history.report import render_text
from review_quorum.history.stats import compute_stats
from review_quorum.history.sync import sync
from review_quorum.plan import ReviewPlan
from review_quorum.render.json_report import content_digest

API = "https://api.github.com"
OWNER, REPO = "bench-org", "service"
BOTS = ("coderabbit", "copilot", "sourcery", "gemini", "greptile", "cursor")
TABLES: tuple[str, ...] = ("comment_findings", "comments", "sync_progress", "run_outcomes")
TABLES += ("triage", "members", "findings", "runs")
RUNS_PER_PULL = 10
MEMBERS_PER_RUN = 1_000


@contextmanager
def timed(label: str, database: Database, count: int, unit: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    seconds = time.perf_counter() - started
    size = database.size_bytes() / 1_000_000
    rate = count / seconds if seconds else float("inf")
    print(f"{label:<28} {seconds:8.2f} s  {rate:10,.0f} {unit}/s  database {size:8.1f} MB")


def bench_record(database: Database, pulls: int) -> None:
    runs = [_run(_plan(seed), REPO) for seed in range(20)]  # planning is not what is measured
    with timed(f"record {pulls:,} runs", database, pulls, "runs"):
        for number in range(1, pulls + 1):
            run = runs[number % len(runs)]
            record_run(database, replace(run, number=number, head_sha=f"{number:040x}"))


def _run(plan: ReviewPlan, repo: str) -> RunRecord:
    """A run of `plan` on `repo`, to record at other pull requests and heads (`replace`)."""
    return RunRecord.from_plan(
        plan,
        content_sha256=content_digest(plan),
        owner=OWNER,
        repo=repo,
        number=1,
        head_sha="0" * 40,
    )


def _plan(seed: int, clusters: int = 5) -> ReviewPlan:
    findings = [
        NormalizedFinding.create(
            bot=BOTS[(seed + index) % len(BOTS)],
            finding_id=f"{seed}-{index}-{member}",
            severity="medium",
            category="logic_error",
            title=f"Problem {seed * (index % 2)} {index} in the handler",
            file=f"src/module_{index % 50}.py",
            line=10 + 20 * (index // 50) + member,
        )
        for index in range(clusters)
        for member in range(2)
    ]
    return review(findings, settings=Settings(bots_ran=len(BOTS)))


def bench_recorded(database: Database, findings: int) -> None:
    """`findings` source findings recorded as successive runs of pull requests.

    Each run is a plan of 500 two-member findings; each pull request gets `RUNS_PER_PULL`
    runs at new heads, so every run after the first also labels the previous one's
    findings (half persist, half are gone with their lines changed).
    """
    plans = [_run(_plan(seed, clusters=MEMBERS_PER_RUN // 2), "recorded") for seed in range(2)]
    runs = max(findings // MEMBERS_PER_RUN, 1)
    changed = Commit("new", "", files=(CommitFile("src/module_0.py", "removed"),))
    with timed(f"record {runs * MEMBERS_PER_RUN:,} findings", database, runs, "runs"):
        for index in range(runs):
            number, step = 100_000 + index // RUNS_PER_PULL, index % RUNS_PER_PULL
            record = replace(plans[step % 2], number=number, head_sha=f"{index:040x}")
            record_run(database, record, lambda old, new: changed)
    labelled = int(database.value("SELECT COUNT(*) FROM run_outcomes"))
    print(f"  {runs:,} runs, {labelled:,} findings labelled by the run after them")


def bench_sync(database: Database, pulls: int) -> None:
    github = SyntheticGitHub(pulls)
    http = httpx.Client(transport=httpx.MockTransport(github.handle))
    client = GitHubClient(http, token="bench-token", api_url=API)
    with timed(f"sync {pulls:,} pull requests", database, pulls, "PRs"):
        report = sync(database, client, OWNER, REPO)
    print(f"  {report.describe(f'{OWNER}/{REPO}')}; {github.requests:,} requests")


class SyntheticGitHub:
    """GitHub's answers for `pulls` merged pull requests, built on demand."""

    def __init__(self, pulls: int) -> None:
        self.pulls = pulls
        self.requests = 0
        self.routes: list[tuple[re.Pattern[str], Callable[..., Any]]] = [
            (re.compile(r"/repos/[^/]+/[^/]+/pulls"), self._list),
            (re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)"), lambda n: self._pull(int(n))),
            (re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)/comments"), self._review_comments),
            (re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)/reviews"), lambda n: []),
            (re.compile(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments"), lambda n: []),
            (re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)/commits"), self._commits),
            (re.compile(r"/repos/[^/]+/[^/]+/commits/(\w+)"), self._commit),
            (re.compile(r"/repos/[^/]+/[^/]+/pulls/comments/(\d+)/reactions"), self._reactions),
        ]

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if request.url.path == "/graphql":
            return httpx.Response(200, content=orjson.dumps(self._graphql(request)))
        query = dict(parse_qsl(request.url.query.decode()))
        for pattern, answer in self.routes:
            found = pattern.fullmatch(request.url.path)
            if found:
                data = answer(*found.groups()) if found.groups() else answer(query)
                if isinstance(data, httpx.Response):
                    return data
                return httpx.Response(200, content=orjson.dumps(data))
        raise AssertionError(f"no synthetic answer for {request.url.path}")

    def _list(self, query: dict[str, str]) -> httpx.Response:
        """A page of the listing, newest first, with GitHub's `Link` to the next one."""
        page, size = int(query.get("page", 1)), int(query.get("per_page", 30))
        numbers = range(self.pulls - (page - 1) * size, max(self.pulls - page * size, 0), -1)
        headers = {}
        if self.pulls > page * size:
            following = urlencode(query | {"page": str(page + 1)})
            headers["Link"] = f'<{API}/repos/{OWNER}/{REPO}/pulls?{following}>; rel="next"'
        data = [self._pull(number) for number in numbers]
        return httpx.Response(200, content=orjson.dumps(data), headers=headers)

    def _pull(self, number: int) -> dict[str, Any]:
        day = f"2025-{number % 12 + 1:02d}-{number % 27 + 1:02d}"
        return {
            "number": number,
            "title": f"Change {number}",
            "state": "closed",
            "user": {"login": "author", "id": 1, "type": "User"},
            "created_at": f"{day}T08:00:00Z",
            "updated_at": f"{day}T20:00:00Z",
            "closed_at": f"{day}T20:00:00Z",
            "merged_at": f"{day}T20:00:00Z",
            "head": {"sha": f"{number:039x}2"},
        }

    def _review_comments(self, text: str) -> list[dict[str, Any]]:
        number = int(text)
        day = self._pull(number)["created_at"][:10]
        comments = []
        for index, login in enumerate(("coderabbitai[bot]", "Copilot", "sourcery-ai[bot]")):
            body = "The value is never checked before use, so it can crash."
            if login == "sourcery-ai[bot]":
                body = f"**issue (bug_risk):** {body}"
            elif login == "coderabbitai[bot]":
                body = f"_⚠️ Potential issue_ | _🟠 Major_\n\n**{body}**"
            comments.append(self._comment(number * 10 + index, login, body, 10 + index, day))
        reply = self._comment(number * 10 + 5, "author", "Good catch, fixed.", 10, day)
        reply["in_reply_to_id"] = number * 10
        return [*comments, reply]

    def _comment(self, ident: int, login: str, body: str, line: int, day: str) -> dict[str, Any]:
        kind = "Bot" if login.endswith("[bot]") or login == "Copilot" else "User"
        return {
            "id": ident,
            "node_id": f"PRRC_{ident}",
            "pull_request_review_id": ident,
            "diff_hunk": "@@ -1,3 +1,4 @@",
            "path": "src/app.py",
            "line": line,
            "original_line": line,
            "side": "RIGHT",
            "commit_id": f"{ident // 10:039x}1",
            "original_commit_id": f"{ident // 10:039x}1",
            "user": {"login": login, "id": 7, "type": kind},
            "body": body,
            "created_at": f"{day}T09:00:00Z",
            "html_url": f"https://github.com/{OWNER}/{REPO}/pull/{ident // 10}#r{ident}",
            "reactions": {"total_count": 1 if ident % 10 == 1 else 0},
        }

    def _commits(self, text: str) -> list[dict[str, Any]]:
        number = int(text)
        day = self._pull(number)["created_at"][:10]
        return [
            {
                "sha": f"{number:039x}{step}",
                "commit": {"committer": {"date": f"{day}T{step + 7:02d}:30:00Z"}},
                "parents": [{"sha": "0" * 40}],
            }
            for step in (1, 2)
        ]

    def _commit(self, _: str) -> dict[str, Any]:
        patch = "@@ -10,2 +10,2 @@\n-old\n+new\n context"
        return {"files": [{"filename": "src/app.py", "status": "modified", "patch": patch}]}

    def _reactions(self, _: str) -> list[dict[str, Any]]:
        return [{"content": "+1", "user": {"login": "author", "type": "User"}}]

    def _graphql(self, request: httpx.Request) -> dict[str, Any]:
        body = orjson.loads(request.content)
        limit = {"cost": 1, "remaining": 4999, "resetAt": "2030-01-01T00:00:00Z"}
        if "nodes(ids" in body["query"]:
            nodes = [{"id": node, "isMinimized": False} for node in body["variables"]["ids"]]
            return {"data": {"rateLimit": limit, "nodes": nodes}}
        number = body["variables"]["number"]
        threads = [
            {
                "isResolved": index == 2,
                "resolvedBy": None,
                "comments": {"nodes": [{"fullDatabaseId": str(number * 10 + index)}]},
            }
            for index in range(3)
        ]
        page = {"hasNextPage": False, "endCursor": None}
        pull = {"reviewThreads": {"nodes": threads, "pageInfo": page}}
        return {"data": {"rateLimit": limit, "repository": {"pullRequest": pull}}}


def bench_stats(database: Database, comments: int) -> None:
    with timed(f"store {comments:,} comments", database, comments, "comments"):
        _fill(database, comments)
    with timed("stats (text)", database, comments, "comments"):
        stats = compute_stats(database, DEFAULT_RULE)
        render_text(stats)
    with timed("stats (HTML page)", database, comments, "comments"):
        page = render_html(compute_stats(database, DEFAULT_RULE))
    pulls = stats.pull_requests
    print(f"  {len(stats.bots)} bots, {pulls:,} pull requests; page {len(page):,} bytes")


def _fill(database: Database, comments: int) -> None:
    """Synthetic synced history: ten comments per pull request, one finding each."""
    chance = random.Random(7)
    per_pull = 10
    with database.transaction():
        pull_ids = [
            ensure_pull_request(database, "bulk-org", "history", number)
            for number in range(1, comments // per_pull + 1)
        ]
        merged = "UPDATE pull_requests SET state = 'merged' WHERE id >= ?"
        database.execute(merged, (pull_ids[0],))
        rows = [
            _comment_row(pull_ids[index // per_pull], index, chance) for index in range(comments)
        ]
        database.execute_many(
            "INSERT INTO comments (pull_request_id, kind, rest_id, node_id, author, bot,"
            " created_at, html_url, path, line, thread_resolved, resolved_by, author_reply,"
            " reactions_up, reactions_down, minimized_reason, minimized_by_quorum)"
            " VALUES (?, 'review_comment', ?, '', 'bot[bot]', ?, ?, '', 'src/a.py', 3, ?, '',"
            " ?, ?, ?, NULL, 0)",
            rows,
        )
        first = int(database.value("SELECT MIN(id) FROM comments WHERE rest_id >= 100000000"))
        findings = [
            (first + i, f"k{i}", f"R{i % 40}", 10 + i % 3, i % 10 // 3, 1 + i % 2)
            for i in range(comments)
        ]
        database.execute_many(
            "INSERT INTO comment_findings (comment_id, position, finding_key, rule_id, category,"
            " title, severity, file, line, end_line, lines_changed, changed_by, cluster,"
            " cluster_bots) VALUES (?, 0, ?, ?, 'logic_error', 'A finding', 'medium',"
            " 'src/a.py', ?, NULL, 0, '', ?, ?)",
            findings,
        )


def _comment_row(pull_id: int, index: int, chance: random.Random) -> tuple[Any, ...]:
    bot = BOTS[index % len(BOTS)]
    month = 1 + index * 12 // 1_000_000 % 12
    acted = chance.random() < 0.2 + 0.12 * BOTS.index(bot)
    return (
        pull_id,
        100_000_000 + index,
        bot,
        f"2026-{month:02d}-15T10:00:00Z",
        int(acted),
        "agreed" if chance.random() < 0.05 else "",
        int(chance.random() < 0.03),
        int(chance.random() < 0.02),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulls", type=int, default=10_000)
    parser.add_argument("--comments", type=int, default=1_000_000)
    parser.add_argument("--findings", type=int, default=1_000_000, help="recorded findings")
    parser.add_argument("--db", help="a PostgreSQL URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        target = args.db or str(Path(folder) / "history.db")
        database = open_history(target)
        try:
            if args.db:
                with database.transaction():
                    for table in TABLES:
                        database.execute(f"DELETE FROM {table}")
            print(f"history store: {database.dialect} ({database.name})")
            bench_record(database, args.pulls)
            bench_sync(database, args.pulls)
            bench_recorded(database, args.findings)
            bench_stats(database, args.comments)
        finally:
            database.close()


if __name__ == "__main__":
    main()
