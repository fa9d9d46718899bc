"""Evaluation: how sources and consolidation policies score against labels (`quorum evaluate`).

For every run of a label set (one pull request, or all findings at once) each policy keeps
some findings, alone or as clusters; the label set scores what every policy kept across
all runs. Rows: each source alone (every finding of one bot, each on its own), the union
(every finding on its own), and per model: the clusters at or above each level, the
clusters at least k bots found, and each disposition of the planned review. Which of your
bots are worth keeping, and which policy to gate on, reads off the table.

With a verifier (`Options.verifier`, `quorum evaluate --verify-url`), each planned review
is verified too: the dispositions after verification are rows of their own beside the
ones before, and "dismissed by the verifier" keeps what verification took out of the
review, so its `true` column is the real findings lost and the rest the false positives
removed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec

from review_quorum.labels import Labels, Metrics, Run
from review_quorum.model import ConsensusLevel, NormalizedFinding
from review_quorum.plan import ReviewPlan, Settings, review
from review_quorum.scoring import MODELS, Model, compute_consensus
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict
from review_quorum.scoring.profile import Profile

LEVELS = (ConsensusLevel.CONFIRMED, ConsensusLevel.NEEDS_VERIFICATION, ConsensusLevel.UNVERIFIED)
AGREEING_BOTS = (2, 3)
DISPOSITIONS = (Disposition.INLINE, Disposition.SUMMARY)


class Row(msgspec.Struct, frozen=True):
    """One line of the table: a source or a policy, and its metrics."""

    kind: str  # "source" or "policy"
    name: str
    metrics: Metrics


class Options(msgspec.Struct, frozen=True):
    """The consensus settings every policy runs with."""

    profile: Profile | None = None
    line_window: int = 3
    title_overlap: float = 0.5
    models: tuple[Model, ...] = MODELS
    verifier: Verifier | None = None


Replan = Callable[[Mapping[int, AttachedVerdict]], ReviewPlan]
# A planned review, and how to plan it again with verdicts -> the verified review.
Verifier = Callable[[ReviewPlan, Replan], ReviewPlan]
DISMISSED_BY_VERIFIER = "dismissed by the verifier"


def policy_names(models: Iterable[Model], verified: bool = False) -> list[str]:
    names = ["union"]
    for model in models:
        names += [f"{model} >= {level.value}" for level in LEVELS]
        names += [f"{model} clusters of >= {k} bots" for k in AGREEING_BOTS]
        names += [f"{model} disposition {item.value}" for item in DISPOSITIONS]
        if verified:
            names += [f"{model} disposition {item.value}, verified" for item in DISPOSITIONS]
            names.append(f"{model} {DISMISSED_BY_VERIFIER}")
    return names


def kept_by_policy(
    runs: Sequence[Run], options: Options = Options()
) -> dict[str, list[tuple[Run, tuple[NormalizedFinding, ...]]]]:
    """What each source and each policy keeps, over all runs."""
    kept: dict[str, list[tuple[Run, tuple[NormalizedFinding, ...]]]] = {
        f"source {bot}": [] for bot in sorted({f.bot for run in runs for f in run.findings})
    }
    kept.update({name: [] for name in policy_names(options.models, options.verifier is not None)})
    for run in runs:
        for finding in run.findings:
            kept[f"source {finding.bot}"].append((run, (finding,)))
            kept["union"].append((run, (finding,)))
        for model in options.models:
            _model_policies(run, model, options, kept)
    return kept


def _model_policies(
    run: Run,
    model: Model,
    options: Options,
    kept: dict[str, list[tuple[Run, tuple[NormalizedFinding, ...]]]],
) -> None:
    clusters = compute_consensus(
        run.findings,
        bots_ran=run.bots_ran,
        line_window=options.line_window,
        title_overlap=options.title_overlap,
        model=model,
        profile=options.profile,
    )
    for cluster in clusters:
        for level in LEVELS:
            if cluster.level.rank >= level.rank:
                kept[f"{model} >= {level.value}"].append((run, cluster.members))
        for k in AGREEING_BOTS:
            if cluster.detected_by_count >= k:
                kept[f"{model} clusters of >= {k} bots"].append((run, cluster.members))
    settings = Settings(
        bots_ran=run.bots_ran,
        line_window=options.line_window,
        title_overlap=options.title_overlap,
        gate_level=None,
        model=model,
        profile=options.profile,
    )
    plan = review(run.findings, settings=settings)
    for item in plan.findings:
        if item.disposition in DISPOSITIONS:
            name = f"{model} disposition {item.disposition.value}"
            kept[name].append((run, item.finding.members))
    if options.verifier is None:
        return

    def replan(verdicts: Mapping[int, AttachedVerdict]) -> ReviewPlan:
        return review(run.findings, settings=settings, verdicts_at=verdicts)

    verified = options.verifier(plan, replan)
    for before, after in zip(plan.findings, verified.findings, strict=True):
        if after.disposition in DISPOSITIONS:
            name = f"{model} disposition {after.disposition.value}, verified"
            kept[name].append((run, after.finding.members))
        elif before.disposition in DISPOSITIONS:
            kept[f"{model} {DISMISSED_BY_VERIFIER}"].append((run, after.finding.members))


def score(
    labels: Labels, kept: dict[str, list[tuple[Run, tuple[NormalizedFinding, ...]]]]
) -> list[Row]:
    """Each source's and policy's metrics, sources first."""
    rows = []
    for name, items in kept.items():
        kind, _, label = name.partition(" ") if name.startswith("source ") else ("policy", "", name)
        rows.append(Row(kind, label, labels.score(items)))
    return rows


def evaluate(labels: Labels, runs: Sequence[Run], options: Options = Options()) -> list[Row]:
    """Score every source and policy of `runs` against `labels`."""
    return score(labels, kept_by_policy(runs, options))
