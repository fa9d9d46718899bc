"""`quorum stats` counts synced comments and recorded runs apart and adds them up.

Synced comments are counted straight from their tables, recorded runs from a temporary
table: a comment of several findings counts once for its bot and month and once for each
of its rules, a pull request with both kinds counts once, and agreement adds up over both.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from history.history_support import SQL_FINDINGS, finding, plan_of
from review_quorum.history import Database, RunRecord, open_history, record_run
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.recording import ensure_pull_request
from review_quorum.history.stats import Stats, compute_stats
from review_quorum.render.json_report import content_digest

# (pull request, bot, month, signals: thread resolved, findings: (rule, cluster, bots))
SYNCED: list[tuple[int, str, str, int, list[tuple[str, int, int]]]] = [
    (1, "coderabbit", "2026-01", 1, [("r1", 1, 2), ("r2", 2, 1), ("r1", 3, 1)]),
    (1, "copilot", "2026-01", 0, [("", 1, 2)]),
    (2, "copilot", "2026-02", 1, [("", 5, 1)]),
]


def store_synced(database: Database, comments: list[Any], first_id: int = 9000) -> None:
    """Synced bot comments as `history sync` stores them (state merged), findings with
    positions from 0."""
    with database.transaction():
        for index, (number, bot, month, resolved, findings) in enumerate(comments):
            pull = ensure_pull_request(database, "octo-org", "widgets", number)
            database.execute("UPDATE pull_requests SET state = 'merged' WHERE id = ?", (pull,))
            database.execute(
                "INSERT INTO comments (pull_request_id, kind, rest_id, node_id, author, bot,"
                " created_at, html_url, path, line, thread_resolved, resolved_by, author_reply,"
                " reactions_up, reactions_down, minimized_reason, minimized_by_quorum)"
                " VALUES (?, 'review_comment', ?, '', ?, ?, ?, '', 'app/a.py', 3, ?, '', '',"
                " 0, 0, NULL, 0)",
                (pull, first_id + index, f"{bot}[bot]", bot, f"{month}-15T10:00:00Z", resolved),
            )
            comment = database.value("SELECT MAX(id) FROM comments")
            database.execute_many(
                "INSERT INTO comment_findings (comment_id, position, finding_key, rule_id,"
                " category, title, severity, file, line, end_line, lines_changed, changed_by,"
                " cluster, cluster_bots) VALUES (?, ?, ?, ?, 'logic_error', 'A finding',"
                " 'medium', 'app/a.py', 3, NULL, 0, '', ?, ?)",
                [
                    (comment, position, f"k{index}-{position}", rule, cluster, bots)
                    for position, (rule, cluster, bots) in enumerate(findings)
                ],
            )


def record_on_first_pull(database: Database) -> None:
    """A recorded run on pull request 1 (synced too): the SQL findings (bandit, semgrep
    and coderabbit agree; copilot alone) and coderabbit and copilot agreeing again."""
    findings = [
        *SQL_FINDINGS,
        finding("coderabbit", "app/api.py", 70, "Token logged in clear text", comment=4003),
        finding("copilot", "app/api.py", 70, "Token logged in clear text", comment=4004),
    ]
    plan = plan_of(findings)
    run = RunRecord.from_plan(
        plan,
        content_sha256=content_digest(plan),
        owner="octo-org",
        repo="widgets",
        number=1,
        head_sha="c" * 40,
    )
    record_run(database, run)
    database.execute("UPDATE runs SET recorded_at = '2026-02-20T08:00:00Z'")


def mixed_stats(target: str) -> Stats:
    database = open_history(target)
    try:
        store_synced(database, SYNCED)
        record_on_first_pull(database)
        return compute_stats(database, DEFAULT_RULE)
    finally:
        database.close()


def test_a_comment_counts_once_for_its_bot_and_month_and_once_per_rule(db_target: str) -> None:
    stats = mixed_stats(db_target)
    rabbit = stats.bots["coderabbit"]
    # one synced comment of three findings, two recorded comments (4001, 4003)
    assert (rabbit.comments, rabbit.findings) == (3, 5)
    # the resolved thread; the last run before the merge (pull request 1 is merged)
    assert (rabbit.addressed, rabbit.dismissed, rabbit.unknown) == (3, 2, 0)
    assert (
        stats.rules[("coderabbit", "r1")].comments,
        stats.rules[("coderabbit", "r1")].findings,
    ) == (1, 2)
    assert (
        stats.rules[("coderabbit", "r2")].comments,
        stats.rules[("coderabbit", "r2")].findings,
    ) == (1, 1)
    assert stats.rules[("coderabbit", "")].comments == 2  # recorded
    assert (
        stats.months[("coderabbit", "2026-01")].comments,
        stats.months[("coderabbit", "2026-01")].findings,
    ) == (1, 3)
    assert stats.months[("coderabbit", "2026-02")].comments == 2  # recorded
    assert stats.months[("copilot", "2026-02")].comments == 3  # one synced, two recorded
    assert stats.rules[("copilot", "")].comments == 4  # both kinds
    copilot = stats.bots["copilot"]
    assert (copilot.comments, copilot.findings) == (4, 4)  # two synced, two recorded
    assert copilot.origins == {"sync": 2, "db": 2}
    assert rabbit.origins == {"sync": 3, "db": 2} and rabbit.dispositions.get("inline", 0) >= 1
    assert stats.bots["bandit"].comments == 0  # an analyser's finding is no comment


def test_a_pull_request_with_both_kinds_counts_once(db_target: str) -> None:
    assert mixed_stats(db_target).pull_requests == 2


def test_agreement_adds_up_over_synced_and_recorded_clusters(db_target: str) -> None:
    shared = {(a.bot, a.other): a.shared for a in mixed_stats(db_target).agreements}
    assert shared == {
        ("bandit", "coderabbit"): 1,
        ("bandit", "semgrep"): 1,
        ("coderabbit", "copilot"): 2,  # synced cluster 1 and the recorded token finding
        ("coderabbit", "semgrep"): 1,
    }


def vm_steps_per_comment(comments: int) -> float:
    """SQLite virtual machine steps `compute_stats` takes per synced comment (a count of
    work that does not move with the machine's load)."""
    with tempfile.TemporaryDirectory() as folder:
        database = open_history(os.path.join(folder, "history.db"))
        try:
            many = [
                (
                    1 + i // 10,
                    f"bot{i % 6}",
                    f"2026-{1 + i % 12:02d}",
                    i % 3 // 2,
                    [(f"R{i % 40}", i % 4, 1 + i % 2)],
                )
                for i in range(comments)
            ]
            store_synced(database, many)
            steps = [0]

            def step() -> int:
                steps[0] += 1
                return 0

            database._connection.set_progress_handler(step, 100)
            compute_stats(database, DEFAULT_RULE)
        finally:
            database.close()
    return steps[0] * 100 / comments


def test_stats_over_synced_comments_only_do_not_copy_them() -> None:
    # Copying every synced finding into a temporary table and counting there took about
    # 180 steps per comment; counting straight from the tables takes about 110.
    assert vm_steps_per_comment(3000) < 140
