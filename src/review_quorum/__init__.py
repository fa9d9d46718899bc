"""review-quorum: one consolidated, consensus-scored review from many review bots.

The public API is what `__all__` lists; everything else is internal. Each name is
imported from its module on first use (PEP 562), so that `quorum` starts without loading
the whole library: a command pays only for the modules it runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from review_quorum.errors import (
        ConfigError,
        FindingError,
        GitHubError,
        InputError,
        QuorumError,
        QuorumWarning,
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
    from review_quorum.scoring.agreement import bucket_for_score, must_address
    from review_quorum.scoring.confidence import (
        FindingInput,
        ScoreReport,
        describe_threshold,
        score_finding,
        score_findings,
    )
    from review_quorum.scoring.profile import Profile, SourceReliability, WitnessFamily

_EXPORTS: dict[str, tuple[str, str]] = {  # public name: (module, name there)
    "ConfigError": ("review_quorum.errors", "ConfigError"),
    "FindingError": ("review_quorum.errors", "FindingError"),
    "GitHubError": ("review_quorum.errors", "GitHubError"),
    "InputError": ("review_quorum.errors", "InputError"),
    "QuorumError": ("review_quorum.errors", "QuorumError"),
    "Skipped": ("review_quorum.errors", "Skipped"),
    "Batch": ("review_quorum.ingest", "Batch"),
    "ReadOptions": ("review_quorum.ingest", "ReadOptions"),
    "Source": ("review_quorum.ingest", "Source"),
    "read_findings": ("review_quorum.ingest", "read"),
    "CATEGORIES": ("review_quorum.ingest.categories", "CATEGORIES"),
    "CategoryMap": ("review_quorum.ingest.categories", "CategoryMap"),
    "build_category_map": ("review_quorum.ingest.categories", "build_category_map"),
    "CommentSource": ("review_quorum.model", "CommentSource"),
    "ConsensusFinding": ("review_quorum.model", "ConsensusFinding"),
    "ConsensusLevel": ("review_quorum.model", "ConsensusLevel"),
    "Evidence": ("review_quorum.model", "Evidence"),
    "NormalizedFinding": ("review_quorum.model", "NormalizedFinding"),
    "Severity": ("review_quorum.model", "Severity"),
    "PlannedFinding": ("review_quorum.plan", "PlannedFinding"),
    "ReviewPlan": ("review_quorum.plan", "ReviewPlan"),
    "Settings": ("review_quorum.plan", "Settings"),
    "review": ("review_quorum.plan", "review"),
    "render_consensus_markdown": ("review_quorum.render.consensus", "render_consensus_markdown"),
    "render_provenance": ("review_quorum.render.consensus", "render_provenance"),
    "render_review_body": ("review_quorum.render.review_body", "render_review_body"),
    "DiffScope": ("review_quorum.scope", "DiffScope"),
    "FilterMode": ("review_quorum.scope", "FilterMode"),
    "MODELS": ("review_quorum.scoring", "MODELS"),
    "compute_consensus": ("review_quorum.scoring", "compute_consensus"),
    "QuorumWarning": ("review_quorum.errors", "QuorumWarning"),
    "bucket_for_score": ("review_quorum.scoring.agreement", "bucket_for_score"),
    "must_address": ("review_quorum.scoring.agreement", "must_address"),
    "FindingInput": ("review_quorum.scoring.confidence", "FindingInput"),
    "ScoreReport": ("review_quorum.scoring.confidence", "ScoreReport"),
    "describe_threshold": ("review_quorum.scoring.confidence", "describe_threshold"),
    "score_finding": ("review_quorum.scoring.confidence", "score_finding"),
    "score_findings": ("review_quorum.scoring.confidence", "score_findings"),
    "Profile": ("review_quorum.scoring.profile", "Profile"),
    "SourceReliability": ("review_quorum.scoring.profile", "SourceReliability"),
    "WitnessFamily": ("review_quorum.scoring.profile", "WitnessFamily"),
}


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
