"""review-quorum: one consolidated, consensus-scored review from many review bots.

The public API is what `__all__` lists; everything else is internal.
"""

from __future__ import annotations

from review_quorum.errors import (
    ConfigError,
    FindingError,
    GitHubError,
    InputError,
    QuorumError,
    Skipped,
)
from review_quorum.ingest import Batch, ReadOptions, Source
from review_quorum.ingest import read as read_findings
from review_quorum.ingest.categories import CATEGORIES, CategoryMap, build_category_map
from review_quorum.model import (
    CommentSource,
    ConsensusFinding,
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Severity,
)
from review_quorum.plan import PlannedFinding, ReviewPlan, Settings, review
from review_quorum.render.consensus import render_consensus_markdown, render_provenance
from review_quorum.render.review_body import render_review_body
from review_quorum.scope import DiffScope, FilterMode
from review_quorum.scoring import MODELS, compute_consensus
from review_quorum.scoring.agreement import QuorumWarning, bucket_for_score, must_address
from review_quorum.scoring.confidence import (
    FindingInput,
    ScoreReport,
    describe_threshold,
    score_finding,
    score_findings,
)
from review_quorum.scoring.profile import Profile, SourceReliability, WitnessFamily

__all__ = [
    "CATEGORIES",
    "MODELS",
    "Batch",
    "CategoryMap",
    "CommentSource",
    "ConfigError",
    "ConsensusFinding",
    "ConsensusLevel",
    "DiffScope",
    "Evidence",
    "FindingError",
    "FindingInput",
    "FilterMode",
    "GitHubError",
    "InputError",
    "NormalizedFinding",
    "PlannedFinding",
    "Profile",
    "QuorumError",
    "QuorumWarning",
    "ReadOptions",
    "ReviewPlan",
    "ScoreReport",
    "Settings",
    "Severity",
    "Skipped",
    "Source",
    "SourceReliability",
    "WitnessFamily",
    "bucket_for_score",
    "build_category_map",
    "compute_consensus",
    "describe_threshold",
    "must_address",
    "read_findings",
    "render_consensus_markdown",
    "render_provenance",
    "render_review_body",
    "review",
    "score_finding",
    "score_findings",
]
