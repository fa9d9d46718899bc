"""The history's part in `quorum review --github`: coverage of the head, and triage honoured.

`coverage_for` says, for every expected bot (``expected-bots`` in the configuration, else
the bots the history has seen on the repository), whether it reviewed the head commit;
the bots that did form the agreement denominator unless ``--bots`` is given. `apply`
stores the writers' triage read with the pull request (`history.triage`), honours every
decision stored for it (`history.honour`) and names the bots that did not review in the
summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from review_quorum.cli.github_input import PullInput
    from review_quorum.cli.record import Recorder
    from review_quorum.history.coverage import BotCoverage
    from review_quorum.model import NormalizedFinding
    from review_quorum.plan import ReviewPlan


def coverage_for(
    recorder: Recorder | None,
    pulled: PullInput | None,
    settings: Mapping[str, Any],
    findings: Sequence[NormalizedFinding],
) -> list[BotCoverage]:
    """Each expected bot's coverage of the head commit (none without a reading of the pull
    request from its platform).

    `findings` are all the run's findings: a bot with findings from the input files
    reviewed what this run reviews.
    """
    talk = None if pulled is None else pulled.snapshot or pulled.talk
    if pulled is None or talk is None:
        return []
    from review_quorum.history import open_history
    from review_quorum.history.coverage import coverage, expected_bots

    configured = settings.get("expected-bots")
    if configured or recorder is None:
        expected = expected_bots(configured, None, "", "")
    else:
        database = open_history(recorder.target)
        try:
            expected = expected_bots(None, database, recorder.owner, recorder.repo)
        finally:
            database.close()
    read = Counter(f.bot for f in pulled.batch.findings)
    given = frozenset(bot for bot, n in Counter(f.bot for f in findings).items() if n > read[bot])
    return coverage(talk, expected, settings.get("bot-logins") or {}, given)


def reviewed(covered: list[BotCoverage]) -> tuple[str, ...]:
    """The expected bots that reviewed the head commit."""
    if not covered:
        return ()
    from review_quorum.history.coverage import reviewers

    return reviewers(covered)


def apply(
    plan: ReviewPlan,
    recorder: Recorder | None,
    pulled: PullInput | None,
    covered: list[BotCoverage],
) -> ReviewPlan:
    """`plan` with the stored triage honoured and the coverage said."""
    if recorder is None and not covered:
        return plan  # nothing to honour or say: no history module (nor httpx) is loaded
    from review_quorum.history.honour import honour_triage, with_coverage

    if recorder is not None:
        from review_quorum.history import open_history
        from review_quorum.history.triage import carried_over, decisions_for, store

        database = open_history(recorder.target)
        try:
            if pulled is not None and pulled.decisions:
                store(database, recorder.owner, recorder.repo, recorder.number, [*pulled.decisions])
            decisions = decisions_for(database, recorder.owner, recorder.repo, recorder.number)
            places = {
                (item.finding.file, item.finding.category, item.finding.line): item.fingerprint
                for item in plan.findings
            }
            target = (recorder.owner, recorder.repo, recorder.number)
            decisions = carried_over(database, *target, decisions, places)
        finally:
            database.close()
        plan = honour_triage(plan, decisions)
    return with_coverage(plan, covered)
