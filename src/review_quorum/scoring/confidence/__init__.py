"""Seed 000's half of the judgement: a verified finding's confidence and where it goes.

The consensus models beside it (`scoring.agreement`, `scoring.reliability`) judge a
cluster by who reported it; this package judges one finding by what a verifier said of
it. `verdicts` is the vocabulary and validates drafter and verifier records, `join` pairs
them, `attach` attaches verdicts to consensus findings, `bands` holds the confidence
scale and posting thresholds, `posting` the posting policy (by confidence and by
consensus), the comment cap and the assessment, and `scorer` the deterministic 0-100
score. Their public names are listed here, each imported from the module that owns it,
so `from review_quorum.scoring.confidence import score_findings` is the one import (the
deprecated `review_quorum.confidence` lists the same names).
"""

from __future__ import annotations

from review_quorum.scoring.confidence.bands import (
    DEFAULT_POST_THRESHOLD,
    MODERATE_FLOOR,
    STRONG_FLOOR,
    THRESHOLD_CEILING,
    THRESHOLD_NAMES,
    WEAK_FLOOR,
    Band,
    ThresholdChoice,
    band_for,
    describe_threshold,
    resolve_post_threshold,
)
from review_quorum.scoring.confidence.posting import (
    DEFAULT_COMMENT_CAP,
    Assessment,
    Disposition,
    Placement,
    PostingRule,
    apply_cap,
    assess,
    place,
)
from review_quorum.scoring.confidence.scorer import (
    BASE_POINTS,
    CONCORDANCE_POINTS,
    CONTEXT_POINTS,
    EVIDENCE_POINTS,
    Breakdown,
    ConfidenceResult,
    ScoredFinding,
    ScoreGate,
    ScoreReport,
    score_finding,
    score_findings,
    severity_distance,
)
from review_quorum.scoring.confidence.verdicts import (
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    Verdict,
    VerifierSeverity,
)

__all__ = [
    "BASE_POINTS",
    "CONCORDANCE_POINTS",
    "CONTEXT_POINTS",
    "DEFAULT_COMMENT_CAP",
    "DEFAULT_POST_THRESHOLD",
    "EVIDENCE_POINTS",
    "MODERATE_FLOOR",
    "STRONG_FLOOR",
    "THRESHOLD_CEILING",
    "THRESHOLD_NAMES",
    "WEAK_FLOOR",
    "Assessment",
    "Band",
    "Breakdown",
    "Category",
    "ConfidenceResult",
    "ContextCompleteness",
    "Disposition",
    "EvidenceStrength",
    "FindingInput",
    "Placement",
    "PostingRule",
    "ScoreGate",
    "ScoreReport",
    "ScoredFinding",
    "ThresholdChoice",
    "Verdict",
    "VerifierSeverity",
    "apply_cap",
    "assess",
    "band_for",
    "describe_threshold",
    "place",
    "resolve_post_threshold",
    "score_finding",
    "score_findings",
    "severity_distance",
]
