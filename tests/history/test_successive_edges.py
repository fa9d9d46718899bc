"""A finding found again within `LINE_SLACK` lines of where it stood is the same finding
(persisted), at both edges of the slack; one line further it is not (it went away, the
head being the same). Pure `successive.label`, no store."""

from __future__ import annotations

import pytest

from review_quorum.history.changes import Commit
from review_quorum.history.successive import LINE_SLACK, PERSISTED, WENT_AWAY, Sighting, label

HEAD = "c" * 40


def sighting(member_id: int, line: int) -> Sighting:
    # No fingerprint and no finding id: only the line can find it again.
    return Sighting(member_id, "coderabbit", "", "", "", "src/stock.py", line, None)


@pytest.mark.parametrize(
    ("offset", "outcome"),
    [
        (0, PERSISTED),
        (LINE_SLACK, PERSISTED),
        (-LINE_SLACK, PERSISTED),
        (LINE_SLACK + 1, WENT_AWAY),
        (-LINE_SLACK - 1, WENT_AWAY),
    ],
)
def test_a_finding_reported_again_within_the_slack_persisted(offset: int, outcome: str) -> None:
    before = sighting(1, 20)
    after = sighting(2, 20 + offset)
    same_head = Commit(HEAD, "", files=())
    assert label([before], [after], same_head)[before][0] == outcome
