"""The history's rules a user relies on, one row per case: who triages (a person, not a bot;
a writer, not a reader; a command by fingerprint or as a reply to our comment, not to our
summary), what counts as a bot's review of the head (not an "under way" notice, not a
pending review, not an older commit), which reactions say no (``-1`` and ``confused``)
and yes, and what a re-run on the same head says about a finding that went away."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from review_quorum.github.snapshot import PullSnapshot
from review_quorum.github.target import PullRequest
from review_quorum.history import successive
from review_quorum.history.coverage import State, coverage
from review_quorum.history.outcomes import DEFAULT_RULE, Outcome, count_reactions
from review_quorum.history.successive import ADDRESSED, GONE, PERSISTED, WENT_AWAY, Sighting
from review_quorum.history.successive import label as label_runs
from review_quorum.history.triage import WHOLE_REVIEW, commands, from_writers, our_comments
from review_quorum.markup.markers import marker

FINGERPRINT = "0123456789abcdef01234567"
PERSON = {"login": "alice", "type": "User"}
APP = {"login": "helper[bot]", "type": "Bot"}
NAMED_BOT = {"login": "renovate[bot]", "type": "User"}
OURS = [
    {"id": 10, "body": f"{marker('finding', FINGERPRINT)}\nSQL built from input"},
    {"id": 11, "body": f"{marker('summary')}\nThe review"},
]

# (case, author, body, replying to, the fingerprints decided)
COMMANDS = [
    ("by fingerprint", PERSON, f"/quorum ack {FINGERPRINT} tracked in #12", None, [FINGERPRINT]),
    ("as a reply to our comment", PERSON, "/quorum wont-fix", 10, [FINGERPRINT]),
    ("as a reply to our summary", PERSON, "/quorum false-positive", 11, []),
    ("a reply to someone else", PERSON, "/quorum ack", 99, []),
    ("an app's ack", APP, f"/quorum ack {FINGERPRINT}", None, []),
    ("a bot login's ack", NAMED_BOT, f"/quorum ack {FINGERPRINT}", 10, []),
    ("quoted, not said", PERSON, f"> /quorum ack {FINGERPRINT}", None, []),
    ("not a fingerprint", PERSON, "/quorum ack 0123456789ABCDEF01234567", None, []),
    ("an unknown action", PERSON, f"/quorum ignore {FINGERPRINT}", None, []),
]


@pytest.mark.parametrize(
    ("case", "user", "body", "reply_to", "decided"), COMMANDS, ids=[row[0] for row in COMMANDS]
)
def test_who_and_what_makes_a_triage_decision(
    case: str, user: dict[str, str], body: str, reply_to: int | None, decided: list[str]
) -> None:
    said = {"id": 20, "user": user, "body": body, "created_at": "2026-12-01T10:00:00Z"}
    if reply_to is not None:
        said["in_reply_to_id"] = reply_to
    found = commands([("review_comment", said)], our_comments(OURS))
    assert [decision.fingerprint for decision in found] == decided, case


def test_our_summary_stands_for_the_whole_review_and_a_finding_for_itself() -> None:
    assert our_comments(OURS) == {10: FINGERPRINT, 11: WHOLE_REVIEW}


@pytest.mark.parametrize(
    ("permission", "kept"),
    [("admin", True), ("maintain", True), ("write", True), ("triage", False), ("read", False)],
)
def test_only_writers_triage(permission: str, kept: bool) -> None:
    said = {"id": 20, "user": PERSON, "body": f"/quorum ack {FINGERPRINT}"}
    found = commands([("issue_comment", said)], {})
    assert bool(from_writers(found, lambda login: permission)) is kept


HEAD = "h" * 40
COMMITTED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
RABBIT = {"login": "coderabbitai[bot]", "type": "Bot"}


def review(state: str, commit: str, body: str = "Two issues.") -> dict[str, Any]:
    return {"user": RABBIT, "state": state, "commit_id": commit, "body": body,
            "submitted_at": "2026-12-01T13:00:00Z"}  # fmt: skip


def remark(when: str, body: str) -> dict[str, Any]:
    return {"user": RABBIT, "body": body, "created_at": when}


# (case, reviews, issue comments, the bot's state)
COVERAGE = [
    ("a review of the head", [review("COMMENTED", HEAD)], [], State.REVIEWED),
    ("a pending review of the head", [review("PENDING", HEAD)], [], State.ABSENT),
    ("a review of an older commit", [review("COMMENTED", "o" * 40)], [], State.STALE),
    (
        "an under-way notice after the head",
        [],
        [remark("2026-12-01T13:00:00Z", "CodeRabbit is reviewing your changes")],
        State.STALE,
    ),
    (
        "a comment after the head",
        [],
        [remark("2026-12-01T13:00:00Z", "One more thing about the loop.")],
        State.REVIEWED,
    ),
    (
        "a comment before the head",
        [],
        [remark("2026-12-01T11:00:00Z", "One more thing about the loop.")],
        State.STALE,
    ),
    (
        "a rate-limit notice last",
        [review("COMMENTED", HEAD)],
        [remark("2026-12-01T14:00:00Z", "You have hit the rate limit.")],
        State.DECLINED,
    ),
]


@pytest.mark.parametrize(
    ("case", "reviews", "remarks", "state"), COVERAGE, ids=[row[0] for row in COVERAGE]
)
def test_what_counts_as_a_review_of_the_head_commit(
    case: str, reviews: list[dict[str, Any]], remarks: list[dict[str, Any]], state: State
) -> None:
    snapshot = PullSnapshot(
        PullRequest("octo", "widgets", 7),
        HEAD,
        reviews=tuple(reviews),
        issue_comments=tuple(remarks),
        head_committed_at=COMMITTED,
    )
    [found] = coverage(snapshot, ["coderabbit"])
    assert found.state is state, case


# (reaction contents by a person, (up, down))
REACTIONS = [
    (["+1"], (1, 0)),
    (["heart", "hooray", "rocket"], (3, 0)),
    (["-1"], (0, 1)),
    (["confused"], (0, 1)),
    (["laugh", "eyes"], (0, 0)),
]


@pytest.mark.parametrize(("contents", "counted"), REACTIONS)
def test_which_reactions_say_yes_and_no(contents: list[str], counted: tuple[int, int]) -> None:
    people = [{"user": PERSON, "content": content} for content in contents]
    bots = [{"user": APP, "content": content} for content in contents]
    assert count_reactions(people + bots) == counted


def test_a_confused_reaction_alone_dismisses_the_comment() -> None:
    clause = next(c for c in DEFAULT_RULE.clauses if "thumbs_down" in c.when)
    assert clause.when == ("thumbs_down", "not thumbs_up") and clause.then is Outcome.DISMISSED


def sighting(member: int, line: int, fingerprint: str = "") -> Sighting:
    return Sighting(member, "bandit", "B608", f"key-{line}", fingerprint, "app/db.py", line, None)


# (case, the heads of the two runs, the next run's sightings, the outcome of the first);
# git is not asked for the diff between two heads (no checkout), so it is unknown.
RERUNS = [
    ("same head, found again", (HEAD, HEAD), [sighting(2, 10)], PERSISTED),
    ("same head, gone", (HEAD, HEAD), [], WENT_AWAY),
    ("new head, gone", (HEAD, "n" * 40), [], GONE),
    ("new head, found again", (HEAD, "n" * 40), [sighting(2, 10, "fp")], PERSISTED),
]


@pytest.mark.parametrize(("case", "heads", "after", "outcome"), RERUNS, ids=[r[0] for r in RERUNS])
def test_a_re_run_on_the_same_head_addresses_nothing(
    case: str, heads: tuple[str, str], after: list[Sighting], outcome: str
) -> None:
    before = sighting(1, 10, "fp")
    commit = successive._between(*heads, None)
    [(found, _)] = label_runs([before], after, commit).values()
    assert found == outcome != ADDRESSED, case


def test_a_decision_without_an_author_is_nobodys_and_does_not_count() -> None:
    said = {"id": 20, "user": {"type": "User"}, "body": f"/quorum ack {FINGERPRINT}"}
    found = commands([("issue_comment", said)], {})
    assert [decision.actor for decision in found] == [""]
    assert from_writers(found, lambda login: "admin") == []
