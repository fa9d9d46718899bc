"""ReviewDraft.from_plan_json: the contract with `quorum review --format json`."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from review_quorum.errors import InputError, Skipped
from review_quorum.github import DraftComment, Gate, ReviewDraft
from review_quorum.markup.markers import marker
from review_quorum.model import ConsensusLevel

FINDING = marker("finding", "3f2a9c:sql")
PLAN: dict[str, Any] = {
    "github_review": {
        "body": f"**Assessment: CRITICAL**\n\n{marker('finding', 'listed-1')}\n- lower confidence",
        "event": "COMMENT",
        "commit_id": "c" * 40,
        "comments": [
            {
                "path": "app/db.py",
                "line": 42,
                "side": "RIGHT",
                "body": f"{FINDING}\n**SQL injection**",
            },
            {
                "path": "app/views.py",
                "line": 9,
                "side": "RIGHT",
                "start_line": 7,
                "start_side": "RIGHT",
                "body": f"{marker('finding', 'b7:xss')}\nXSS",
            },
        ],
    },
    "summary_markdown": f"{marker('summary')}\n## review-quorum\n{marker('finding', 'sum-2')}",
    "gate": {"level": "confirmed", "failed": True, "count": 1},
}


def plan_with(pointer: str, value: object) -> dict[str, Any]:
    document = copy.deepcopy(PLAN)
    *parents, last = pointer.strip("/").split("/")
    target: Any = document
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is KeyError:
        del target[int(last) if isinstance(target, list) else last]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return document


def test_a_plan_becomes_a_draft() -> None:
    draft = ReviewDraft.from_plan_json(PLAN, source="plan.json")
    assert draft.comments == (
        DraftComment("app/db.py", 42, f"{FINDING}\n**SQL injection**", "3f2a9c:sql"),
        DraftComment(
            "app/views.py", 9, f"{marker('finding', 'b7:xss')}\nXSS", "b7:xss", "RIGHT", 7, "RIGHT"
        ),
    )
    assert (draft.event, draft.commit_id, draft.skipped) == ("COMMENT", "c" * 40, ())
    assert draft.gate == Gate("confirmed", True, 1)
    assert draft.fingerprints() == {"3f2a9c:sql", "b7:xss", "listed-1", "sum-2"}
    assert draft.comments[1].payload() == {
        "path": "app/views.py",
        "line": 9,
        "side": "RIGHT",
        "body": f"{marker('finding', 'b7:xss')}\nXSS",
        "start_line": 7,
        "start_side": "RIGHT",
    }


def test_a_summary_without_its_marker_gets_one() -> None:
    draft = ReviewDraft.from_plan_json(plan_with("/summary_markdown", "## Summary"))
    assert draft.summary == f"{marker('summary')}\n## Summary"


@pytest.mark.parametrize(
    ("pointer", "value", "message"),
    [
        ("/github_review", KeyError, r"plan.json:/github_review: expected a JSON object"),
        (
            "/github_review/comments",
            {"a": 1},
            r"plan.json:/github_review/comments: expected an array",
        ),
        (
            "/github_review/event",
            "DISMISS",
            r"plan.json:/github_review/event: expected one of COMMENT",
        ),
        ("/github_review/body", 5, r"plan.json:/github_review/body: expected a string"),
        ("/github_review/commit_id", 5, r"plan.json:/github_review/commit_id: expected a string"),
        ("/summary_markdown", None, r"plan.json:/summary_markdown: expected a string"),
        ("/gate", [], r"plan.json:/gate: expected a JSON object"),
        ("/gate/level", "high", r"plan.json:/gate/level: unknown consensus level \"high\""),
        ("/gate/failed", "yes", r"plan.json:/gate/failed: expected true or false"),
        ("/gate/count", 1.5, r"plan.json:/gate/count: expected a whole number"),
        (
            "/gate_findings_by_level",
            {"bogus": 1},
            r"/gate_findings_by_level/bogus: unknown consensus level",
        ),
        (
            "/gate_findings_by_level",
            {"confirmed": -1},
            r"/gate_findings_by_level/confirmed: expected a whole number >= 0",
        ),
    ],
)
def test_a_broken_plan_names_the_json_pointer(pointer: str, value: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        ReviewDraft.from_plan_json(plan_with(pointer, value), source="plan.json")


def test_a_plan_that_is_not_an_object() -> None:
    with pytest.raises(InputError, match=r"^plan.json:/: expected a JSON object$"):
        ReviewDraft.from_plan_json([], source="plan.json")


@pytest.mark.parametrize(
    ("pointer", "value", "reason"),
    [
        (
            "/github_review/comments/0/body",
            "no marker here",
            "comment body has no finding marker, so it cannot be posted idempotently",
        ),
        ("/github_review/comments/0/path", " ", "comment has no path"),
        (
            "/github_review/comments/0/line",
            0,
            "comment line must be a line number from 1 to 2147483647, not 0",
        ),
        (
            "/github_review/comments/0/line",
            True,
            "comment line must be a line number from 1 to 2147483647, not true",
        ),
        (
            "/github_review/comments/0/side",
            "MIDDLE",
            'comment side must be LEFT or RIGHT, not "MIDDLE"',
        ),
        ("/github_review/comments/0/start_line", 42, "start_line 42 must be before line 42"),
        ("/github_review/comments/0", "text", "expected an object with path, line, side and body"),
        (
            "/github_review/comments/0/body",
            f"{marker('finding', 'b7:xss')}\nagain",
            "duplicate finding fingerprint b7:xss; posted once",
        ),
    ],
)
def test_one_unusable_comment_is_skipped_with_its_position(
    pointer: str, value: object, reason: str
) -> None:
    draft = ReviewDraft.from_plan_json(plan_with(pointer, value), source="plan.json")
    assert len(draft.comments) == 1
    position = "/github_review/comments/1" if "duplicate" in reason else "/github_review/comments/0"
    assert draft.skipped == (Skipped("plan.json", position, reason),)


@pytest.mark.parametrize(
    ("gate", "level", "expected"),
    [
        (Gate("confirmed", True, 2), ConsensusLevel.UNVERIFIED, True),
        (Gate("confirmed", True, 2), ConsensusLevel.CONFIRMED, True),
        (Gate("confirmed", False, 0), ConsensusLevel.CONFIRMED, False),
        (Gate("confirmed", False, 0), ConsensusLevel.UNVERIFIED, None),
        (Gate("unverified", True, 3), ConsensusLevel.CONFIRMED, None),
        (Gate("unverified", False, 0), ConsensusLevel.CONFIRMED, False),
        (Gate("none", False, 0), ConsensusLevel.CONFIRMED, None),
        (
            Gate("none", False, 0, {"confirmed": 0, "needs-verification": 2}),
            ConsensusLevel.CONFIRMED,
            False,
        ),
        (
            Gate("none", False, 0, {"confirmed": 0, "needs-verification": 2}),
            ConsensusLevel.NEEDS_VERIFICATION,
            True,
        ),
    ],
)
def test_the_gate_answers_only_what_the_plan_can_tell(
    gate: Gate, level: ConsensusLevel, expected: bool | None
) -> None:
    assert gate.fails_at(level) is expected


def test_findings_the_plan_still_reports_are_not_gone() -> None:
    findings = [
        {"fingerprint": "in-summary", "disposition": "summary"},
        {"fingerprint": "audited", "disposition": "audit"},
        {"fingerprint": "dropped-now", "disposition": "dropped"},
    ]
    draft = ReviewDraft.from_plan_json(plan_with("/findings", findings))
    assert draft.reported == {"in-summary", "audited"}
    assert {"in-summary", "audited"} <= draft.fingerprints()
    assert "dropped-now" not in draft.fingerprints()


@pytest.mark.parametrize(
    ("findings", "message"),
    [
        ({}, r"plan.json:/findings: expected an array"),
        ([7], r"plan.json:/findings/0: expected a JSON object"),
        (
            [{"fingerprint": 1, "disposition": "inline"}],
            r"/findings/0: expected a string fingerprint",
        ),
    ],
)
def test_a_broken_findings_list_names_the_pointer(findings: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        ReviewDraft.from_plan_json(plan_with("/findings", findings), source="plan.json")
