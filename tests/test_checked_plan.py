"""A saved plan's bot findings checked against what GitHub shows: `check_plan`."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from review_quorum.checked_plan import GHOST, MISMATCH, Fresh, check_plan, cluster_key
from review_quorum.errors import Skipped
from review_quorum.identity import CodeLines, code_hash
from review_quorum.model import CommentSource, ConsensusLevel, NormalizedFinding, Severity
from review_quorum.plan import ReviewPlan, Settings, review
from review_quorum.scope import DiffScope
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)

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


def test_a_plan_that_github_bears_out_is_rebuilt_as_it_was() -> None:
    plan = review([*SQL, BANDIT], settings=SETTINGS)
    checked = check_plan(plan, Fresh(tuple(SQL)))
    assert (checked.plan.findings, checked.plan.inline, checked.plan.gate) == (
        plan.findings,
        plan.inline,
        plan.gate,
    )
    assert (checked.mismatched, checked.ghosts, checked.differing) == ((), (), 0)
    assert checked.faithful
    assert checked.plan.notes == (
        "Posted from a saved plan, taken as a proposal: the bots' findings are read again "
        "from their 2 comment(s) on this pull request; from the plan, this run kept 1 "
        "analyser finding(s) (bandit: the pull request's own analysers, not checked) and "
        "nothing else.",
    )
    # Read per collection, a saved file may hold findings the joint read drops: still ours.
    alone = check_plan(plan, Fresh((SQL[0],), (SQL[1],)))
    assert (alone.plan.findings, alone.mismatched) == (plan.findings, ())


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


@pytest.mark.parametrize("platform", ["GitLab", "Azure DevOps", "Bitbucket"])
def test_a_reading_of_another_platform_is_named_in_what_was_left_out(platform: str) -> None:
    """The skipped records name the platform the comments were read from, as the posting
    run's warning does (`CheckedPlan.platform`); GitHub's stay as they were."""
    nit = [said(bot, rest_id, "Trailing whitespace", file="README.md") for bot, rest_id in WHO]
    forged = review([*nit, BANDIT], settings=SETTINGS)
    checked = check_plan(forged, Fresh(tuple(SQL), platform=platform))
    mismatch = (
        f"the plan's finding does not match this comment as {platform} shows it now: left out"
    )
    assert checked.platform == platform
    assert checked.plan.skipped[-2:] == (
        Skipped(platform, "review_comment:1", mismatch),
        Skipped(platform, "review_comment:2", mismatch),
    )
    assert check_plan(forged, Fresh(tuple(SQL))).platform == "GitHub"


def test_a_finding_attributed_to_a_bot_without_its_comment_is_left_out() -> None:
    unsourced = said("coderabbit", 1, "Passwords hashed with MD5", line=40, sourced=False)
    checked = check_plan(review([unsourced, BANDIT], settings=SETTINGS), Fresh(tuple(SQL)))
    assert checked.mismatched == (unsourced,)
    assert [row[:3] for row in rows(checked.plan.findings)] == [
        ("src/db.py", 20, ("bandit", "coderabbit", "sourcery"))
    ]


def test_bot_comments_the_plan_leaves_out_are_added() -> None:
    checked = check_plan(review([BANDIT], settings=SETTINGS), Fresh(tuple(SQL)))
    assert (checked.mismatched, checked.added, checked.faithful) == ((), 1, False)
    assert [row[2] for row in rows(checked.plan.findings)] == [("bandit", "coderabbit", "sourcery")]


def out_of_scope(plan: ReviewPlan) -> ReviewPlan:
    """`plan` with every finding dropped as outside the diff, as a plan may say."""
    findings = tuple(
        replace(item, disposition=Disposition.DROPPED, in_diff=False, reason="out of scope")
        for item in plan.findings
    )
    return replace(plan, findings=findings, inline=())


def test_a_bot_finding_is_never_dropped_on_the_plans_word() -> None:
    late = said("coderabbit", 5, "SQL injection in the query", line=21)
    checked = check_plan(out_of_scope(review([BANDIT, late], settings=SETTINGS)), Fresh((late,)))
    [item] = checked.plan.findings
    assert item.finding.detected_by == ("bandit", "coderabbit")
    assert (item.disposition, item.in_diff) == (Disposition.INLINE, None)


def test_the_analysers_own_findings_keep_the_diff_scope_the_plan_gave_them() -> None:
    checked = check_plan(out_of_scope(review([BANDIT], settings=SETTINGS)), Fresh(()))
    [item] = checked.plan.findings
    assert (item.disposition, item.in_diff, item.reason) == (
        Disposition.DROPPED,
        False,
        "out of scope",
    )


def test_a_bot_without_a_comment_is_not_credited() -> None:
    ghost = said("cursor", 9, "SQL injection reports here are false positives", sourced=False)
    checked = check_plan(review([*SQL, ghost], settings=SETTINGS), Fresh(tuple(SQL)))
    assert (checked.mismatched, checked.ghosts) == ((ghost,), ("cursor",))
    assert not checked.faithful
    assert [row[2] for row in rows(checked.plan.findings)] == [("coderabbit", "sourcery")]
    assert checked.plan.skipped[-1] == Skipped("GitHub", "review-comment:9", GHOST)
    assert "Not credited: cursor (named by the plan, no comment here)." in checked.plan.notes


def test_a_name_the_configuration_gives_a_bot_is_a_bots_name() -> None:
    mine = NormalizedFinding.create(
        bot="house-bot", finding_id="h1", severity="high", category="security",
        title="Fine", file="src/db.py", line=20,
    )  # fmt: skip
    plan = review([*SQL, mine], settings=SETTINGS)
    assert check_plan(plan, Fresh(tuple(SQL))).mismatched == ()  # an analyser of the plan's
    assert check_plan(plan, Fresh(tuple(SQL)), bot_names={"house-bot"}).ghosts == ("house-bot",)


def test_cluster_fields_and_grouping_are_the_comments_own() -> None:
    honest = review([*SQL, BANDIT], settings=SETTINGS)
    [item] = honest.findings
    forged_finding = replace(
        item.finding, title="Typo in the docstring", severity=Severity.LOW, category="style"
    )
    forged = replace(honest, findings=(replace(item, finding=forged_finding),))
    checked = check_plan(forged, Fresh(tuple(SQL)))
    assert checked.plan.findings == honest.findings
    assert (checked.differing, checked.faithful) == (1, False)
    assert checked.plan.notes[1] == (
        "The plan showed 1 finding(s) from the bots otherwise than their comments say "
        "(grouping, title, severity or place), and left out or changed 1: shown here as "
        "the comments say."
    )


def test_settings_that_could_hide_are_the_defaults() -> None:
    wide = Settings(
        model="agreement", bots_ran=40, line_window=50, title_overlap=0.0, comment_cap=0,
        inline_level=ConsensusLevel.CONFIRMED, gate_level=None,
    )  # fmt: skip
    far = said("sourcery", 2, "Unrelated naming nit", line=60)
    checked = check_plan(review([SQL[0], far], settings=wide), Fresh((SQL[0], far)))
    settings = checked.plan.settings
    assert (settings.line_window, settings.title_overlap, settings.bots_ran) == (3, 0.5, None)
    assert (settings.comment_cap, settings.gate_level) == (5, ConsensusLevel.CONFIRMED)
    assert [row[2] for row in rows(checked.plan.findings)] == [("coderabbit",), ("sourcery",)]
    lower = replace(wide, inline_level=ConsensusLevel.UNVERIFIED, comment_cap=30)
    lowered = check_plan(review([SQL[0]], settings=lower), Fresh((SQL[0],))).plan.settings
    assert (lowered.inline_level, lowered.comment_cap) == (ConsensusLevel.UNVERIFIED, 30)


CONFIRMED, NEEDS_VERIFICATION, UNVERIFIED = (
    ConsensusLevel.CONFIRMED,
    ConsensusLevel.NEEDS_VERIFICATION,
    ConsensusLevel.UNVERIFIED,
)


@pytest.mark.parametrize(
    ("planned", "run", "kept"),
    [
        (UNVERIFIED, CONFIRMED, UNVERIFIED),
        (CONFIRMED, UNVERIFIED, UNVERIFIED),
        (CONFIRMED, NEEDS_VERIFICATION, NEEDS_VERIFICATION),
        (None, NEEDS_VERIFICATION, NEEDS_VERIFICATION),
        (UNVERIFIED, None, UNVERIFIED),
    ],
)
def test_a_plans_gate_may_only_lower_the_posting_runs(
    planned: ConsensusLevel | None, run: ConsensusLevel | None, kept: ConsensusLevel
) -> None:
    """The lower bar of the two gates (more findings reach it): a saved plan never raises
    the gate above what the posting run's own configuration says."""
    plan = review([SQL[0]], settings=Settings(gate_level=planned))
    checked = check_plan(plan, Fresh((SQL[0],)), gate_level=run)
    assert checked.plan.settings.gate_level == kept
    assert checked.plan.gate.level == kept


def test_verdicts_of_the_plan_are_not_used() -> None:
    plan = review([*SQL], settings=SETTINGS)
    verdict = AttachedVerdict(
        verdict=Verdict.DISMISSED, severity=VerifierSeverity.LOW,
        evidence_strength=EvidenceStrength.SPECULATIVE,
        context_completeness=ContextCompleteness.FULL,
        in_changed_code=True, issue="none", details="", source="v", position="1",
    )  # fmt: skip
    dismissed = replace(plan, findings=tuple(replace(i, verdict=verdict) for i in plan.findings))
    checked = check_plan(dismissed, Fresh(tuple(SQL)))
    assert [item.verdict for item in checked.plan.findings] == [None]
    # Placed by consensus, as if unverified (the bots that ran: those with findings here).
    assert checked.plan.findings == review(SQL, settings=replace(SETTINGS, bots_ran=None)).findings
    assert checked.plan.notes[-1] == "Not used: the plan's 1 verifier verdict(s)."


def test_the_posting_runs_own_verdicts_are_used() -> None:
    plan = review([*SQL], settings=SETTINGS)
    verdict = AttachedVerdict(
        verdict=Verdict.CONFIRMED, severity=VerifierSeverity.HIGH,
        evidence_strength=EvidenceStrength.DIRECT, context_completeness=ContextCompleteness.FULL,
        in_changed_code=True, issue="SQL injection", details="", source="v.json", position="/0",
    )  # fmt: skip
    mine = [
        AttachedVerdictInput("src/db.py", 20, verdict),
        AttachedVerdictInput("x.py", 1, verdict),
    ]
    checked = check_plan(plan, Fresh(tuple(SQL)), verdicts=mine)
    assert [item.verdict for item in checked.plan.findings] == [verdict]
    assert checked.plan.skipped[-1].source == "v.json"  # the verdict that matched nothing
    assert not any("verdict" in note for note in checked.plan.notes)


def test_a_bound_verdict_goes_only_to_the_cluster_it_was_asked_about() -> None:
    """`bound`: the posting run's verifier verdicts, each for the cluster with exactly the
    members it was asked about; one about other members (a plan's forged text at the same
    place) or a second one on a cluster is a counted Skipped record, never applied."""
    elsewhere = said("coderabbit", 3, "Unused import", line=2, file="src/app.py")
    plan = review([*SQL, elsewhere], settings=SETTINGS)
    verdict = AttachedVerdict(
        verdict=Verdict.CONFIRMED, severity=VerifierSeverity.HIGH,
        evidence_strength=EvidenceStrength.DIRECT, context_completeness=ContextCompleteness.FULL,
        in_changed_code=True, issue="SQL injection", details="", source="verifier",
        position="f1",
    )  # fmt: skip
    second = replace(verdict, verdict=Verdict.DISMISSED, position="f2")
    forged = replace(verdict, verdict=Verdict.DISMISSED, position="f3")
    at = AttachedVerdictInput("src/db.py", 20, verdict)
    bound = [
        (cluster_key(SQL), at),
        (cluster_key(SQL[::-1]), replace(at, verdict=second)),  # the same members
        (cluster_key([said("coderabbit", 1, "forged")]), replace(at, verdict=forged)),
    ]
    checked = check_plan(plan, Fresh((*SQL, elsewhere)), bound=bound)
    assert [item.verdict for item in checked.plan.findings] == [verdict, None]
    assert [(s.position, s.reason) for s in checked.plan.skipped[-2:]] == [
        ("f2", "verdict for src/db.py:20 is a second verdict on one finding"),
        ("f3", "verdict for src/db.py:20 is about a finding this run does not post as verified"),
    ]


def test_a_comment_read_together_with_more_findings_than_alone_keeps_them() -> None:
    more = said("coderabbit", 1, "Query string is also logged", line=22)
    plan = review([SQL[0]], settings=SETTINGS)  # the plan holds the comment's one finding
    checked = check_plan(plan, Fresh((SQL[0], more), (SQL[0],)))
    assert sorted(m.title for i in checked.plan.findings for m in i.finding.members) == [
        "Query string is also logged",
        "SQL injection in the query",
    ]


def test_a_plans_drop_of_a_bots_finding_is_undone_and_said() -> None:
    late = said("coderabbit", 5, "SQL injection in the query", line=21)
    checked = check_plan(out_of_scope(review([late], settings=SETTINGS)), Fresh((late,)))
    assert checked.plan.notes[1] == (
        "Shown although the plan left them out: 1 finding(s) from the bots (this run has no "
        "diff: a bot's finding is not dropped on the plan's word)."
    )
    assert checked.differing == 0


def test_the_findings_are_grouped_in_the_order_the_plan_made_them() -> None:
    first = said("sourcery", 2, "SQL injection through the search term")
    second = said("coderabbit", 1, "SQL injection via the search term", line=21)
    plan = review([first, second], settings=replace(SETTINGS, bots_ran=None))
    [item] = plan.findings
    assert item.finding.title == "SQL injection through the search term"
    checked = check_plan(plan, Fresh((second, first)))  # GitHub lists them the other way
    assert checked.plan.findings == plan.findings and checked.differing == 0


def test_the_rebuilt_plan_keeps_the_identities_the_review_gave() -> None:
    """An analyser's own finding keeps the plan's flagged-line text (so its identity); a
    bot's finding takes it from the posting run's checkout only, never from the plan."""
    diff = DiffScope.parse(
        "--- a/src/db.py\n+++ b/src/db.py\n@@ -1,0 +1,30 @@\n"
        + "".join(f"+line {n}\n" for n in range(1, 31))
    )
    lone = said("coderabbit", 1, "Unbounded retry loop", line=5)
    plan = review([lone, BANDIT], settings=SETTINGS, diff=diff)
    by_bot = {item.finding.members[0].bot: item for item in plan.findings}
    assert by_bot["bandit"].code == code_hash("line 21") and by_bot["coderabbit"].code
    forged = replace(
        plan,
        findings=tuple(replace(item, code="0" * 16) for item in plan.findings),
    )
    rebuilt = {
        item.finding.members[0].bot: item
        for item in check_plan(forged, Fresh((lone,))).plan.findings
    }
    assert rebuilt["bandit"].code == "0" * 16  # the analyser's own, as the plan says
    assert rebuilt["coderabbit"].code == ""  # never the plan's word for a bot's finding
    checked = check_plan(plan, Fresh((lone,)), lines=CodeLines(diff=diff))
    assert [item.fingerprint for item in checked.plan.findings] == [
        item.fingerprint for item in plan.findings
    ]
    assert {item.code for item in checked.plan.findings} == {
        code_hash("line 21"),
        code_hash("line 5"),
    }
