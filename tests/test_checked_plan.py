"""A saved plan's bot findings checked against what GitHub shows: `check_plan`."""

from __future__ import annotations

from msgspec.structs import replace

from review_quorum.checked_plan import MISMATCH, Fresh, check_plan
from review_quorum.errors import Skipped
from review_quorum.model import CommentSource, NormalizedFinding
from review_quorum.plan import Settings, review
from review_quorum.scoring.confidence import Disposition

URL = "https://github.com/o/r/pull/1#discussion_r"
SETTINGS = Settings(model="agreement", bots_ran=3)


def said(
    bot: str,
    rest_id: int,
    title: str,
    line: int = 20,
    file: str = "src/db.py",
    *,
    sourced: bool = True,
) -> NormalizedFinding:
    """A finding as a reader makes it of review comment `rest_id`."""
    source = CommentSource(
        "review_comment", rest_id, f"N{rest_id}", f"{URL}{rest_id}", f"{bot}[bot]"
    )
    return NormalizedFinding.create(
        bot=bot,
        finding_id=f"review-comment:{rest_id}",
        severity="high",
        category="security",
        title=title,
        file=file,
        line=line,
        source=source if sourced else None,
    )


BANDIT = NormalizedFinding.create(
    bot="bandit", finding_id="B608", severity="high", category="security",
    title="SQL injection in the query", file="src/db.py", line=21,
)  # fmt: skip
SQL = [said("coderabbit", 1, "SQL injection in the query"), said("sourcery", 2, "SQL injection")]
WHO = [("coderabbit", 1), ("sourcery", 2)]


def rows(findings: object) -> list[tuple[str, int | None, tuple[str, ...], str]]:
    return [
        (item.finding.file, item.finding.line, item.finding.detected_by, item.disposition.value)
        for item in findings  # type: ignore[attr-defined]
    ]


def test_a_plan_that_github_bears_out_stands_as_it_is() -> None:
    plan = review([*SQL, BANDIT], settings=SETTINGS)
    assert check_plan(plan, Fresh(tuple(SQL))).plan is plan
    # Read per collection, a saved file may hold findings the joint read drops: still ours.
    assert check_plan(plan, Fresh((SQL[0],), (SQL[1],))).plan is plan


def test_forged_members_are_left_out_and_the_consensus_is_rebuilt_from_github() -> None:
    nit = [said(bot, rest_id, "Trailing whitespace", file="README.md") for bot, rest_id in WHO]
    forged = review([*nit, BANDIT], settings=SETTINGS)
    assert rows(forged.findings)[0][:3] == ("README.md", 20, ("coderabbit", "sourcery"))
    checked = check_plan(forged, Fresh(tuple(SQL)))
    assert checked.mismatched == tuple(nit)
    assert rows(checked.plan.findings) == [
        ("src/db.py", 20, ("bandit", "coderabbit", "sourcery"), Disposition.INLINE.value),
    ]
    assert checked.plan.skipped[-2:] == (
        Skipped("GitHub", "review_comment:1", MISMATCH),
        Skipped("GitHub", "review_comment:2", MISMATCH),
    )


def test_a_finding_attributed_to_a_bot_without_its_comment_is_left_out() -> None:
    unsourced = said("coderabbit", 1, "Passwords hashed with MD5", line=40, sourced=False)
    checked = check_plan(review([unsourced, BANDIT], settings=SETTINGS), Fresh(tuple(SQL)))
    assert checked.mismatched == (unsourced,)
    assert [row[:3] for row in rows(checked.plan.findings)] == [
        ("src/db.py", 20, ("bandit", "coderabbit", "sourcery"))
    ]


def test_bot_comments_the_plan_leaves_out_are_added() -> None:
    checked = check_plan(review([BANDIT], settings=SETTINGS), Fresh(tuple(SQL)))
    assert checked.mismatched == ()
    assert [row[2] for row in rows(checked.plan.findings)] == [("bandit", "coderabbit", "sourcery")]


def test_a_rebuilt_finding_keeps_the_diff_scope_the_plan_gave_its_fingerprint() -> None:
    dropped = NormalizedFinding.create(
        bot="bandit", finding_id="B608", severity="high", category="security",
        title="SQL injection in the query", file="src/old.py", line=21,
    )  # fmt: skip
    plan = review([dropped], settings=SETTINGS)
    plan = replace(
        plan,
        findings=tuple(
            replace(item, disposition=Disposition.DROPPED, in_diff=False, reason="out of scope")
            for item in plan.findings
        ),
    )
    late = said("coderabbit", 5, "SQL injection in the query", line=21, file="src/old.py")
    checked = check_plan(plan, Fresh((late,)))
    [item] = checked.plan.findings
    assert item.finding.detected_by == ("bandit", "coderabbit")
    assert (item.disposition, item.in_diff, item.reason) == (
        Disposition.DROPPED,
        False,
        "out of scope",
    )
