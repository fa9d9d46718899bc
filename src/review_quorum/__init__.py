"""review-quorum: one consolidated, consensus-scored review from many review bots.

The public API is what `_EXPORTS` lists (and so `__all__`); everything else is internal.
Each name is imported from its module on first use (PEP 562), so that `quorum` starts
without loading the whole library: a command pays only for the modules it runs. The
imports under `TYPE_CHECKING` are for mypy alone, which cannot read `_EXPORTS`: each is a
redundant alias (`X as X`), an explicit re-export, and tests/test_public_api.py checks
that they are `_EXPORTS` exactly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from review_quorum.errors import ConfigError as ConfigError
    from review_quorum.errors import FindingError as FindingError
    from review_quorum.errors import GitHubError as GitHubError
    from review_quorum.errors import InputError as InputError
    from review_quorum.errors import QuorumError as QuorumError
    from review_quorum.errors import QuorumWarning as QuorumWarning
    from review_quorum.errors import Skipped as Skipped
    from review_quorum.ingest import Batch as Batch
    from review_quorum.ingest import ReadOptions as ReadOptions
    from review_quorum.ingest import Source as Source
    from review_quorum.ingest import read
    from review_quorum.ingest.categories import CATEGORIES as CATEGORIES
    from review_quorum.ingest.categories import CategoryMap as CategoryMap
    from review_quorum.ingest.categories import build_category_map as build_category_map
    from review_quorum.model import CommentSource as CommentSource
    from review_quorum.model import ConsensusFinding as ConsensusFinding
    from review_quorum.model import ConsensusLevel as ConsensusLevel
    from review_quorum.model import Evidence as Evidence
    from review_quorum.model import NormalizedFinding as NormalizedFinding
    from review_quorum.model import Severity as Severity
    from review_quorum.plan import PlannedFinding as PlannedFinding
    from review_quorum.plan import ReviewPlan as ReviewPlan
    from review_quorum.plan import Settings as Settings
    from review_quorum.plan import review as review
    from review_quorum.render.consensus import (
        render_consensus_markdown as render_consensus_markdown,
    )
    from review_quorum.render.consensus import render_provenance as render_provenance
    from review_quorum.render.review_body import render_review_body as render_review_body
    from review_quorum.scope import DiffScope as DiffScope
    from review_quorum.scope import FilterMode as FilterMode
    from review_quorum.scoring import MODELS as MODELS
    from review_quorum.scoring import compute_consensus as compute_consensus
    from review_quorum.scoring.agreement import bucket_for_score as bucket_for_score
    from review_quorum.scoring.agreement import must_address as must_address
    from review_quorum.scoring.confidence import FindingInput as FindingInput
    from review_quorum.scoring.confidence import ScoreReport as ScoreReport
    from review_quorum.scoring.confidence import describe_threshold as describe_threshold
    from review_quorum.scoring.confidence import score_finding as score_finding
    from review_quorum.scoring.confidence import score_findings as score_findings
    from review_quorum.scoring.profile import Profile as Profile
    from review_quorum.scoring.profile import SourceReliability as SourceReliability
    from review_quorum.scoring.profile import WitnessFamily as WitnessFamily

    read_findings = read  # a renamed re-export

# The public API, the one list of it: public name -> (module, name there).
_EXPORTS: dict[str, tuple[str, str]] = {
    "ConfigError": ("review_quorum.errors", "ConfigError"),
    "FindingError": ("review_quorum.errors", "FindingError"),
    "GitHubError": ("review_quorum.errors", "GitHubError"),
    "InputError": ("review_quorum.errors", "InputError"),
    "QuorumError": ("review_quorum.errors", "QuorumError"),
    "QuorumWarning": ("review_quorum.errors", "QuorumWarning"),
    "Skipped": ("review_quorum.errors", "Skipped"),
    "Batch": ("review_quorum.ingest", "Batch"),
    "read_findings": ("review_quorum.ingest", "read"),
    "ReadOptions": ("review_quorum.ingest", "ReadOptions"),
    "Source": ("review_quorum.ingest", "Source"),
    "build_category_map": ("review_quorum.ingest.categories", "build_category_map"),
    "CATEGORIES": ("review_quorum.ingest.categories", "CATEGORIES"),
    "CategoryMap": ("review_quorum.ingest.categories", "CategoryMap"),
    "CommentSource": ("review_quorum.model", "CommentSource"),
    "ConsensusFinding": ("review_quorum.model", "ConsensusFinding"),
    "ConsensusLevel": ("review_quorum.model", "ConsensusLevel"),
    "Evidence": ("review_quorum.model", "Evidence"),
    "NormalizedFinding": ("review_quorum.model", "NormalizedFinding"),
    "Severity": ("review_quorum.model", "Severity"),
    "PlannedFinding": ("review_quorum.plan", "PlannedFinding"),
    "review": ("review_quorum.plan", "review"),
    "ReviewPlan": ("review_quorum.plan", "ReviewPlan"),
    "Settings": ("review_quorum.plan", "Settings"),
    "render_consensus_markdown": ("review_quorum.render.consensus", "render_consensus_markdown"),
    "render_provenance": ("review_quorum.render.consensus", "render_provenance"),
    "render_review_body": ("review_quorum.render.review_body", "render_review_body"),
    "DiffScope": ("review_quorum.scope", "DiffScope"),
    "FilterMode": ("review_quorum.scope", "FilterMode"),
    "compute_consensus": ("review_quorum.scoring", "compute_consensus"),
    "MODELS": ("review_quorum.scoring", "MODELS"),
    "bucket_for_score": ("review_quorum.scoring.agreement", "bucket_for_score"),
    "must_address": ("review_quorum.scoring.agreement", "must_address"),
    "describe_threshold": ("review_quorum.scoring.confidence", "describe_threshold"),
    "FindingInput": ("review_quorum.scoring.confidence", "FindingInput"),
    "score_finding": ("review_quorum.scoring.confidence", "score_finding"),
    "score_findings": ("review_quorum.scoring.confidence", "score_findings"),
    "ScoreReport": ("review_quorum.scoring.confidence", "ScoreReport"),
    "Profile": ("review_quorum.scoring.profile", "Profile"),
    "SourceReliability": ("review_quorum.scoring.profile", "SourceReliability"),
    "WitnessFamily": ("review_quorum.scoring.profile", "WitnessFamily"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    """Import a public name from its module on first use (PEP 562)."""
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'review_quorum' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
