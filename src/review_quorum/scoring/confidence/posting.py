"""The posting policy (SPEC section 4): where a scored finding goes, and why.

Reads like flake8's `DecisionEngine`: enums in, a `Placement` (disposition, forced, the
rule, a reason naming it) out, the rules written top to bottom in precedence order, ending
in `assert_never`. The comment cap (rule 8) is a separate, generic `apply_cap` because
`quorum review` applies one cap across verified and unverified findings alike, and
`assess` labels a whole review from its inline findings.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, assert_never

import msgspec

from review_quorum.model import ConsensusFinding, ConsensusLevel, Severity
from review_quorum.scoring.confidence.bands import WEAK_FLOOR
from review_quorum.scoring.confidence.verdicts import Category, Verdict, VerifierSeverity

DEFAULT_COMMENT_CAP = 5


class Disposition(enum.StrEnum):
    INLINE = "inline"
    SUMMARY = "summary"
    AUDIT = "audit"
    DROPPED = "dropped"


class Assessment(enum.StrEnum):
    CRITICAL = "CRITICAL"
    NEEDS_ATTENTION = "NEEDS ATTENTION"
    APPROVE = "APPROVE"


class PostingRule(enum.StrEnum):
    """The posting rules of SPEC section 4, in precedence order (the cap applies last)."""

    SCOPE_GATE = "scope-gate"
    DISMISSED = "dismissed"
    SECURITY_FLOOR = "security-floor"
    HIGH_SEVERITY = "high-severity"
    THRESHOLD = "threshold"
    LOWER_CONFIDENCE = "lower-confidence"
    VISIBILITY_FLOOR = "visibility-floor"
    DISMISSED_SECURITY = "dismissed-security"
    NEGLIGIBLE = "negligible"
    COMMENT_CAP = "comment-cap"


class Placement(msgspec.Struct, frozen=True):
    """Where the posting policy puts a finding, and the rule that decided it."""

    disposition: Disposition
    forced: bool
    rule: PostingRule
    reason: str


def place(
    *,
    in_diff: bool,
    in_changed_code: bool,
    verdict: Verdict,
    category: Category,
    verifier_severity: VerifierSeverity,
    score: int,
    post_threshold: int,
) -> Placement:
    """The posting policy before the cap: the first rule that matches decides."""
    if not (in_diff and in_changed_code):
        return Placement(Disposition.DROPPED, False, PostingRule.SCOPE_GATE, _scope_reason(in_diff))
    if verdict is Verdict.DISMISSED and category is not Category.SECURITY:
        reason = "rule 1 (dismissed): the verifier DISMISSED it and it is not a security finding"
        return Placement(Disposition.DROPPED, False, PostingRule.DISMISSED, reason)
    believed = verdict is not Verdict.DISMISSED
    if believed and category is Category.SECURITY:
        reason = f"rule 2 (security floor): a {verdict} security finding always posts inline"
        return Placement(Disposition.INLINE, True, PostingRule.SECURITY_FLOOR, reason)
    if believed and verifier_severity is VerifierSeverity.HIGH:
        reason = f"rule 3 (high severity): a {verdict} high-severity finding always posts inline"
        return Placement(Disposition.INLINE, True, PostingRule.HIGH_SEVERITY, reason)
    if believed and score >= post_threshold:
        reason = f"rule 4 (threshold): score {score} is at or above the threshold {post_threshold}"
        return Placement(Disposition.INLINE, False, PostingRule.THRESHOLD, reason)
    if believed and score >= WEAK_FLOOR:
        reason = (
            f"rule 5 (lower confidence): score {score} is below the threshold "
            f"{post_threshold} but at least {WEAK_FLOOR}"
        )
        return Placement(Disposition.SUMMARY, False, PostingRule.LOWER_CONFIDENCE, reason)
    if believed and verifier_severity is VerifierSeverity.MEDIUM:
        reason = f"rule 6 (visibility floor): score {score} is negligible but severity is medium"
        return Placement(Disposition.SUMMARY, False, PostingRule.VISIBILITY_FLOOR, reason)
    match verdict:
        case Verdict.DISMISSED:
            reason = "rule 7 (dismissed security): listed for manual review"
            return Placement(Disposition.AUDIT, False, PostingRule.DISMISSED_SECURITY, reason)
        case Verdict.CONFIRMED | Verdict.LIKELY:
            reason = f"no rule posts it: score {score} is negligible and severity is low"
            return Placement(Disposition.DROPPED, False, PostingRule.NEGLIGIBLE, reason)
        case _:
            assert_never(verdict)


def consensus_placement(
    finding: ConsensusFinding, inline_level: ConsensusLevel
) -> tuple[Disposition, bool, str]:
    """Where an unverified finding goes, by consensus alone (SPEC 5), top rule first.

    The counterpart of `place` for a finding no verifier judged: (disposition, forced,
    reason), forced when security or high severity at needs-verification or above.
    """
    level = finding.level.value
    agreed = finding.level.rank >= ConsensusLevel.NEEDS_VERIFICATION.rank
    if agreed and finding.category == "security":
        return Disposition.INLINE, True, f"security finding at level {level}: always inline"
    if agreed and finding.severity >= Severity.HIGH:
        severity = finding.severity.label
        return Disposition.INLINE, True, f"{severity} severity at level {level}: always inline"
    if finding.level.rank >= inline_level.rank:
        return Disposition.INLINE, False, f"consensus level {level} reaches the inline level"
    below = f"consensus level {level} is below the inline level {inline_level.value}"
    return Disposition.SUMMARY, False, below


def _scope_reason(in_diff: bool) -> str:
    where = "in changed code" if in_diff else "in the diff"
    return f"rule 1 (scope gate): not {where}"


_T = TypeVar("_T")


def apply_cap(
    candidates: Iterable[_T], cap: int, key: Callable[[_T], Any]
) -> tuple[list[_T], list[_T]]:
    """Split capped candidates into (kept, demoted), each highest `key` first.

    Ties keep input order, so the earlier of two equal candidates stays. Pass only the
    candidates the cap applies to: forced findings are neither counted nor displaced.
    """
    if cap < 0:
        raise ValueError(f"cap must be >= 0, not {cap}")
    ranked = sorted(candidates, key=key, reverse=True)
    return ranked[:cap], ranked[cap:]


def assess(inline: Iterable[tuple[str, Verdict | None]]) -> Assessment:
    """The review's label from its inline findings: (severity label, verdict or None).

    CRITICAL when one is high (or critical) severity and believed, else NEEDS ATTENTION when
    one is medium and believed, else APPROVE. An unverified finding (None) counts as
    believed; a DISMISSED one never counts.
    """
    assessment = Assessment.APPROVE
    for severity, verdict in inline:
        if verdict is Verdict.DISMISSED:
            continue
        label = severity.strip().lower()
        if label in ("critical", "high"):
            return Assessment.CRITICAL
        if label == "medium":
            assessment = Assessment.NEEDS_ATTENTION
    return assessment
