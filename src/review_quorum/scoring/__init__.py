"""Scoring: the two halves of the product side by side.

- `agreement`: the seed 001 consensus model (SPEC 3), exact, as `--model agreement`.
- `reliability`: the reliability model (SPEC 3b): matching by evidence (`matching`, `text`),
  witnesses and their reliabilities (`witnesses`, `profile`), a probability per cluster.
- `confidence`: the seed 000 per-finding confidence model (SPEC 4) for verified findings.

`compute_consensus` runs the model named by `model` (the literal registry `MODELS`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from review_quorum.model import ConsensusFinding, NormalizedFinding
from review_quorum.scoring import agreement, reliability
from review_quorum.scoring.agreement import Order
from review_quorum.scoring.profile import Profile

Model = Literal["agreement", "reliability"]
MODELS: tuple[Model, ...] = ("agreement", "reliability")
DEFAULT_MODEL: Model = "reliability"


def compute_consensus(
    findings: Iterable[NormalizedFinding],
    *,
    bots_ran: int | None = None,
    line_window: int = 3,
    title_overlap: float = 0.5,
    order: Order = "input",
    model: Model = DEFAULT_MODEL,
    profile: Profile | None = None,
) -> list[ConsensusFinding]:
    """Cluster and score `findings` with `model` (SPEC 3 for agreement, 3b for reliability).

    `title_overlap` is the agreement model's title Jaccard threshold; `profile` feeds the
    reliability model (default: the profile shipped with the package).
    """
    if model == "agreement":
        return agreement.compute_consensus(
            findings,
            bots_ran=bots_ran,
            line_window=line_window,
            title_overlap=title_overlap,
            order=order,
        )
    if model == "reliability":
        return reliability.compute_reliability(
            findings, bots_ran=bots_ran, line_window=line_window, order=order, profile=profile
        )
    raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
