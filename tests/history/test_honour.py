"""Triage honoured on the next plan: the finding leaves the comments and the gate, is named."""

from __future__ import annotations

from pathlib import Path

import msgspec

from history.history_support import finding
from review_quorum import Settings, review
from review_quorum.history.coverage import BotCoverage, State
from review_quorum.history.honour import honour_triage, with_coverage
from review_quorum.history.triage import Decision, commands, from_writers, our_comments
from review_quorum.markup.markers import marker
from review_quorum.model import ConsensusLevel
from review_quorum.plan import ReviewPlan
from review_quorum.render.review import render
from review_quorum.scoring.confidence.posting import Disposition

LEVEL = ConsensusLevel.UNVERIFIED
SETTINGS = Settings(bots_ran=2, inline_level=LEVEL, gate_level=LEVEL)


def plan() -> ReviewPlan:
    findings = [
        finding("bandit", "app/db.py", 10, "SQL injection in query"),
        finding("semgrep", "app/db.py", 10, "SQL injection in query"),
        finding("bandit", "app/db.py", 40, "Use of assert detected"),
    ]
    return review(findings, settings=SETTINGS)


def test_a_dismissed_finding_is_not_posted_and_does_not_gate() -> None:
    before = plan()
    target = next(item for item in before.findings if "assert" in item.finding.title)
    assert target in before.inline and target in before.gate.blocking
    decision = Decision(target.fingerprint, "false-positive", "alice", "t", "test only", "x:1")
    after = honour_triage(before, [decision])
    (quiet,) = [item for item in after.findings if item.fingerprint == target.fingerprint]
    assert quiet.disposition is Disposition.AUDIT
    assert quiet.fingerprint not in {item.fingerprint for item in after.inline}
    assert quiet.fingerprint not in {item.fingerprint for item in after.gate.blocking}
    assert len(after.gate.blocking) == len(before.gate.blocking) - 1
    text = render(after)
    assert "Use of assert detected (app/db.py:40): false positive by @alice: test only" in text
    thumbs = Decision(target.fingerprint, "thumbs-down", "alice", "t", "", "reaction:1")
    assert honour_triage(before, [thumbs]) is before  # a reaction is evidence, not a command


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


def test_the_summary_names_the_bots_that_did_not_review() -> None:
    covered = [
        BotCoverage("copilot", State.REVIEWED),
        BotCoverage("coderabbit", State.STALE),
        BotCoverage("gemini", State.DECLINED, "rate-limit notice"),
        BotCoverage("greptile", State.ABSENT),
    ]
    text = render(with_coverage(plan(), covered))
    assert (
        "**Did not review this commit:** coderabbit (reviewed an older commit only); "
        "gemini (said it would not review: rate-limit notice); greptile (did not review)."
    ) in text
    assert with_coverage(plan(), covered[:1]).notes == ()


def test_a_decision_on_an_earlier_versions_id_follows_its_finding(tmp_path: Path) -> None:
    """A false positive said on a 24-digit id (an earlier version's) still silences the
    finding the history recorded under it, found again at its place."""
    from review_quorum.history import open_history
    from review_quorum.history.recording import RunRecord, record_run
    from review_quorum.history.triage import carried_over

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
        places = {
            (i.finding.file, i.finding.category, i.finding.line): i.fingerprint
            for i in before.findings
        }
        [carried] = carried_over(database, "o", "r", 1, [decision], places)
        [other] = carried_over(database, "o", "r", 2, [decision], places)
    finally:
        database.close()
    assert carried.fingerprint == target.fingerprint
    assert other.fingerprint == old  # another pull request's history says nothing of it
    after = honour_triage(before, [carried])
    assert target.fingerprint not in {item.fingerprint for item in after.gate.blocking}
