"""Deprecated: the consensus API under its historical name. Import from
`review_quorum.scoring` (`compute_consensus`, `MODELS`) and `review_quorum.scoring.agreement`,
where the models live; this module will be removed in a future release.
"""

from __future__ import annotations

from review_quorum.errors import QuorumWarning
from review_quorum.scoring import MODELS, Model, compute_consensus
from review_quorum.scoring.agreement import (
    CONFIRMED_FLOOR,
    NEEDS_VERIFICATION_FLOOR,
    STOPWORDS,
    Order,
    bucket_for_score,
    canonical_key,
    must_address,
    resolve_bots_ran,
    title_tokens,
)
from review_quorum.scoring.title_index import jaccard

__all__ = [
    "CONFIRMED_FLOOR",
    "MODELS",
    "NEEDS_VERIFICATION_FLOOR",
    "STOPWORDS",
    "Model",
    "Order",
    "QuorumWarning",
    "bucket_for_score",
    "canonical_key",
    "compute_consensus",
    "jaccard",
    "must_address",
    "resolve_bots_ran",
    "title_tokens",
]
