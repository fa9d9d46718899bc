"""A saved plan rebuilt against the pull request as its platform shows it when posting.

A saved plan may come from a fork (`quorum post PLAN.json` in a `workflow_run` job), and a
fork can write anything into it: invented comment text on the real comments' ids and
authors, findings credited to bots that never commented, its own grouping, titles,
severities, levels, placements and verdicts. So in a posting run the plan is an untrusted
proposal (SPEC section 8). `check_plan` keeps from it only the findings of analysers (a
member that names no comment and no bot: a fork controls its analysers anyway), and
rebuilds everything derived from bot comments from `fresh`, the findings the bot-comment
readers make of the comments the platform (GitHub, GitLab, Azure DevOps or Bitbucket)
serves now: the consensus engine groups them with
the analysers' findings (with the plan's settings only where they cannot hide anything:
no wider line window, no looser title overlap, no higher inline or gate level, no smaller
comment cap, no verdicts, no count of bots that ran), and each cluster gets its title,
severity, level and placement from that. The posting job has no diff: a cluster with a bot
finding is never dropped as out of the diff on the plan's word; a cluster of analyser
findings alone keeps the diff scope the plan gave the same findings.

A member of the plan that claims a bot (one naming a comment, or a bot that commented
there or that a reader or the configuration knows by name) and that no comment bears out
field by field (ids, author, file, lines, title, text) is left out as a counted `Skipped`
record (`mismatched`); a bot named that way with no comment on the pull request is not
credited (`ghosts`). The plan's notes (`ReviewPlan.notes`) say what the plan proposed and
what the run kept, so the summary shows it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence

import msgspec
import orjson
from msgspec.structs import replace

from review_quorum.comment_links import comment_key, link_targets
from review_quorum.errors import Skipped
from review_quorum.identity import CodeLines, code_hashes
from review_quorum.ingest.bots import BOT_NAMES
from review_quorum.markup import escape
from review_quorum.model import ConsensusFinding, ConsensusLevel, NormalizedFinding
from review_quorum.plan import (
    UNHELD,
    PlannedFinding,
    ReviewPlan,
    Settings,
    Triage,
    assemble,
    place_finding,
    unheld,
)
from review_quorum.render.serialize import member_entry
from review_quorum.scoring import compute_consensus
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import (
    AttachedVerdict,
    AttachedVerdictInput,
    attach_verdicts,
)

SOURCE = "GitHub"  # the platform a `Fresh` reading is of, unless it names another
MISMATCHED = "the plan's finding does not match this comment as {} shows it now: left out"
MISMATCH = MISMATCHED.format(SOURCE)
GHOST = "the plan credits a bot that has no comment on this pull request: left out"
DEFAULTS = Settings()
GATE: ConsensusLevel | None = ConsensusLevel.CONFIRMED  # a plan may lower it, never lift it


class Fresh(msgspec.Struct, frozen=True):
    """The pull request's comments as read now from `platform`: the findings of reading
    them together (what a rebuilt plan holds), and every finding a reading of them gives,
    each collection also read alone, as saved files of them are (`identities`)."""

    findings: tuple[NormalizedFinding, ...]
    alone: tuple[NormalizedFinding, ...] = ()
    platform: str = SOURCE

    def identities(self) -> set[bytes]:
        return {identity(finding) for finding in (*self.findings, *self.alone)}


class CheckedPlan(msgspec.Struct, frozen=True):
    """The plan to post, rebuilt; the plan's bot members the platform's comments do not
    bear out, the bots it names that have no comment, and how many of its findings from
    bots the rebuilt plan does not show as the plan had them."""

    plan: ReviewPlan
    mismatched: tuple[NormalizedFinding, ...] = ()
    ghosts: tuple[str, ...] = ()
    differing: int = 0
    added: int = 0  # findings from bots the rebuilt plan shows that the plan did not
    platform: str = SOURCE  # whose comments the plan was checked against

    @property
    def faithful(self) -> bool:
        """The plan says of the bots exactly what their comments say."""
        return not (self.mismatched or self.differing or self.added)


def identity(finding: NormalizedFinding) -> bytes:
    """Every field of a finding as serialised: equal exactly when the findings are equal."""
    return msgspec.json.encode(member_entry(finding), order="sorted")


def cluster_key(members: Sequence[NormalizedFinding]) -> str:
    """A digest of every field of every member of a cluster: `quorum verify` names the
    cluster each verdict is about by it, and a posting run gives the verdict only to the
    cluster it rebuilt with exactly those members (`bound` of `check_plan`)."""
    return hashlib.sha256(b"\n".join(sorted(identity(m) for m in members))).hexdigest()


def check_plan(
    plan: ReviewPlan,
    fresh: Fresh,
    *,
    bot_names: Collection[str] = (),
    gate_level: ConsensusLevel | None = GATE,
    verdicts: Sequence[AttachedVerdictInput] = (),
    lines: CodeLines | None = None,
    bound: Sequence[tuple[str, AttachedVerdictInput]] = (),
) -> CheckedPlan:
    """`plan` rebuilt with the bots' findings `fresh` (the platform's comments, read now)
    holds;
    `bot_names` are the configuration's names for bots (``bot-logins``), `gate_level` the
    posting run's own gate (its configuration's), which the plan may only lower, and
    `verdicts` the posting run's own verifier verdicts (the plan's are never used),
    attached by file and line; `bound` the posting run's own verdicts each for the
    cluster whose `cluster_key` it names (a verdict whose cluster the run does not
    rebuild is a counted `Skipped` record). Each finding keeps the identity the review
    gave it: its flagged line's text is read from `lines` (the posting run's checkout),
    else an analyser's own finding keeps the plan's; a bot's finding is never given the
    plan's."""
    read = fresh.identities()
    commented = {finding.bot for finding in (*fresh.findings, *fresh.alone)}
    bots = commented | set(BOT_NAMES) | set(bot_names)
    members = [member for item in plan.findings for member in item.finding.members]
    analysed = [m for m in members if m.source is None and m.bot not in bots]
    claimed = [m for m in members if m.source is not None or m.bot in bots]
    mismatched = tuple(m for m in claimed if identity(m) not in read)
    ghosts = tuple(sorted({m.bot for m in claimed if m.bot not in commented}))
    said = _said(fresh, [m for m in claimed if identity(m) in read])
    settings = _safe(plan.settings, gate_level)
    findings = _in_plan_order(members, [*analysed, *said])
    rebuilt, unmatched = _rebuilt(settings, plan, findings, analysed, verdicts, lines, bound)
    differing = len(_bot_views(plan.findings) - _bot_views(rebuilt))
    added = len(_bot_views(rebuilt) - _bot_views(plan.findings))
    shown = len(_bot_views(plan.findings, dropped=True) & _bot_views(rebuilt, dropped=False))
    notes = _notes(plan, analysed, said, mismatched, ghosts, (differing, added, shown))
    mismatch = MISMATCHED.format(fresh.platform)
    skipped = [
        Skipped(fresh.platform, _where(member), GHOST if member.bot not in commented else mismatch)
        for member in mismatched
    ]
    checked = assemble(
        rebuilt,
        settings,
        bots_ran=rebuilt[0].finding.bots_ran if rebuilt else plan.bots_ran,
        skipped=(*plan.skipped, *skipped, *unmatched),
        input_count=len(analysed) + len(said),
        commit_id=plan.commit_id,
        # the triage the saved plan was read with (`saved_plan`: the posting run's history)
        triage=Triage(tuple(item.triage for item in plan.findings if item.triage is not None)),
    )
    notes_kept = replace(checked, notes=notes)
    return CheckedPlan(notes_kept, mismatched, ghosts, differing, added, fresh.platform)


def _safe(settings: Settings, gate: ConsensusLevel | None) -> Settings:
    """The plan's settings where they cannot hide anything, else the defaults (and the
    posting run's own gate). Its inline level stays: none is above the default's."""
    return replace(
        settings,
        bots_ran=None,
        line_window=min(settings.line_window, DEFAULTS.line_window),
        title_overlap=max(settings.title_overlap, DEFAULTS.title_overlap),
        gate_level=_lower_gate(settings.gate_level, gate),
        comment_cap=max(settings.comment_cap, DEFAULTS.comment_cap),
        profile=None,
    )


def _lower(level: ConsensusLevel, other: ConsensusLevel) -> ConsensusLevel:
    """The lower bar of the two (more findings reach it)."""
    return level if level.rank <= other.rank else other


def _lower_gate(
    level: ConsensusLevel | None, other: ConsensusLevel | None
) -> ConsensusLevel | None:
    """The lower gate of the two; None (no gate) is the highest."""
    if level is None or other is None:
        return other if level is None else level
    return _lower(level, other)


def _said(fresh: Fresh, borne_out: Sequence[NormalizedFinding]) -> list[NormalizedFinding]:
    """The bots' findings, comment by comment as the comments read together; or, for
    a comment whose findings the plan holds exactly as that comment's collection read
    alone gives them (a plan made from saved files of the comments), as read alone."""
    together, alone, proposed = (
        _by_comment(fresh.findings),
        _by_comment(fresh.alone),
        {key: {identity(m) for m in found} for key, found in _by_comment(borne_out).items()},
    )
    said: list[NormalizedFinding] = []
    for key in {**together, **proposed}:
        mine, theirs = proposed.get(key, set()), alone.get(key, [])
        read_alone = {identity(m) for m in theirs}
        if mine and mine == read_alone and {identity(m) for m in together.get(key, [])} <= mine:
            said += theirs
        else:
            said += together.get(key, [])
    return said


def _by_comment(findings: Sequence[NormalizedFinding]) -> dict[str, list[NormalizedFinding]]:
    grouped: dict[str, list[NormalizedFinding]] = {}
    for finding in findings:
        key = comment_key(finding.source) if finding.source is not None else ""
        if finding not in grouped.setdefault(key, []):
            grouped[key].append(finding)
    return grouped


def _in_plan_order(
    members: Sequence[NormalizedFinding], findings: Sequence[NormalizedFinding]
) -> list[NormalizedFinding]:
    """`findings` in the order the plan lists them (its clusters', its members'), the
    ones it does not list after them: so an honest plan is rebuilt as it was made."""
    rank: dict[bytes, int] = {}
    for member in members:
        rank.setdefault(identity(member), len(rank))
    return sorted(findings, key=lambda finding: rank.get(identity(finding), len(rank)))


def _rebuilt(
    settings: Settings,
    plan: ReviewPlan,
    findings: Sequence[NormalizedFinding],
    analysed: Sequence[NormalizedFinding],
    verdicts: Sequence[AttachedVerdictInput],
    lines: CodeLines | None = None,
    bound: Sequence[tuple[str, AttachedVerdictInput]] = (),
) -> tuple[list[PlannedFinding], list[Skipped]]:
    consensus = compute_consensus(findings, settings)
    attached, unmatched = attach_verdicts(consensus, verdicts, settings.line_window)
    _bind(consensus, bound, attached, unmatched)
    theirs = {identity(member) for member in analysed}
    scoped = {_members(item.finding.members): item for item in plan.findings}
    planned: list[PlannedFinding] = []
    links = link_targets(consensus)
    codes = code_hashes(consensus, lines)
    for index, (finding, link) in enumerate(zip(consensus, links, strict=True)):
        members = _members(finding.members)
        like = scoped.get(members)
        own = like is not None and members <= theirs  # the analysers' own
        code = codes[index] or (like.code if like is not None and own else "")
        placed = place_finding(finding, attached.get(index), None, settings, link, code)
        if like is not None and own:  # their diff scope
            placed = _scoped_as(placed, like)
        planned.append(placed)
    return planned, unmatched


def _bind(
    consensus: Sequence[ConsensusFinding],
    bound: Sequence[tuple[str, AttachedVerdictInput]],
    attached: dict[int, AttachedVerdict],
    unmatched: list[Skipped],
) -> None:
    """Each of `bound` on the cluster with the members it was given for, else skipped."""
    if not bound:
        return
    at: dict[str, int] = {}
    for index, finding in enumerate(consensus):
        at.setdefault(cluster_key(finding.members), index)
    for key, item in bound:
        target = at.get(key)
        place = f"{item.file}:{item.line}"
        where = (item.verdict.source, item.verdict.position)
        if target is None:
            why = f"verdict for {place} is about a finding this run does not post as verified"
            unmatched.append(Skipped(*where, why))
        elif target in attached:
            unmatched.append(
                Skipped(*where, f"verdict for {place} is a second verdict on one finding")
            )
        else:
            attached[target] = item.verdict


def _scoped_as(placed: PlannedFinding, like: PlannedFinding) -> PlannedFinding:
    """`placed` (judged without a diff) in the diff scope the plan gave the same findings."""
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


def _bot_views(findings: Sequence[PlannedFinding], dropped: bool | None = None) -> set[bytes]:
    """What a reader sees of each finding with a bot comment among its members: its
    members, title, severity, category and place (its level depends on settings)."""
    return {
        orjson.dumps(
            [
                sorted(identity(member).decode() for member in item.finding.members),
                item.finding.title,
                item.finding.severity.label,
                item.finding.category,
                item.finding.file,
                item.finding.line,
                list(item.finding.detected_by),
            ]
        )
        for item in findings
        if any(member.source is not None for member in item.finding.members)
        and (dropped is None or (item.disposition is Disposition.DROPPED) is dropped)
    }


def _notes(
    plan: ReviewPlan,
    analysed: Sequence[NormalizedFinding],
    said: Sequence[NormalizedFinding],
    mismatched: Sequence[NormalizedFinding],
    ghosts: Sequence[str],
    changes: tuple[int, int, int],
) -> tuple[str, ...]:
    """What the plan proposed and what this run kept, for the summary (escaped)."""
    differing, added, shown = changes
    comments = len({comment_key(f.source) for f in said if f.source is not None})
    names = sorted({member.bot for member in analysed})
    kept = f"{len(analysed)} analyser finding(s)" + (
        f" ({escape.inline(', '.join(names), limit=200)}: the pull request's own analysers, "
        "not checked)"
        if names
        else ""
    )
    notes = [
        f"Posted from a saved plan, taken as a proposal: the bots' findings are read again "
        f"from their {comments} comment(s) on this pull request; from the plan, this run "
        f"kept {kept} and nothing else."
    ]
    if plan.extra.get(UNHELD):
        notes.append(unheld(plan.extra[UNHELD]))
    if differing or added:
        notes.append(
            f"The plan showed {differing} finding(s) from the bots otherwise than their "
            f"comments say (grouping, title, severity or place), and left out or changed "
            f"{added}: shown here as the comments say."
        )
    if shown:
        notes.append(
            f"Shown although the plan left them out: {shown} finding(s) from the bots (this "
            "run has no diff: a bot's finding is not dropped on the plan's word)."
        )
    if mismatched:
        notes.append(
            f"Left out: {len(mismatched)} finding(s) the plan attributes to bots that no "
            "comment on this pull request says as the plan has it."
        )
    if ghosts:
        named = escape.inline(", ".join(ghosts), limit=200)
        notes.append(f"Not credited: {named} (named by the plan, no comment here).")
    proposed = sum(1 for item in plan.findings if item.verdict is not None)
    if proposed:
        notes.append(f"Not used: the plan's {proposed} verifier verdict(s).")
    return tuple(notes)


def _members(members: Sequence[NormalizedFinding]) -> frozenset[bytes]:
    return frozenset(identity(member) for member in members)


def _where(member: NormalizedFinding) -> str:
    return comment_key(member.source) if member.source is not None else member.finding_id
