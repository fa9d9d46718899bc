"""The JSON documents quorum writes, defined once as a tree of frozen Structs.

`ReviewReport` is what `quorum review --format json` writes and `quorum post`, `quorum
verify` and `--baseline` read back (a saved plan); `ConsensusReport` is what `quorum
consensus --format json` writes. The renderers (`render.serialize`, `render.json_report`)
fill these Structs and msgspec encodes them; `saved_plan` decodes a plan through the same
types (`msgspec.convert(..., ReviewReport, strict=True)`), so every field's type,
vocabulary and bounds are checked in one place; and the JSON Schemas integrators rely on
(`review_quorum/schemas/review-report.schema.json` and `consensus-report.schema.json`)
are generated from it (`schema_text`; `python tests/test_report_schema.py --write`).

Field order is the order of the document. A member written only in some documents is
`UNSET` when absent (`model` and `contributions` with the reliability model, `cwes` and
`use_only` when a rule states them, `priority` when a tool states one, a finding's `triage`
when a writer triaged it, a review comment's `start_line` for a span, the review's
`commit_id`, `verification` after a verifier ran).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from review_quorum.baseline import BaselineState, GateOn
from review_quorum.model import CommentSource, ConsensusLevel
from review_quorum.scope import FilterMode
from review_quorum.scoring import Model
from review_quorum.scoring.agreement import Order
from review_quorum.scoring.confidence import Assessment, Band, Disposition, PostingRule
from review_quorum.scoring.confidence.attach import AttachedVerdict
from review_quorum.scoring.confidence.scorer import Breakdown
from review_quorum.verifier.figures import Figures

Line = Annotated[int, Meta(ge=1)]
Count = Annotated[int, Meta(ge=0)]
Bots = Annotated[int, Meta(ge=1)]
Priority = Annotated[
    float, Meta(ge=0, le=1, description="a number in [0, 1] (the priority the tool states)")
]
SeverityLabel = Literal["info", "low", "medium", "high", "critical"]
GateLevel = Literal["confirmed", "needs-verification", "unverified", "none"]
InlineModeName = Literal["post", "link"]  # plan.InlineMode (the plan imports render's users)
CodeHash = Annotated[
    str,
    Meta(
        pattern="^([0-9a-f]{16})?$",
        description="16 lowercase hex digits or an empty string (the flagged line's hash)",
    ),
]
CommitSha = Annotated[
    str,
    Meta(
        pattern="^[0-9a-f]{40}([0-9a-f]{24})?$",
        description="a commit SHA (40 or 64 lowercase hex digits)",
    ),
]


class _Node(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """Every object of the documents: immutable, and no key it does not define."""


class ReportPlace(_Node, frozen=True):
    """A related place a member names."""

    file: str
    line: Line | None
    end_line: Line | None


class ReportEvidence(_Node, frozen=True):
    """Where a member points and what it quotes."""

    file: str
    line: Line | None
    end_line: Line | None
    snippet: str
    symbol: str


class ReportMember(_Node, frozen=True):
    """One input finding of a cluster, every field as read."""

    bot: str
    finding_id: str
    severity: SeverityLabel
    category: str
    title: str
    evidence: ReportEvidence
    confidence: float
    rule_id: str
    source: CommentSource | None  # the comment it came from, when it came from one
    suggestion: str
    related: tuple[ReportPlace, ...]
    cwes: tuple[Line, ...] | UnsetType = UNSET  # written when the rule states CWE ids
    use_only: bool | UnsetType = UNSET  # written (true) when the rule states only a use
    priority: Priority | UnsetType = UNSET  # written when the tool states a priority


class ReportContribution(_Node, frozen=True):
    """One witness's part in a reliability-model finding's probability."""

    source: str
    family: str
    reliability: float
    origin: str
    counted: bool
    log_odds: float


class ConsensusEntry(_Node, frozen=True):
    """A consensus finding: a cluster of members, who detected it and how sure that is."""

    file: str
    line: Line | None
    end_line: Line | None
    category: str
    title: str
    severity: SeverityLabel
    detected_by: tuple[str, ...]
    detected_by_count: Count
    bots_ran: Bots
    agreement_ratio: float
    max_confidence: float
    consensus_score: float
    level: ConsensusLevel
    members: Annotated[tuple[ReportMember, ...], Meta(min_length=1)]
    model: Model | UnsetType = UNSET  # written unless the model is agreement
    contributions: tuple[ReportContribution, ...] | UnsetType = UNSET  # with `model`


class ReportConfidence(_Node, frozen=True):
    """A verified finding's 0-100 score, its band, the posting rule and how it was reached."""

    score: int
    band: Band
    rule: PostingRule
    breakdown: Breakdown


class ReportTriage(_Node, frozen=True):
    """A writer's decision that keeps a finding quiet and out of the gate (`--db`): what,
    who, when, why, the comment or reaction it came from, and the finding's disposition
    before the decision moved it to the audit list. A claim in a saved plan: a posting run
    honours it only when its own history holds the same decision."""

    action: Literal["false-positive", "wont-fix", "ack"]
    actor: str
    acted_at: str
    reason: str
    via: str
    disposition: Disposition


class ReportFinding(ConsensusEntry, frozen=True, kw_only=True):
    """A finding of the review: the consensus finding, its disposition and the reason."""

    disposition: Disposition
    forced: bool
    reason: str
    fingerprint: str
    code: CodeHash
    baseline_state: BaselineState | None  # with a baseline: new, unchanged, updated
    in_diff: bool | None
    addressable: bool
    span_end: Line | None
    confidence: ReportConfidence | None
    verdict: AttachedVerdict | None
    link: CommentSource | None  # the bot comment the summary links to (link mode)
    triage: ReportTriage | UnsetType = UNSET  # written when a writer triaged it


class ReportSkipped(_Node, frozen=True):
    """An input record that could not be used: where it was and why."""

    source: str
    position: str
    reason: str


class ReportCounts(_Node, frozen=True):
    """How many findings have each disposition."""

    inline: Count
    summary: Count
    audit: Count
    dropped: Count


class ReportGate(_Node, frozen=True):
    """The CI gate: its level, whether it failed and how many findings block."""

    level: GateLevel
    failed: bool
    count: Count


class LevelCounts(_Node, frozen=True):
    """How many findings the gate weighs (in scope, not dismissed) at each level."""

    confirmed: Count
    needs_verification: Count = msgspec.field(name="needs-verification")
    unverified: Count


class ReportSettings(_Node, frozen=True):
    """Every knob the review ran with."""

    model: Model
    bots_ran: Bots | None
    line_window: Count
    title_overlap: float
    order: Order
    filter_mode: FilterMode
    context_lines: Count
    post_threshold: Count
    comment_cap: Count
    inline_level: ConsensusLevel
    gate_level: GateLevel
    inline_mode: InlineModeName
    gate_on: GateOn


class ReportAwaited(_Node, frozen=True):
    """The bots the review waited for (`--wait-for`)."""

    bots: tuple[str, ...]
    skipped: tuple[str, ...]
    missing: tuple[str, ...]
    waited_seconds: float


class ReportBaseline(_Node, frozen=True):
    """What the findings were compared with; the base findings this pull request fixed."""

    sources: tuple[str, ...]
    absent: tuple[ConsensusEntry, ...]


class ReviewComment(_Node, frozen=True):
    """One inline comment of the GitHub review payload (a span: `start_line` .. `line`)."""

    path: str
    line: Line | None
    side: Literal["RIGHT"]
    body: str
    start_line: Line | UnsetType = UNSET
    start_side: Literal["RIGHT"] | UnsetType = UNSET


class ReviewPayload(_Node, frozen=True):
    """The exact body of GitHub's create-review request for the plan."""

    body: str
    event: str
    comments: tuple[ReviewComment, ...]
    commit_id: CommitSha | UnsetType = UNSET


class ReviewReport(_Node, frozen=True, kw_only=True):
    """`quorum review --format json`: the whole plan, and what `quorum post` reads back."""

    assessment: Assessment
    bots_ran: Bots
    input_findings: Count
    counts: ReportCounts
    gate: ReportGate
    gate_findings_by_level: LevelCounts
    settings: ReportSettings
    findings: tuple[ReportFinding, ...]
    skipped: tuple[ReportSkipped, ...]
    awaited: ReportAwaited | None
    baseline: ReportBaseline | None
    github_review: ReviewPayload
    summary_markdown: str
    verification: Figures | UnsetType = UNSET


class ConsensusReport(_Node, frozen=True):
    """`quorum consensus --format json`: the consensus findings and the skipped records."""

    bots_ran: Bots
    findings: tuple[ConsensusEntry, ...]
    skipped: tuple[ReportSkipped, ...]


_TITLES = {
    "ReviewReport": (
        "review-quorum review report",
        "What `quorum review --format json` writes (a saved plan, which `quorum post` and "
        "`quorum verify` read back).",
    ),
    "ConsensusReport": (
        "review-quorum consensus report",
        "What `quorum consensus --format json` writes.",
    ),
}
SCHEMA_FILES = {
    "ReviewReport": "review-report.schema.json",
    "ConsensusReport": "consensus-report.schema.json",
}


def schema(kind: type[ReviewReport | ConsensusReport] = ReviewReport) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a document, generated from its Structs."""
    title, description = _TITLES[kind.__name__]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://pypi.org/project/review-quorum/schemas/{SCHEMA_FILES[kind.__name__]}",
        "title": title,
        "description": description,
        **msgspec.json.schema(kind),
    }


def schema_text(kind: type[ReviewReport | ConsensusReport] = ReviewReport) -> str:
    """The schema as the file `review_quorum/schemas/` ships (`SCHEMA_FILES`)."""
    return msgspec.json.format(msgspec.json.encode(schema(kind)), indent=2).decode() + "\n"
