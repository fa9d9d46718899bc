"""The review plan (SPEC sections 1 and 5): consensus, verdicts and diff scope composed.

`review()` is the library behind `quorum review`. Consensus runs first. A verifier verdict
attaches to the consensus finding at the same file and nearest line (within the line
window); verified findings are placed by the confidence policy (SPEC 4), the others by
consensus: forced inline when security or high severity at needs-verification or above,
inline when at or above the inline level, else the summary. One comment cap applies across
both kinds. Out-of-scope findings are dropped with a reason, never silently. The CI gate
counts in-scope findings at or above the gate level that no verifier dismissed (`Gate`, which
also holds every finding it weighs, for the report's counts by level). Each
finding also names the existing bot comment it links to (`link`), which the summary shows
instead of an inline comment of ours when `inline_mode` is "link".

What the history and the pull request say are inputs here too, read before planning
(`history/` only reads them), so the gate a user sees is decided in this module alone:
a writer's triage (`Triage`: ``/quorum false-positive``, ``wont-fix``, ``ack``) moves its
finding to the audit list and out of the gate, and which expected bots reviewed the head
commit (`BotCoverage`) decides who votes when ``--bots`` is not given (`voters`) and is
said in the summary.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec
from msgspec.structs import replace

from review_quorum.baseline import Baseline, BaselineState, GateOn, compare
from review_quorum.comment_links import link_targets
from review_quorum.errors import Skipped
from review_quorum.identity import CodeLines, code_hashes, identities
from review_quorum.model import (
    CommentSource,
    ConsensusFinding,
    ConsensusLevel,
    NormalizedFinding,
)
from review_quorum.scope import DiffScope, FilterMode
from review_quorum.scoring import DEFAULT_MODEL, Model, compute_consensus
from review_quorum.scoring.agreement import Order
from review_quorum.scoring.confidence import (
    DEFAULT_COMMENT_CAP,
    DEFAULT_POST_THRESHOLD,
    ConfidenceResult,
    Disposition,
    apply_cap,
    assess,
    score_finding,
)
from review_quorum.scoring.confidence import Assessment as Assessment
from review_quorum.scoring.confidence.attach import (
    AttachedVerdict,
    AttachedVerdictInput,
    attach_verdicts,
    scoring_input,
)
from review_quorum.scoring.confidence.posting import consensus_placement
from review_quorum.scoring.confidence.verdicts import Verdict
from review_quorum.scoring.profile import Profile

InlineMode = Literal["post", "link"]
INLINE_MODES: tuple[InlineMode, ...] = ("post", "link")  # `--inline-mode`, `inline-mode`


class Settings(msgspec.Struct, frozen=True):
    """Every knob of a review, with the defaults the README documents."""

    bots_ran: int | None = None
    line_window: int = 3
    title_overlap: float = 0.5
    order: Order = "input"
    filter_mode: FilterMode = FilterMode.ADDED
    context_lines: int = 3
    post_threshold: int = DEFAULT_POST_THRESHOLD
    comment_cap: int = DEFAULT_COMMENT_CAP
    inline_level: ConsensusLevel = ConsensusLevel.CONFIRMED
    gate_level: ConsensusLevel | None = ConsensusLevel.CONFIRMED
    model: Model = DEFAULT_MODEL
    profile: Profile | None = None
    inline_mode: InlineMode = "post"
    gate_on: GateOn = "new"  # with a baseline: "new" blocks on new and updated findings only

    def as_data(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "bots_ran": self.bots_ran,
            "line_window": self.line_window,
            "title_overlap": self.title_overlap,
            "order": self.order,
            "filter_mode": self.filter_mode.value,
            "context_lines": self.context_lines,
            "post_threshold": self.post_threshold,
            "comment_cap": self.comment_cap,
            "inline_level": self.inline_level.value,
            "gate_level": self.gate_level.value if self.gate_level else "none",
            "inline_mode": self.inline_mode,
            "gate_on": self.gate_on,
        }


SILENCING = frozenset({"false-positive", "wont-fix", "ack"})  # a reaction is evidence only


class Decision(msgspec.Struct, frozen=True):
    """A writer's triage of one finding, as the history stores it (`history.triage`)."""

    fingerprint: str
    action: str
    actor: str
    acted_at: str
    reason: str
    via: str  # review_comment:ID, issue_comment:ID or reaction:ID

    @property
    def silences(self) -> bool:
        """Whether the finding is not to be posted again nor to fail the gate."""
        return self.action in SILENCING


Place = tuple[str, str, int | None]  # (file, category, line)


class Triage(msgspec.Struct, frozen=True):
    """The pull request's stored triage, read from the history before planning.

    `decisions` oldest first (a later one on the same finding wins); `places` says where
    the history last recorded the finding of each decision's identity, so that a decision
    on an identity this review does not know (one an earlier version wrote) follows its
    finding to the identity it has now.
    """

    decisions: tuple[Decision, ...] = ()
    places: Mapping[str, Place] = msgspec.field(default_factory=dict)


NO_TRIAGE = Triage()


class State(enum.Enum):
    """What an expected bot did about the head commit (`history.coverage` reads it)."""

    REVIEWED = "reviewed the head commit"
    DECLINED = "said it would not review"
    STALE = "reviewed an older commit only"
    ABSENT = "did not review"


class BotCoverage(msgspec.Struct, frozen=True):
    bot: str
    state: State
    why: str = ""  # the notice, for a declined bot


class PlannedFinding(msgspec.Struct, frozen=True):
    """One consensus finding with its place in the review and the reason for it."""

    finding: ConsensusFinding
    disposition: Disposition
    forced: bool
    reason: str
    fingerprint: str
    in_diff: bool | None
    addressable: bool
    confidence: ConfidenceResult | None = None
    verdict: AttachedVerdict | None = None
    span_end: int | None = None
    link: CommentSource | None = None  # the bot comment the summary links to in link mode
    code: str = ""  # the flagged line's text, hashed (`identity.code_hash`); "" when unknown
    baseline_state: BaselineState | None = None  # compared with a baseline: SARIF's value
    triage: Decision | None = None  # the writer's decision that keeps it out of the gate
    untriaged: Disposition | None = None  # where it was before that decision moved it

    @property
    def believed(self) -> bool:
        return self.verdict is None or self.verdict.verdict is not Verdict.DISMISSED


class Gate(msgspec.Struct, frozen=True):
    """The CI gate: its level, the findings that block at it, and every finding it weighs
    (those it would block at a low enough level: neither dropped nor dismissed nor triaged,
    nor, gating on new findings, unchanged from the baseline)."""

    level: ConsensusLevel | None
    blocking: tuple[PlannedFinding, ...]
    weighed: tuple[PlannedFinding, ...] = ()

    def weighed_by_level(self) -> dict[ConsensusLevel, int]:
        """How many findings the gate weighs at each consensus level."""
        counts = dict.fromkeys(ConsensusLevel, 0)
        for item in self.weighed:
            counts[item.finding.level] += 1
        return counts

    @property
    def failed(self) -> bool:
        return bool(self.blocking)

    def describe(self) -> str:
        """The gate in a few words, as a commit or pull request status says it."""
        level = self.level.value if self.level is not None else "any"
        if self.failed:
            return f"{len(self.blocking)} finding(s) at {level} or above"
        return f"no finding at {level} or above"


class AwaitedBots(msgspec.Struct, frozen=True):
    """The bots a review waited for (`--wait-for`): which said they skipped, which never came.

    `missing` bots had neither reported nor skipped when the review was made, after
    `waited` seconds; the summary names them so that a reader knows the review is partial.
    """

    names: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    waited: float = 0.0

    @property
    def reported(self) -> tuple[str, ...]:
        """The awaited bots that reviewed the head commit."""
        absent = {*self.skipped, *self.missing}
        return tuple(name for name in self.names if name not in absent)


class ReviewPlan(msgspec.Struct, frozen=True):
    """Everything the renderers and the poster need, decided once."""

    assessment: Assessment
    bots_ran: int
    findings: tuple[PlannedFinding, ...]
    inline: tuple[PlannedFinding, ...]
    skipped: tuple[Skipped, ...]
    settings: Settings
    gate: Gate
    input_count: int = 0
    extra: Mapping[str, Any] = msgspec.field(default_factory=dict)
    awaited: AwaitedBots | None = None
    commit_id: str | None = None  # the head commit the review is about, when read from GitHub
    notes: tuple[str, ...] = ()  # summary lines from the history (coverage, acknowledged)
    baseline: Baseline | None = None  # what the findings were compared with, if anything
    coverage: tuple[BotCoverage, ...] = ()  # the expected bots and what each did

    @property
    def reviewed(self) -> tuple[str, ...]:
        """The expected bots the pull request shows reviewing the head commit (the
        history's coverage), findings or not: their earlier findings' absence is re-checked."""
        return tuple(c.bot for c in self.coverage if c.state is State.REVIEWED)

    def with_disposition(self, disposition: Disposition) -> tuple[PlannedFinding, ...]:
        if disposition is Disposition.INLINE:
            return self.inline
        return tuple(item for item in self.findings if item.disposition is disposition)


def fingerprint(finding: ConsensusFinding, code: str = "") -> str:
    """The identity `finding` has when no other finding of its review would share it
    (`review_quorum.identity`); `assemble` gives every finding of a plan its own."""
    return identities([finding], [code])[0]


def with_identities(findings: Sequence[PlannedFinding]) -> list[PlannedFinding]:
    """`findings`, each with its identity, distinct within the plan (`identity.identities`)."""
    ids = identities([item.finding for item in findings], [item.code for item in findings])
    return [
        item if item.fingerprint == new else replace(item, fingerprint=new)
        for item, new in zip(findings, ids, strict=True)
    ]


def review(
    findings: Sequence[NormalizedFinding],
    *,
    settings: Settings = Settings(),
    diff: DiffScope | None = None,
    verdicts: Sequence[AttachedVerdictInput] = (),
    skipped: Sequence[Skipped] = (),
    verdicts_at: Mapping[int, AttachedVerdict] | None = None,
    lines: CodeLines | None = None,
    baseline: Sequence[NormalizedFinding] | None = None,
    baseline_sources: Sequence[str] = (),
    triage: Triage = NO_TRIAGE,
    coverage: Sequence[BotCoverage] = (),
) -> ReviewPlan:
    """Plan one consolidated review of `findings` (see the module docstring).

    `verdicts_at` gives verdicts to clusters by their place in the plan (the verifier's,
    which asked about one cluster each), beside `verdicts`, attached by file and line.
    `lines` gives the text of flagged lines for the findings' identities (by default the
    diff's hunk lines). With `baseline` (the base branch's findings, read from
    `baseline_sources`) each finding gets its `baseline_state` (`review_quorum.baseline`);
    pre-existing findings go to the summary, and the gate follows `settings.gate_on`.
    `triage` and `coverage` are what the history read for the pull request (`assemble`).
    """
    consensus = compute_consensus(findings, settings)
    attached, unmatched = attach_verdicts(consensus, verdicts, settings.line_window)
    attached.update(verdicts_at or {})
    links = link_targets(consensus)
    if lines is None and diff is not None:
        lines = CodeLines(diff=diff)
    codes = code_hashes(consensus, lines)
    planned = [
        place_finding(item, attached.get(index), diff, settings, links[index], codes[index])
        for index, item in enumerate(consensus)
    ]
    bots_ran = consensus[0].bots_ran if consensus else max(settings.bots_ran or 1, 1)
    compared: Baseline | None = None
    if baseline is not None:
        planned, compared = _compared(planned, baseline, baseline_sources, settings, diff, lines)
    return assemble(
        planned,
        settings,
        bots_ran=bots_ran,
        skipped=(*skipped, *unmatched),
        input_count=len(findings),
        baseline=compared,
        triage=triage,
        coverage=coverage,
    )


PRE_EXISTING = "pre-existing: the baseline has it"


def _compared(
    planned: Sequence[PlannedFinding],
    base: Sequence[NormalizedFinding],
    sources: Sequence[str],
    settings: Settings,
    diff: DiffScope | None,
    lines: CodeLines | None,
) -> tuple[list[PlannedFinding], Baseline]:
    """`planned` with their baseline states (pre-existing inline ones moved to the summary)
    and the baseline, its absent findings included."""
    clusters = compute_consensus(base, settings)
    placed = with_identities(planned)
    head = [(item.finding, item.fingerprint) for item in placed]
    states, absent = compare(head, clusters, diff=diff, lines=lines)
    result = [with_state(item, state) for item, state in zip(placed, states, strict=True)]
    return result, Baseline(tuple(sources), tuple(absent))


def with_state(item: PlannedFinding, state: BaselineState | None) -> PlannedFinding:
    """`item` with its baseline state; an unchanged one is not posted inline again."""
    item = replace(item, baseline_state=state)
    if state == "unchanged" and item.disposition is Disposition.INLINE:
        return _demote(item, PRE_EXISTING)
    return item


def assemble(
    findings: Sequence[PlannedFinding],
    settings: Settings,
    *,
    bots_ran: int,
    skipped: Sequence[Skipped] = (),
    input_count: int = 0,
    awaited: AwaitedBots | None = None,
    commit_id: str | None = None,
    baseline: Baseline | None = None,
    triage: Triage = NO_TRIAGE,
    coverage: Sequence[BotCoverage] = (),
) -> ReviewPlan:
    """The plan of placed findings: the comment cap, the inline order, assessment, the
    writers' triage and the gate.

    `review` ends here, and a saved plan read back (`review_quorum.saved_plan`) comes here
    again, so both derive the same plan from the same findings. A finding a writer
    triaged (`Triage`) goes to the audit list after the cap, leaves the inline comments
    and the gate, and keeps its decision (`PlannedFinding.triage`) for the summary; the
    assessment stays the one of the comments before triage.
    """
    planned, inline = _apply_cap(with_identities(findings), settings.comment_cap)
    assessment = assess(_assessment_inputs(inline))
    planned, inline = _honour(planned, inline, triage)
    return ReviewPlan(
        assessment=assessment,
        bots_ran=bots_ran,
        findings=tuple(planned),
        inline=inline,
        skipped=tuple(skipped),
        settings=settings,
        gate=gate_at(planned, settings.gate_level, settings.gate_on),
        input_count=input_count,
        awaited=awaited,
        commit_id=commit_id,
        baseline=baseline,
        coverage=tuple(coverage),
    )


def _honour(
    planned: list[PlannedFinding], inline: tuple[PlannedFinding, ...], triage: Triage
) -> tuple[list[PlannedFinding], tuple[PlannedFinding, ...]]:
    """`planned` and `inline` with the findings a writer triaged kept quiet: each gets its
    decision, goes to the audit list (a dropped one stays dropped) and leaves `inline`."""
    latest = silenced(planned, triage)
    if not latest:
        return planned, inline
    quiet = [
        _quiet(item, latest[item.fingerprint]) if item.fingerprint in latest else item
        for item in planned
    ]
    return quiet, tuple(item for item in inline if item.fingerprint not in latest)


def silenced(findings: Sequence[PlannedFinding], triage: Triage) -> dict[str, Decision]:
    """The latest silencing decision on each identity of `findings`: a decision on an
    identity they do not have follows the finding at the place the history recorded it."""
    known = {item.fingerprint for item in findings}
    at = {(i.finding.file, i.finding.category, i.finding.line): i.fingerprint for i in findings}
    latest: dict[str, Decision] = {}
    for decision in triage.decisions:
        target = decision.fingerprint
        if target not in known and target in triage.places:
            target = at.get(triage.places[target], target)
        if decision.silences and target in known:
            latest[target] = replace(decision, fingerprint=target)
    return latest


_SAID = {"false-positive": "false positive", "wont-fix": "won't fix", "ack": "acknowledged"}


def said(decision: Decision) -> str:
    """How the summary names a decision's action ("false positive", ...)."""
    return _SAID[decision.action]


def _quiet(item: PlannedFinding, decision: Decision) -> PlannedFinding:
    if item.disposition is Disposition.DROPPED:
        return replace(item, triage=decision)
    return replace(
        item,
        disposition=Disposition.AUDIT,
        reason=f"{item.reason}{triaged_by(decision)}",
        triage=decision,
        untriaged=item.disposition,
    )


UNHELD = "unheld triage"  # `ReviewPlan.extra`: a saved plan's decisions a posting run did not hold


def unheld(count: int) -> str:
    """The summary's note on a saved plan's triage that the posting run's history lacks."""
    return f"{count} triage decision(s) the plan claims are not in this run's history: not honoured"


def triaged_by(decision: Decision) -> str:
    """What a writer's decision adds to its finding's reason."""
    return f"; {said(decision)} by {decision.actor}"


def voters(
    seen: set[str] | frozenset[str], awaited: AwaitedBots | None, coverage: Sequence[BotCoverage]
) -> tuple[str, ...] | None:
    """The bots that vote when the user did not say how many ran (``--bots``), or None
    when only the bots with findings do: the awaited bots that reported (they ran even
    when they found nothing), else, when any has no finding, the expected bots that
    reviewed the head commit (a rate-limited, stale or absent one does not vote)."""
    if awaited is not None:
        return tuple(sorted(seen.union(awaited.reported)))
    reviewed = {c.bot for c in coverage if c.state is State.REVIEWED}
    if seen.issuperset(reviewed):
        return None
    return tuple(sorted(seen.union(reviewed)))


def place_finding(
    finding: ConsensusFinding,
    verdict: AttachedVerdict | None,
    diff: DiffScope | None,
    settings: Settings,
    link: CommentSource | None = None,
    code: str = "",
) -> PlannedFinding:
    in_diff: bool | None = None
    addressable = finding.line is not None and bool(finding.file)
    confidence: ConfidenceResult | None = None
    if diff is not None:
        judged = diff.judge(
            finding.file, finding.line, settings.filter_mode, settings.context_lines
        )
        in_diff, addressable = judged.in_scope, judged.addressable
    if in_diff is False:
        mode = settings.filter_mode.value
        disposition, forced = Disposition.DROPPED, False
        reason = f"out of the diff scope ({mode}): {judged.reason}"
    elif verdict is not None:
        confidence = confidence_of(finding, verdict, in_diff, settings)
        assert confidence is not None  # verified and in scope
        disposition, forced, reason = confidence.disposition, confidence.forced, confidence.reason
    else:
        disposition, forced, reason = consensus_placement(finding, settings.inline_level)
    return PlannedFinding(
        finding,
        disposition,
        forced,
        reason,
        fingerprint(finding, code),
        in_diff,
        addressable,
        confidence,
        verdict,
        _span_end(finding, diff),
        link,
        code,
    )


def confidence_of(
    finding: ConsensusFinding,
    verdict: AttachedVerdict | None,
    in_diff: bool | None,
    settings: Settings,
) -> ConfidenceResult | None:
    """The confidence of a verified finding in scope; None without a verdict or out of scope."""
    if verdict is None or in_diff is False:
        return None
    scoring = scoring_input(finding, verdict, in_diff)
    return score_finding(scoring, post_threshold=settings.post_threshold)


def _span_end(finding: ConsensusFinding, diff: DiffScope | None) -> int | None:
    """The last line of a multi-line comment, when every line of the span can anchor."""
    end = finding.end_line
    if end is None or finding.line is None or diff is None:
        return end
    span = range(finding.line, end + 1)
    return end if all(diff.addressable(finding.file, line) for line in span) else None


def _cap_key(item: PlannedFinding) -> tuple[float, int, int, int, int, int, int]:
    """One ranking for both kinds: the 0-100 score, then severity, then the seed's ties."""
    if item.confidence is not None:
        return (
            float(item.confidence.score),
            int(item.finding.severity),
            *item.confidence.rank[1:],
            1,
        )
    score = item.finding.consensus_score * 100
    return (score, int(item.finding.severity), 0, 0, 0, 0, 0)


def _apply_cap(
    planned: list[PlannedFinding], cap: int
) -> tuple[list[PlannedFinding], tuple[PlannedFinding, ...]]:
    forced = [item for item in planned if item.disposition is Disposition.INLINE and item.forced]
    candidates = [
        item for item in planned if item.disposition is Disposition.INLINE and not item.forced
    ]
    kept, demoted = apply_cap(candidates, cap, _cap_key)
    demoted_ids = {id(item) for item in demoted}
    note = f"over the comment cap of {cap}: moved to the summary"
    result = [_demote(item, note) if id(item) in demoted_ids else item for item in planned]
    replaced = {id(old): new for old, new in zip(planned, result, strict=True)}
    inline = tuple(replaced[id(item)] for item in (*forced, *kept))
    return result, inline


def demoted(plan: ReviewPlan, reasons: Mapping[str, str]) -> ReviewPlan:
    """`plan` with the inline findings named in `reasons` (by identity) moved to the
    summary, each with its reason: what a reporter could not post inline is still
    delivered, and the summary's counts are what was delivered."""
    if not reasons:
        return plan
    findings = tuple(
        _demote(item, reasons[item.fingerprint])
        if item.fingerprint in reasons and item.disposition is Disposition.INLINE
        else item
        for item in plan.findings
    )
    inline = tuple(item for item in plan.inline if item.fingerprint not in reasons)
    return replace(
        plan,
        findings=findings,
        inline=inline,
        assessment=assess(_assessment_inputs(inline)),
    )


def _demote(item: PlannedFinding, note: str) -> PlannedFinding:
    return replace(item, disposition=Disposition.SUMMARY, reason=f"{item.reason}; {note}")


def _assessment_inputs(inline: Sequence[PlannedFinding]) -> list[tuple[str, Verdict | None]]:
    inputs: list[tuple[str, Verdict | None]] = []
    for item in inline:
        if item.verdict is not None:
            inputs.append((item.verdict.severity.value, item.verdict.verdict))
        else:
            inputs.append((item.finding.severity.label, None))
    return inputs


def gate_at(
    planned: Sequence[PlannedFinding],
    level: ConsensusLevel | None,
    on: GateOn = "new",
    *,
    verified: bool = True,
) -> Gate:
    """The gate at `level`: the findings at or above it, neither dropped nor dismissed nor
    triaged by a writer; with a baseline and `on` "new", only new and updated ones (not
    those the base has). Without a level nothing blocks, but the gate still says what it
    weighs. Not `verified`, the gate stays on consensus after a verifier re-planned: each
    finding is weighed as the plan without verdicts placed it, where only a finding out of
    the diff is dropped (`place_finding`), whatever its verdict."""
    weighed = tuple(
        item
        for item in planned
        if (
            item.disposition is not Disposition.DROPPED and item.believed
            if verified
            else item.in_diff is not False
        )
        and item.triage is None
        and not (on == "new" and item.baseline_state == "unchanged")
    )
    if level is None:
        return Gate(None, (), weighed)
    rank = level.rank
    return Gate(level, tuple(item for item in weighed if item.finding.level.rank >= rank), weighed)


def kept_gate(before: ReviewPlan, after: ReviewPlan) -> ReviewPlan:
    """`after` (`before` re-planned with a verifier's verdicts) gated as `before` was: the
    gate stays on consensus unless the user let verdicts change it."""
    gate = gate_at(after.findings, before.gate.level, after.settings.gate_on, verified=False)
    return replace(after, gate=gate)
