"""The posting policy (SPEC 4): each rule with its reason, the cap, the report, the label."""

from __future__ import annotations

import pytest

from review_quorum.scoring.confidence import (
    Assessment,
    Disposition,
    FindingInput,
    PostingRule,
    Verdict,
    apply_cap,
    assess,
    score_finding,
    score_findings,
)
from verified import verified

INLINE, SUMMARY, AUDIT, DROPPED = (
    Disposition.INLINE,
    Disposition.SUMMARY,
    Disposition.AUDIT,
    Disposition.DROPPED,
)


def finding(**changes: object) -> FindingInput:
    return verified(**changes)


WEAKEST_LIKELY = {
    "verdict": "LIKELY",
    "evidence_strength": "speculative",
    "context_completeness": "none",
}

RULES = [
    pytest.param(
        {"in_diff": False},
        (DROPPED, False, PostingRule.SCOPE_GATE, 0),
        "rule 1 (scope gate): not in the diff",
        id="1-scope-not-in-diff",
    ),
    pytest.param(
        {"in_changed_code": False},
        (DROPPED, False, PostingRule.SCOPE_GATE, 0),
        "rule 1 (scope gate): not in changed code",
        id="1-scope-not-changed-code",
    ),
    pytest.param(
        {"in_diff": False, "category": "security", "verifier_severity": "high"},
        (DROPPED, False, PostingRule.SCOPE_GATE, 0),
        "rule 1 (scope gate): not in the diff",
        id="1-scope-before-security-floor",
    ),
    pytest.param(
        {"in_changed_code": False, "category": "security", "verdict": "DISMISSED"},
        (DROPPED, False, PostingRule.SCOPE_GATE, 0),
        "rule 1 (scope gate): not in changed code",
        id="1-scope-before-dismissed-security-audit",
    ),
    pytest.param(
        {"verdict": "DISMISSED", "verifier_severity": "high"},
        (DROPPED, False, PostingRule.DISMISSED, 0),
        "rule 1 (dismissed): the verifier DISMISSED it and it is not a security finding",
        id="1-dismissed-non-security",
    ),
    pytest.param(
        {**WEAKEST_LIKELY, "category": "security", "verifier_severity": "low"},
        (INLINE, True, PostingRule.SECURITY_FLOOR, 26),
        "rule 2 (security floor): a LIKELY security finding always posts inline",
        id="2-security-floor-at-negligible-score",
    ),
    pytest.param(
        {"category": "security", "verifier_severity": "high"},
        (INLINE, True, PostingRule.SECURITY_FLOOR, 100),
        "rule 2 (security floor): a CONFIRMED security finding always posts inline",
        id="2-security-floor-before-high-severity",
    ),
    pytest.param(
        {**WEAKEST_LIKELY, "drafter_severity": "low", "verifier_severity": "high"},
        (INLINE, True, PostingRule.HIGH_SEVERITY, 18),
        "rule 3 (high severity): a LIKELY high-severity finding always posts inline",
        id="3-high-severity",
    ),
    pytest.param(
        {},
        (INLINE, False, PostingRule.THRESHOLD, 100),
        "rule 4 (threshold): score 100 is at or above the threshold 55",
        id="4-threshold",
    ),
    pytest.param(
        {
            "verdict": "LIKELY",
            "evidence_strength": "circumstantial",
            "context_completeness": "partial",
            "verifier_severity": "low",
        },
        (SUMMARY, False, PostingRule.LOWER_CONFIDENCE, 52),
        "rule 5 (lower confidence): score 52 is below the threshold 55 but at least 30",
        id="5-lower-confidence",
    ),
    pytest.param(
        {
            "verdict": "LIKELY",
            "evidence_strength": "circumstantial",
            "context_completeness": "none",
            "drafter_severity": "high",
            "verifier_severity": "low",
        },
        (SUMMARY, False, PostingRule.LOWER_CONFIDENCE, 30),
        "rule 5 (lower confidence): score 30 is below the threshold 55 but at least 30",
        id="5-lower-confidence-at-30",
    ),
    pytest.param(
        {**WEAKEST_LIKELY, "drafter_severity": "high", "verifier_severity": "medium"},
        (SUMMARY, False, PostingRule.VISIBILITY_FLOOR, 26),
        "rule 6 (visibility floor): score 26 is negligible but severity is medium",
        id="6-visibility-floor-verifier-lowered-severity",
    ),
    pytest.param(
        {**WEAKEST_LIKELY, "drafter_severity": "low", "verifier_severity": "medium"},
        (SUMMARY, False, PostingRule.VISIBILITY_FLOOR, 26),
        "rule 6 (visibility floor): score 26 is negligible but severity is medium",
        id="6-visibility-floor-verifier-escalated-severity",
    ),
    pytest.param(
        {"verdict": "DISMISSED", "category": "security", "verifier_severity": "medium"},
        (AUDIT, False, PostingRule.DISMISSED_SECURITY, 0),
        "rule 7 (dismissed security): listed for manual review",
        id="7-dismissed-security-audit-not-visibility-floor",
    ),
    pytest.param(
        {"verdict": "DISMISSED", "category": "security", "verifier_severity": "high"},
        (AUDIT, False, PostingRule.DISMISSED_SECURITY, 0),
        "rule 7 (dismissed security): listed for manual review",
        id="7-dismissed-security-high",
    ),
    pytest.param(
        {**WEAKEST_LIKELY, "drafter_severity": "high", "verifier_severity": "low"},
        (DROPPED, False, PostingRule.NEGLIGIBLE, 18),
        "no rule posts it: score 18 is negligible and severity is low",
        id="negligible-low-dropped",
    ),
]


@pytest.mark.parametrize(("changes", "expected", "reason"), RULES)
def test_each_posting_rule_and_its_reason(
    changes: dict[str, object],
    expected: tuple[Disposition, bool, PostingRule, int],
    reason: str,
) -> None:
    result = score_finding(finding(**changes))
    assert (result.disposition, result.forced, result.rule, result.score) == expected
    assert result.reason == reason


@pytest.mark.parametrize(
    ("threshold", "disposition", "rule"),
    [(55, INLINE, PostingRule.THRESHOLD), (56, INLINE, PostingRule.THRESHOLD)]
    + [
        (57, SUMMARY, PostingRule.LOWER_CONFIDENCE),
        ("strong", SUMMARY, PostingRule.LOWER_CONFIDENCE),
    ],
)
def test_threshold_is_inclusive(
    threshold: object, disposition: Disposition, rule: PostingRule
) -> None:
    # CONFIRMED speculative none with a one-step severity disagreement scores exactly 56.
    item = finding(
        evidence_strength="speculative", context_completeness="none", verifier_severity="low"
    )
    result = score_finding(item, post_threshold=threshold)
    assert (result.score, result.disposition, result.rule) == (56, disposition, rule)


def test_a_higher_threshold_only_moves_findings_from_inline_to_summary() -> None:
    item = finding(verdict="LIKELY")
    assert score_finding(item, post_threshold="strong").reason == (
        "rule 5 (lower confidence): score 75 is below the threshold 80 but at least 30"
    )


# --- the cap ---------------------------------------------------------------------------------


def ranked(count: int, **changes: object) -> list[FindingInput]:
    return [finding(line=line, **changes) for line in range(1, count + 1)]


def test_the_cap_demotes_non_forced_inline_findings_beyond_it() -> None:
    inputs = ranked(4) + ranked(3, verdict="LIKELY")  # four score 100, three score 75
    report = score_findings(inputs, comment_cap=5)
    assert [(f.position, f.result.score) for f in report.inline] == [
        (0, 100),
        (1, 100),
        (2, 100),
        (3, 100),
        (4, 75),
    ]
    assert [f.position for f in report.summary] == [5, 6]
    demoted = report.summary[0].result
    assert (demoted.disposition, demoted.rule, demoted.forced) == (
        SUMMARY,
        PostingRule.COMMENT_CAP,
        False,
    )
    assert demoted.reason == (
        "rule 8 (comment cap): score 75 reaches the threshold but ranks below the 5 inline "
        "comments the cap allows"
    )
    assert [f.result.disposition for f in report.findings] == [INLINE] * 5 + [SUMMARY] * 2


def test_forced_findings_are_never_counted_by_the_cap() -> None:
    forced = ranked(6, category="security", verdict="LIKELY", evidence_strength="speculative")
    report = score_findings(forced + ranked(5), comment_cap=5)
    assert len(report.inline) == 11
    assert report.summary == ()


def test_forced_findings_are_never_displaced_even_at_cap_zero() -> None:
    forced = finding(
        line=99, verifier_severity="high", verdict="LIKELY", evidence_strength="speculative"
    )
    report = score_findings([*ranked(2), forced], comment_cap=0)
    assert [(f.position, f.result.forced) for f in report.inline] == [(2, True)]
    assert [f.position for f in report.summary] == [0, 1]
    assert report.summary[0].result.reason.endswith("below the 0 inline comments the cap allows")


def test_inline_lists_forced_first_then_by_rank() -> None:
    inputs = [
        finding(line=1, verdict="LIKELY"),  # 75, capped
        finding(line=2, category="security", context_completeness="none"),  # 83, forced
        finding(line=3),  # 100, capped
        finding(line=4, category="security", verdict="LIKELY"),  # 75, forced
    ]
    report = score_findings(inputs)
    assert [f.position for f in report.inline] == [1, 3, 2, 0]


# Each pair ties on everything ranked before the criterion it checks.
TIE_BREAKS = [
    pytest.param(
        # Both score 75 from subtotal 70; the LIKELY one has the stronger evidence, so
        # only the verdict criterion, ranked before evidence, keeps the CONFIRMED one.
        {"verdict": "LIKELY"},
        {"evidence_strength": "speculative", "context_completeness": "partial"},
        75,
        id="same-score-and-subtotal-confirmed-beats-likely",
    ),
    pytest.param(
        {
            "evidence_strength": "speculative",
            "context_completeness": "partial",
            "verifier_severity": "low",
        },  # subtotal 70, concordance 0
        {
            "evidence_strength": "speculative",
            "drafter_severity": "high",
            "verifier_severity": "low",
        },  # subtotal 78, concordance -8
        70,
        id="same-score-and-verdict-higher-subtotal-wins",
    ),
    pytest.param(
        {"evidence_strength": "speculative", "verifier_severity": "low"},  # 78: -4 + 12
        {"context_completeness": "none", "verifier_severity": "low"},  # 78: 18 - 10
        78,
        id="same-subtotal-stronger-evidence-wins",
    ),
]


@pytest.mark.parametrize(("loser", "winner", "score"), TIE_BREAKS)
@pytest.mark.parametrize("winner_first", [True, False])
def test_cap_tie_breaks(
    loser: dict[str, object], winner: dict[str, object], score: int, winner_first: bool
) -> None:
    pair = [finding(line=1, **loser), finding(line=2, **winner)]
    assert [score_finding(item).score for item in pair] == [score, score]
    inputs = pair[::-1] if winner_first else pair
    report = score_findings(inputs, comment_cap=1)
    assert [f.input.line for f in report.inline] == [2]
    assert [f.input.line for f in report.summary] == [1]


def test_a_full_tie_keeps_the_earlier_finding() -> None:
    report = score_findings(ranked(3), comment_cap=2)
    assert [f.position for f in report.inline] == [0, 1]
    assert [f.position for f in report.summary] == [2]


def test_report_groups_and_orders() -> None:
    inputs = [
        finding(line=1, verdict="DISMISSED"),  # dropped
        finding(line=2, verdict="LIKELY", evidence_strength="speculative"),  # summary 53
        finding(line=3, verdict="DISMISSED", category="security"),  # audit
        finding(
            line=4,
            verdict="LIKELY",
            evidence_strength="circumstantial",
            context_completeness="partial",
            verifier_severity="low",
        ),  # summary 52
        finding(line=5, verdict="LIKELY", context_completeness="partial"),  # inline 67
        finding(line=6, in_diff=False),  # dropped
        finding(line=7, verdict="DISMISSED", category="security"),  # audit
        finding(line=8, verdict="LIKELY", context_completeness="none"),  # summary 53
    ]
    report = score_findings(inputs)
    assert [f.position for f in report.findings] == list(range(8))
    assert [f.input.line for f in report.inline] == [5]
    # By rank: 8 and 2 tie on score, verdict and subtotal; 8's direct evidence ranks first.
    assert [f.input.line for f in report.summary] == [8, 2, 4]
    assert [f.input.line for f in report.audit] == [3, 7]
    assert [f.input.line for f in report.dropped] == [1, 6]
    assert (report.post_threshold, report.comment_cap) == (55, 5)


def test_direct_evidence_with_no_context_is_scored_not_rejected() -> None:
    report = score_findings([finding(context_completeness="none")])
    assert [(f.result.score, f.result.disposition) for f in report.inline] == [(83, INLINE)]


def test_score_findings_accepts_any_iterable_and_empty_input() -> None:
    report = score_findings(iter([]))
    assert report.findings == report.inline == report.summary == ()
    assert score_findings(f for f in ranked(2)).findings[1].position == 1


@pytest.mark.parametrize("cap", [-1, True, 2.0])
def test_comment_cap_must_be_a_whole_number(cap: object) -> None:
    with pytest.raises(ValueError, match="comment_cap must be a whole number >= 0"):
        score_findings([], comment_cap=cap)  # type: ignore[arg-type]


# --- apply_cap, generic --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "cap", "kept", "demoted"),
    [
        ([3, 1, 2], 2, [3, 2], [1]),
        ([3, 1, 2], 0, [], [3, 2, 1]),
        ([3, 1, 2], 5, [3, 2, 1], []),
        ([], 5, [], []),
    ],
)
def test_apply_cap(items: list[int], cap: int, kept: list[int], demoted: list[int]) -> None:
    assert apply_cap(items, cap, key=lambda item: item) == (kept, demoted)


def test_apply_cap_keeps_input_order_among_equals() -> None:
    items = [("a", 1), ("b", 2), ("c", 1), ("d", 2)]
    kept, demoted = apply_cap(items, 3, key=lambda item: item[1])
    assert kept == [("b", 2), ("d", 2), ("a", 1)]
    assert demoted == [("c", 1)]


def test_apply_cap_rejects_a_negative_cap() -> None:
    with pytest.raises(ValueError, match="cap must be >= 0"):
        apply_cap([1], -1, key=int)


# --- assessment ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inline", "assessment"),
    [
        ([], Assessment.APPROVE),
        ([("low", Verdict.CONFIRMED)], Assessment.APPROVE),
        ([("medium", Verdict.LIKELY), ("low", None)], Assessment.NEEDS_ATTENTION),
        ([("medium", None)], Assessment.NEEDS_ATTENTION),
        ([("low", None), ("high", Verdict.LIKELY)], Assessment.CRITICAL),
        ([("high", None)], Assessment.CRITICAL),
        ([(" Critical ", None)], Assessment.CRITICAL),
        ([("high", Verdict.DISMISSED)], Assessment.APPROVE),
        ([("high", Verdict.DISMISSED), ("medium", Verdict.CONFIRMED)], Assessment.NEEDS_ATTENTION),
        ([("info", None)], Assessment.APPROVE),
    ],
)
def test_assess(inline: list[tuple[str, Verdict | None]], assessment: Assessment) -> None:
    assert assess(inline) is assessment


def test_assessment_values_are_the_labels() -> None:
    assert [label.value for label in Assessment] == ["CRITICAL", "NEEDS ATTENTION", "APPROVE"]
