"""Recording runs: one row set per identity, every member with its GitHub comment ids."""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor

import orjson

from history.history_support import HEAD, SQL_FINDINGS, counts, finding, plan_of
from review_quorum.history import MIGRATIONS, RunRecord, open_history, record_run
from review_quorum.plan import ReviewPlan
from review_quorum.render.json_report import content_digest, report_data


def record(plan: ReviewPlan, *, number: int = 1, head: str = HEAD) -> RunRecord:
    return RunRecord.from_plan(
        plan,
        content_sha256=content_digest(plan),
        owner="octo-org",
        repo="widgets",
        number=number,
        head_sha=head,
    )


def test_a_run_is_stored_with_its_findings_and_members(db_target: str) -> None:
    database = open_history(db_target)
    try:
        recorded = record_run(database, record(plan_of(SQL_FINDINGS)))
        assert recorded.created
        assert counts(database) == {
            "repositories": 1,
            "pull_requests": 1,
            "runs": 1,
            "findings": 2,
            "members": 4,
        }
        rows = database.rows(
            "SELECT f.detected_by, f.level, m.bot, m.rule_id, m.line, m.comment_kind,"
            " m.comment_rest_id, m.comment_node_id FROM members m"
            " JOIN findings f ON f.id = m.finding_id ORDER BY f.position, m.position"
        )
    finally:
        database.close()
    sql_bots = "bandit,coderabbit,semgrep"
    assert rows == [
        (sql_bots, "confirmed", "bandit", "B608", 10, None, None, None),
        (sql_bots, "confirmed", "semgrep", "sql-fstring", 11, None, None, None),
        (sql_bots, "confirmed", "coderabbit", "", 12, "review_comment", 4001, "PRRC_4001"),
        ("copilot", "unverified", "copilot", "", 40, "review_comment", 4002, "PRRC_4002"),
    ]


def test_recording_the_same_run_again_changes_nothing(db_target: str) -> None:
    plan = plan_of(SQL_FINDINGS)
    database = open_history(db_target)
    try:
        first = record_run(database, record(plan))
        before = database.rows("SELECT * FROM runs")
        again = record_run(database, record(plan))
        assert (again.run_id, again.created) == (first.run_id, False)
        assert database.rows("SELECT * FROM runs") == before
        assert counts(database)["members"] == 4
        record_run(database, record(plan, head="d" * 40))
        record_run(database, record(plan_of(SQL_FINDINGS[:2])))
        assert counts(database)["runs"] == 3
        assert counts(database)["pull_requests"] == 1
    finally:
        database.close()


def test_a_describe_line_says_what_happened(db_target: str) -> None:
    run = record(plan_of(SQL_FINDINGS))
    database = open_history(db_target)
    try:
        assert record_run(database, run).describe(run) == (
            "history: recorded run 1 of octo-org/widgets#1 at cccccccccccc (2 findings)"
        )
        assert record_run(database, run).describe(run) == (
            "history: already recorded; nothing changed: run 1 of octo-org/widgets#1 "
            "at cccccccccccc (2 findings)"
        )
    finally:
        database.close()


def test_a_run_is_identified_by_the_digest_of_its_json_report() -> None:
    plan = plan_of(SQL_FINDINGS)
    canonical = orjson.dumps(report_data(plan), option=orjson.OPT_SORT_KEYS)
    assert record(plan).content_sha256 == hashlib.sha256(canonical).hexdigest()
    assert record(plan_of(SQL_FINDINGS[:2])).content_sha256 != record(plan).content_sha256


def test_two_runs_recording_at_once_are_both_kept_and_never_doubled(db_target: str) -> None:
    open_history(db_target).close()  # both writers find the schema there or migrate it
    plans = [plan_of([finding("bandit", "a.py", n, f"Issue {n}")]) for n in range(1, 9)]
    start = threading.Barrier(2)

    def writer(offset: int) -> list[bool]:
        database = open_history(db_target)
        start.wait()
        try:
            # Each writer records its own pull requests and the same shared run.
            mine = [record_run(database, record(r, number=offset + i)) for i, r in enumerate(plans)]
            shared = record_run(database, record(plans[0], number=99))
            return [item.created for item in mine] + [shared.created]
        finally:
            database.close()

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(writer, [100, 200]))
    assert all(all(created[:-1]) for created in results)
    assert sorted(created[-1] for created in results) == [False, True]
    database = open_history(db_target)
    try:
        assert counts(database) == {
            "repositories": 1,
            "pull_requests": 17,
            "runs": 17,
            "findings": 17,
            "members": 17,
        }
    finally:
        database.close()


def test_two_first_runs_migrate_a_new_database_once(db_target: str) -> None:
    start = threading.Barrier(2)

    def opener(_: int) -> int:
        start.wait()
        database = open_history(db_target)
        try:
            return int(database.value("SELECT COUNT(*) FROM schema_version"))
        finally:
            database.close()

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(opener, [0, 1])) == [len(MIGRATIONS)] * 2
