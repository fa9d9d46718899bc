"""A plan's bot findings checked against the pull request as GitHub shows it when posting.

A saved plan may come from a fork (`quorum post PLAN.json` in a `workflow_run` job), and a
fork can write any comments file: the real comments' ids and authors with invented text.
So what is attributed to a bot is decided from the posting process's own read of the pull
request, never from the plan. `check_plan` takes the findings the bot-comment readers make
of the comments GitHub serves now (`fresh`) and compares every member of the plan that
claims a bot comment (one naming a comment source, or a bot that commented there) with
them, field by field (ids, author, file, lines, title, text). When all match and none is
missing, the plan stands as it is. Otherwise the plan's claimed members are replaced by
the fresh findings and the consensus is rebuilt: a cluster with the same members as one of
the plan keeps its placement; a new one keeps the verdict and diff scope of the plan's
finding with the same fingerprint, and is placed by consensus where the plan has none
(the posting job has no diff). Each member that did not match is a counted `Skipped`
record, so the summary counts it; members from analysers (SARIF and the like) are the
plan's word, as an analyser's output always is.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import orjson
from msgspec.structs import replace

from review_quorum.comment_links import comment_key, link_targets
from review_quorum.errors import Skipped
from review_quorum.model import NormalizedFinding
from review_quorum.plan import PlannedFinding, ReviewPlan, assemble, fingerprint, place_finding
from review_quorum.render.serialize import member_data
from review_quorum.scoring import compute_consensus
from review_quorum.scoring.confidence import Disposition

SOURCE = "GitHub"
MISMATCH = "the plan's finding does not match this comment as GitHub shows it now: left out"


class Fresh(msgspec.Struct, frozen=True):
    """The pull request's comments as read now: the findings of reading them together
    (what a rebuilt plan holds), and every finding a reading of them gives, each
    collection also read alone, as saved files of them are (`identities`)."""

    findings: tuple[NormalizedFinding, ...]
    alone: tuple[NormalizedFinding, ...] = ()

    def identities(self) -> set[bytes]:
        return {identity(finding) for finding in (*self.findings, *self.alone)}


class CheckedPlan(msgspec.Struct, frozen=True):
    """The plan to post, and the plan's members that GitHub's comments do not bear out."""

    plan: ReviewPlan
    mismatched: tuple[NormalizedFinding, ...] = ()


def identity(finding: NormalizedFinding) -> bytes:
    """Every field of a finding as serialised: equal exactly when the findings are equal."""
    return orjson.dumps(member_data(finding), option=orjson.OPT_SORT_KEYS)


def check_plan(plan: ReviewPlan, fresh: Fresh) -> CheckedPlan:
    """`plan` with its bot findings as `fresh` (GitHub's comments, read now) has them."""
    read = fresh.identities()
    bots = {finding.bot for finding in (*fresh.findings, *fresh.alone)}
    members = [member for item in plan.findings for member in item.finding.members]
    claimed = [m for m in members if m.source is not None or m.bot in bots]
    mismatched = tuple(m for m in claimed if identity(m) not in read)
    said = {identity(m) for m in claimed}
    if not mismatched and all(identity(finding) in said for finding in fresh.findings):
        return CheckedPlan(plan)
    kept = [m for m in members if m.source is None and m.bot not in bots]
    return CheckedPlan(_rebuilt(plan, [*kept, *fresh.findings], mismatched), mismatched)


def _rebuilt(
    plan: ReviewPlan, findings: list[NormalizedFinding], mismatched: Sequence[NormalizedFinding]
) -> ReviewPlan:
    settings = plan.settings
    consensus = compute_consensus(findings, settings)
    same_members = {_members(item.finding.members): item for item in plan.findings}
    by_fingerprint = {item.fingerprint: item for item in plan.findings}
    planned: list[PlannedFinding] = []
    for finding, link in zip(consensus, link_targets(consensus), strict=True):
        same = same_members.get(_members(finding.members))
        if same is None:
            like = by_fingerprint.get(fingerprint(finding))
            verdict = like.verdict if like is not None else None
            placed = place_finding(finding, verdict, None, settings, link)
            same = placed if like is None else _scoped_as(placed, like)
        planned.append(same)
    skipped = [Skipped(SOURCE, _where(member), MISMATCH) for member in mismatched]
    return assemble(
        planned,
        settings,
        bots_ran=consensus[0].bots_ran if consensus else plan.bots_ran,
        skipped=(*plan.skipped, *skipped),
        input_count=len(findings),
        awaited=plan.awaited,
        commit_id=plan.commit_id,
    )


def _scoped_as(placed: PlannedFinding, like: PlannedFinding) -> PlannedFinding:
    """`placed` (judged without a diff) in the diff scope the plan gave its fingerprint."""
    if like.in_diff is False:
        return replace(
            placed,
            disposition=Disposition.DROPPED,
            forced=False,
            reason=like.reason,
            confidence=None,
            in_diff=False,
            addressable=like.addressable,
        )
    return replace(placed, in_diff=like.in_diff, addressable=like.addressable)


def _members(members: Sequence[NormalizedFinding]) -> frozenset[bytes]:
    return frozenset(identity(member) for member in members)


def _where(member: NormalizedFinding) -> str:
    return comment_key(member.source) if member.source is not None else member.finding_id
