"""What a verification counted (`Figures`): the summary's lines and the JSON report's
`verification` member are made from it, so a saved plan read back says the same. Its own
module, free of the verifier's transport, because the report's document tree
(`review_quorum.report`) names it.
"""

from __future__ import annotations

import msgspec


class Place(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A finding named in the figures, by where it is."""

    file: str
    line: int | None


class Figures(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What the summary and the JSON report say about the verification (`verification`)."""

    model: str | None
    endpoint: str
    verified: int
    cached: int
    not_verified: dict[str, int]
    skipped: dict[str, int]
    dismissed_for_review_by_hand: int
    review_by_hand: list[Place]
    injection_suspected: list[Place]
    verdicts: dict[str, int]
    placements_changed: int
    requests: int
    tokens_in: int
    tokens_out: int
    latency_p50_s: float | None
    latency_p95_s: float | None
    problems: list[str]
    gate: str
