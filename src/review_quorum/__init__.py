"""review-quorum: one consolidated, consensus-scored review from many review bots.

The public API is what `__all__` lists; everything else is internal.
"""

from __future__ import annotations

from review_quorum.consensus import (
    QuorumWarning,
    bucket_for_score,
    compute_consensus,
    must_address,
)
from review_quorum.errors import (
    ConfigError,
    FindingError,
    GitHubError,
    InputError,
    QuorumError,
    Skipped,
)
from review_quorum.model import (
    ConsensusFinding,
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Severity,
)
from review_quorum.render.consensus import render_consensus_markdown, render_provenance

__all__ = [
    "ConfigError",
    "ConsensusFinding",
    "ConsensusLevel",
    "Evidence",
    "FindingError",
    "GitHubError",
    "InputError",
    "NormalizedFinding",
    "QuorumError",
    "QuorumWarning",
    "Severity",
    "Skipped",
    "bucket_for_score",
    "compute_consensus",
    "must_address",
    "render_consensus_markdown",
    "render_provenance",
]
