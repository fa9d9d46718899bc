"""Seed 000's half of the judgement: a verified finding's confidence and where it goes.

The consensus models beside it (`scoring.agreement`, `scoring.reliability`) judge a
cluster by who reported it; this package judges one finding by what a verifier said of
it. `verdicts` is the vocabulary and validates drafter and verifier records, `join` pairs
them, `attach` attaches verdicts to consensus findings, `bands` holds the confidence
scale and posting thresholds, `posting` the posting policy (by confidence and by
consensus), the comment cap and the assessment, and `scorer` the deterministic 0-100
score. The scorer's API is re-exported here (and under the historical
`review_quorum.confidence`), so `from review_quorum.scoring.confidence import
score_findings` is the one import.
"""

from __future__ import annotations

from review_quorum.scoring.confidence.scorer import *  # noqa: F403
from review_quorum.scoring.confidence.scorer import __all__ as __all__
