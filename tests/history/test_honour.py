"""The history's part in triage: it reads the writers' decisions and where each one's
finding was recorded; planning honours them (`tests/test_plan_gate.py` pins what they do)."""

from __future__ import annotations

from pathlib import Path

import msgspec

from history.history_support import finding
from review_quorum import Settings, review
from review_quorum.history.triage import Decision, commands, from_writers, our_comments
from review_quorum.markup.markers import marker
from review_quorum.model import ConsensusLevel
from review_quorum.plan import ReviewPlan, Triage
from review_quorum.scoring.confidence.posting import Disposition

LEVEL = ConsensusLevel.UNVERIFIED
SETTINGS = Settings(bots_ran=2, inline_level=LEVEL, gate_level=LEVEL)
FINDINGS = [
    finding("bandit", "app/db.py", 10, "SQL injection in query"),
    finding("semgrep", "app/db.py", 10, "SQL injection in query"),
    finding("bandit", "app/db.py", 40, "Use of assert detected"),
]


def plan(triage: Triage | None = None) -> ReviewPlan:
    return review(FINDINGS, settings=SETTINGS, triage=triage or Triage())


def test_commands_are_read_from_replies_and_by_fingerprint_and_only_from_writers() -> None:
    fingerprint = "0123456789abcdef01234567"
    ours = {
        "id": 1,
        "user": {"login": "quorum", "type": "Bot"},
        "body": f"{marker('finding', fingerprint)}\nUse of assert",
    }
    reply = {
        "id": 2,
        "in_reply_to_id": 1,
        "user": {"login": "alice", "type": "User"},
        "body": "> quoted\n/quorum ack known, tracked in #12",
        "created_at": "2026-01-01T00:00:00Z",
    }
    elsewhere = {
        "id": 3,
        "user": {"login": "mallory", "type": "User"},
        "body": f"/quorum false-positive {fingerprint}",
    }
    by_bot = {"id": 4, "user": {"login": "x[bot]", "type": "Bot"}, "body": "/quorum ack"}
    found = commands(
        [("review_comment", reply), ("issue_comment", elsewhere), ("issue_comment", by_bot)],
        our_comments([ours]),
    )
    assert [(d.fingerprint, d.action, d.actor, d.reason) for d in found] == [
        (fingerprint, "ack", "alice", "known, tracked in #12"),
        (fingerprint, "false-positive", "mallory", ""),
    ]
    permissions = {"alice": "write", "mallory": "read"}
    kept = from_writers(found, lambda login: permissions.get(login, "none"))
    assert [d.actor for d in kept] == ["alice"]


def test_a_decision_on_an_earlier_versions_id_follows_its_finding(tmp_path: Path) -> None:
    """A false positive said on a 24-digit id (an earlier version's) still silences the
    finding the history recorded under it, found again at its place."""
    from review_quorum.history import open_history
    from review_quorum.history.recording import RunRecord, record_run
    from review_quorum.history.triage import store, triage_for

    before = plan()
    target = next(item for item in before.findings if "assert" in item.finding.title)
    old = "0123456789abcdef01234567"
    items = tuple(
        msgspec.structs.replace(item, fingerprint=old) if item is target else item
        for item in before.findings
    )
    recorded = msgspec.structs.replace(before, findings=items)
    database = open_history(str(tmp_path / "h.db"), create=True)
    try:
        record_run(database, RunRecord("o", "r", 1, "a" * 40, "c" * 64, recorded))
        decision = Decision(old, "false-positive", "alice", "t", "test only", "x:1")
        summary = Decision("*", "thumbs-up", "bob", "u", "", "reaction:2")
        store(database, "o", "r", 1, [decision, summary])
        store(database, "o", "r", 2, [decision])
        read = triage_for(database, "o", "r", 1)
        other = triage_for(database, "o", "r", 2)
    finally:
        database.close()
    assert read == Triage((decision, summary), {old: ("app/db.py", "security", 40)})
    assert other == Triage((decision,), {})  # another pull request's history says nothing
    after = plan(read)
    quiet = next(item for item in after.findings if item.finding.line == 40)
    assert quiet.disposition is Disposition.AUDIT and quiet.fingerprint == target.fingerprint
    assert target.fingerprint not in {item.fingerprint for item in after.gate.blocking}
    assert plan(other) == plan()
