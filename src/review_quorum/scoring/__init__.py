"""Scoring: the two halves of the product side by side.

- `agreement`: the seed 001 consensus model (SPEC 3), exact, as `--model agreement`.
- `reliability`: the reliability model (SPEC 3b): matching by evidence (`matching`, `text`),
  witnesses and their reliabilities (`witnesses`, `profile`), a probability per cluster.
- `confidence`: the seed 000 per-finding confidence model (SPEC 4) for verified findings.

`compute_consensus` runs the model named by `model` (the literal registry `MODELS`), with
the knobs of a review's settings (`plan.Settings` is a `ConsensusSettings`), each keyword
given overriding its value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol

from review_quorum.model import ConsensusFinding, NormalizedFinding
from review_quorum.scoring import agreement, reliability
from review_quorum.scoring.agreement import Order
from review_quorum.scoring.profile import Profile

Model = Literal["agreement", "reliability"]
MODELS: tuple[Model, ...] = ("agreement", "reliability")
DEFAULT_MODEL: Model = "reliability"


class ConsensusSettings(Protocol):
    """The knobs of clustering and scoring, as a review's settings hold them."""

    @property
    def bots_ran(self) -> int | None: ...
    @property
    def line_window(self) -> int: ...
    @property
    def title_overlap(self) -> float: ...
    @property
    def order(self) -> Order: ...
    @property
    def model(self) -> Model: ...
    @property
    def profile(self) -> Profile | None: ...


def compute_consensus(
    findings: Iterable[NormalizedFinding],
    settings: ConsensusSettings | None = None,
    *,
    bots_ran: int | None = None,
    line_window: int | None = None,
    title_overlap: float | None = None,
    order: Order | None = None,
    model: Model | None = None,
    profile: Profile | None = None,
) -> list[ConsensusFinding]:
    """Cluster and score `findings` with `model` (SPEC 3 for agreement, 3b for reliability).

    The knobs come from `settings` (defaults: `line_window` 3, `title_overlap` 0.5, order
    "input", the reliability model, the shipped profile, the distinct bots seen), and a
    keyword given wins over it. `title_overlap` is the agreement model's title Jaccard
    threshold; `profile` feeds the reliability model.
    """
    if settings is not None:
        bots_ran = settings.bots_ran if bots_ran is None else bots_ran
        line_window = settings.line_window if line_window is None else line_window
        title_overlap = settings.title_overlap if title_overlap is None else title_overlap
        order = settings.order if order is None else order
        model = settings.model if model is None else model
        profile = settings.profile if profile is None else profile
    line_window = 3 if line_window is None else line_window
    title_overlap = 0.5 if title_overlap is None else title_overlap
    order = "input" if order is None else order
    model = DEFAULT_MODEL if model is None else model
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
