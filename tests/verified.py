"""A verified finding for confidence tests: sensible defaults, any field overridden."""

from __future__ import annotations

from review_quorum.scoring.confidence.verdicts import FindingInput

DEFAULTS: dict[str, object] = {
    "file": "src/app.py",
    "line": 10,
    "category": "logic_error",
    "verdict": "CONFIRMED",
    "evidence_strength": "direct",
    "context_completeness": "full",
    "drafter_severity": "medium",
    "verifier_severity": "medium",
    "in_diff": True,
    "in_changed_code": True,
}


def verified(**changes: object) -> FindingInput:
    """A `FindingInput` built from the defaults with `changes` applied."""
    return FindingInput.create(**{**DEFAULTS, **changes})
