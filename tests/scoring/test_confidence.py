"""Confidence scoring (SPEC 4): every table value, the gates, the bands and the properties."""

from __future__ import annotations

import itertools

import pytest

from review_quorum.errors import FindingError
from review_quorum.scoring.confidence import (
    BASE_POINTS,
    CONCORDANCE_POINTS,
    CONTEXT_POINTS,
    EVIDENCE_POINTS,
    Band,
    Breakdown,
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    ScoreGate,
    Verdict,
    VerifierSeverity,
    band_for,
    score_finding,
    severity_distance,
)
from verified import verified

C, L, D = Verdict.CONFIRMED, Verdict.LIKELY, Verdict.DISMISSED
HIGH, MEDIUM, LOW = VerifierSeverity.HIGH, VerifierSeverity.MEDIUM, VerifierSeverity.LOW


def finding(**changes: object) -> FindingInput:
    return verified(**changes)


# verdict x evidence x context -> subtotal: the 18 cells of the seed's lookup table.
SUBTOTALS = [
    ("CONFIRMED", "direct", "full", 100),
    ("CONFIRMED", "direct", "partial", 92),
    ("CONFIRMED", "direct", "none", 78),
    ("CONFIRMED", "circumstantial", "full", 90),
    ("CONFIRMED", "circumstantial", "partial", 82),
    ("CONFIRMED", "circumstantial", "none", 68),
    ("CONFIRMED", "speculative", "full", 78),
    ("CONFIRMED", "speculative", "partial", 70),
    ("CONFIRMED", "speculative", "none", 56),
    ("LIKELY", "direct", "full", 70),
    ("LIKELY", "direct", "partial", 62),
    ("LIKELY", "direct", "none", 48),
    ("LIKELY", "circumstantial", "full", 60),
    ("LIKELY", "circumstantial", "partial", 52),
    ("LIKELY", "circumstantial", "none", 38),
    ("LIKELY", "speculative", "full", 48),
    ("LIKELY", "speculative", "partial", 40),
    ("LIKELY", "speculative", "none", 26),
]

# drafter x verifier severity -> (distance, concordance points)
CONCORDANCE = [
    ("high", "high", 0, 5),
    ("high", "medium", 1, 0),
    ("high", "low", 2, -8),
    ("medium", "high", 1, 0),
    ("medium", "medium", 0, 5),
    ("medium", "low", 1, 0),
    ("low", "high", 2, -8),
    ("low", "medium", 1, 0),
    ("low", "low", 0, 5),
]


def test_the_point_tables_are_the_seeds() -> None:
    assert BASE_POINTS == {C: 70, L: 40}
    assert EVIDENCE_POINTS == {
        EvidenceStrength.DIRECT: 18,
        EvidenceStrength.CIRCUMSTANTIAL: 8,
        EvidenceStrength.SPECULATIVE: -4,
    }
    assert CONTEXT_POINTS == {
        ContextCompleteness.FULL: 12,
        ContextCompleteness.PARTIAL: 4,
        ContextCompleteness.NONE: -10,
    }
    assert CONCORDANCE_POINTS == {0: 5, 1: 0, 2: -8}


@pytest.mark.parametrize(("verdict", "evidence", "context", "subtotal"), SUBTOTALS)
def test_each_table_cell_has_its_subtotal(
    verdict: str, evidence: str, context: str, subtotal: int
) -> None:
    result = score_finding(
        finding(verdict=verdict, evidence_strength=evidence, context_completeness=context)
    )
    assert result.breakdown == Breakdown(subtotal, 5, 0, None)
    assert result.score == min(subtotal + 5, 100)


@pytest.mark.parametrize(("drafter", "verifier", "distance", "points"), CONCORDANCE)
def test_concordance_terms(drafter: str, verifier: str, distance: int, points: int) -> None:
    item = finding(
        evidence_strength="speculative", drafter_severity=drafter, verifier_severity=verifier
    )
    result = score_finding(item)
    assert severity_distance(item.drafter_severity, item.verifier_severity) == distance
    assert result.breakdown == Breakdown(78, points, distance, None)
    assert result.score == 78 + points


@pytest.mark.parametrize(("verdict", "evidence", "context", "subtotal"), SUBTOTALS)
@pytest.mark.parametrize(("drafter", "verifier", "distance", "points"), CONCORDANCE)
def test_every_score_is_the_clamped_sum(
    verdict: str,
    evidence: str,
    context: str,
    subtotal: int,
    drafter: str,
    verifier: str,
    distance: int,
    points: int,
) -> None:
    item = finding(
        verdict=verdict,
        evidence_strength=evidence,
        context_completeness=context,
        drafter_severity=drafter,
        verifier_severity=verifier,
    )
    result = score_finding(item)
    assert result.score == min(max(subtotal + points, 0), 100)
    assert result.band is band_for(result.score)


@pytest.mark.parametrize(
    ("changes", "score", "band"),
    [
        ({}, 100, Band.STRONG),  # 105 clamped
        ({"evidence_strength": "speculative", "context_completeness": "none"}, 61, Band.MODERATE),
        ({"verdict": "LIKELY"}, 75, Band.MODERATE),  # the highest a LIKELY reaches
        (
            {
                "verdict": "LIKELY",
                "evidence_strength": "speculative",
                "context_completeness": "none",
                "drafter_severity": "high",
                "verifier_severity": "low",
            },
            18,
            Band.NEGLIGIBLE,  # the lowest any believed finding reaches
        ),
        ({"context_completeness": "none"}, 83, Band.STRONG),  # direct + none: scored
        ({"verdict": "LIKELY", "context_completeness": "none"}, 53, Band.WEAK),
    ],
)
def test_worked_examples(changes: dict[str, object], score: int, band: Band) -> None:
    result = score_finding(finding(**changes))
    assert (result.score, result.band) == (score, band)


@pytest.mark.parametrize(
    ("score", "band"),
    [
        (100, Band.STRONG),
        (80, Band.STRONG),
        (79, Band.MODERATE),
        (55, Band.MODERATE),
        (54, Band.WEAK),
        (30, Band.WEAK),
        (29, Band.NEGLIGIBLE),
        (0, Band.NEGLIGIBLE),
    ],
)
def test_band_edges_are_inclusive_lower_bounds(score: int, band: Band) -> None:
    assert band_for(score) is band


def test_band_values_are_lowercase_names() -> None:
    assert [band.value for band in Band] == ["strong", "moderate", "weak", "negligible"]


BELIEVED_AXES = list(
    itertools.product(
        [C, L], EvidenceStrength, ContextCompleteness, VerifierSeverity, VerifierSeverity, Category
    )
)


def _input(verdict, evidence, context, drafter, verifier, category) -> FindingInput:  # type: ignore[no-untyped-def]
    return FindingInput(
        "a.py", 1, category, verdict, evidence, context, drafter, verifier, True, True
    )


def test_likely_never_reaches_strong_exhaustively() -> None:
    scores = [
        score_finding(_input(L, *rest)).score
        for rest in itertools.product(
            EvidenceStrength, ContextCompleteness, VerifierSeverity, VerifierSeverity, Category
        )
    ]
    assert max(scores) == 75
    assert all(band_for(score) is not Band.STRONG for score in scores)


def test_only_confirmed_reaches_strong() -> None:
    strong = {axes[0] for axes in BELIEVED_AXES if score_finding(_input(*axes)).score >= 80}
    assert strong == {C}


def test_score_strictly_increases_with_evidence() -> None:
    order = [EvidenceStrength.SPECULATIVE, EvidenceStrength.CIRCUMSTANTIAL, EvidenceStrength.DIRECT]
    for verdict, context, drafter, verifier in itertools.product(
        [C, L], ContextCompleteness, VerifierSeverity, VerifierSeverity
    ):
        scores = [
            score_finding(_input(verdict, evidence, context, drafter, verifier, Category.OTHER))
            for evidence in order
        ]
        assert scores[0].score < scores[1].score < scores[2].score, (verdict, context)
        assert scores[0].breakdown.subtotal < scores[1].breakdown.subtotal


def test_score_strictly_increases_with_context() -> None:
    order = [ContextCompleteness.NONE, ContextCompleteness.PARTIAL, ContextCompleteness.FULL]
    for verdict, evidence, drafter, verifier in itertools.product(
        [C, L], EvidenceStrength, VerifierSeverity, VerifierSeverity
    ):
        scores = [
            score_finding(_input(verdict, evidence, context, drafter, verifier, Category.OTHER))
            for context in order
        ]
        assert scores[0].score < scores[1].score < scores[2].score, (verdict, evidence)


@pytest.mark.parametrize(
    ("changes", "gate"),
    [
        ({"in_diff": False}, ScoreGate.SCOPE),
        ({"in_changed_code": False}, ScoreGate.SCOPE),
        ({"in_diff": False, "in_changed_code": False}, ScoreGate.SCOPE),
        ({"in_diff": False, "verdict": "DISMISSED"}, ScoreGate.SCOPE),  # scope is checked first
        ({"verdict": "DISMISSED"}, ScoreGate.DISMISSED),
        ({"verdict": "DISMISSED", "category": "security"}, ScoreGate.DISMISSED),
    ],
)
def test_gates_score_zero(changes: dict[str, object], gate: ScoreGate) -> None:
    result = score_finding(finding(**changes))
    assert (result.score, result.band) == (0, Band.NEGLIGIBLE)
    assert result.breakdown == Breakdown(0, 0, 0, gate)


def test_gated_breakdown_still_reports_the_severity_distance() -> None:
    result = score_finding(finding(in_diff=False, drafter_severity="high", verifier_severity="low"))
    assert result.breakdown == Breakdown(0, 0, 2, ScoreGate.SCOPE)


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("verdict", "MAYBE", "CONFIRMED, LIKELY, DISMISSED"),
        ("verdict", "confirmed", "CONFIRMED, LIKELY, DISMISSED"),
        ("evidence_strength", "strong", "direct, circumstantial, speculative"),
        ("context_completeness", "complete", "full, partial, none"),
        ("drafter_severity", "critical", "high, medium, low"),
        ("verifier_severity", None, "high, medium, low"),
        (
            "category",
            "securty",
            "security, logic_error, resource_leak, concurrency, error_handling, "
            "data_integrity, other",
        ),
    ],
)
def test_create_names_the_bad_field_and_the_allowed_values(
    field: str, value: object, allowed: str
) -> None:
    with pytest.raises(FindingError, match=f"^{field}: {value!r} is not one of {allowed}$"):
        finding(**{field: value})


def test_scoring_an_unvalidated_input_names_the_field() -> None:
    item = finding()._replace(category="securty")  # type: ignore[arg-type]
    with pytest.raises(FindingError, match=r"^src/app\.py:10: category: \"securty\" is not one of"):
        score_finding(item)


def test_scoring_accepts_plain_strings_equal_to_members() -> None:
    loose = finding()._replace(verdict="LIKELY", verifier_severity="low")  # type: ignore[arg-type]
    assert score_finding(loose) == score_finding(finding(verdict="LIKELY", verifier_severity="low"))


@pytest.mark.parametrize("flag", ["true", None, 2])
def test_scoring_rejects_flags_that_are_not_booleans(flag: object) -> None:
    with pytest.raises(FindingError, match="in_diff and in_changed_code must be booleans"):
        score_finding(finding()._replace(in_diff=flag))  # type: ignore[arg-type]


def test_verifier_severity_from_the_shared_scale() -> None:
    from review_quorum.model import Severity

    folded = [VerifierSeverity.from_severity(severity) for severity in Severity]
    assert folded == [LOW, LOW, MEDIUM, HIGH, HIGH]
    assert [severity.rank for severity in VerifierSeverity] == [3, 2, 1]
