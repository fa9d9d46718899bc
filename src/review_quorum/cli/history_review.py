"""The history's part in `quorum review --db` (any platform), read before planning.

`coverage_for` says, for every expected bot (``expected-bots`` in the configuration, else
the bots the history has seen on the repository), whether it reviewed the head commit.
`triage_for` stores the writers' triage read with the pull request (`history.triage`) and
reads back every decision stored for it. Both are inputs to planning (`plan.review`):
the plan decides who votes, what is quiet and what gates; nothing here changes a plan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from review_quorum.plan import NO_TRIAGE, Triage

if TYPE_CHECKING:
    from review_quorum.cli.github_input import PullInput
    from review_quorum.cli.record import Recorder
    from review_quorum.model import NormalizedFinding
    from review_quorum.plan import BotCoverage


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


def triage_for(recorder: Recorder | None, pulled: PullInput | None) -> Triage:
    """The pull request's stored triage (none without `--db`), after storing the writers'
    decisions this run read from it."""
    if recorder is None:
        return NO_TRIAGE  # nothing to read: no history module (nor httpx) is loaded
    from review_quorum.history import open_history
    from review_quorum.history.triage import store, triage_for

    database = open_history(recorder.target)
    try:
        if pulled is not None and pulled.decisions:
            store(database, recorder.owner, recorder.repo, recorder.number, [*pulled.decisions])
        return triage_for(database, recorder.owner, recorder.repo, recorder.number)
    finally:
        database.close()
