"""Output order (SPEC 3.7) is the tuple key's: score desc, severity desc, file, line (none last)."""

from __future__ import annotations

import random

from review_quorum.model import MAX_LINE, ConsensusFinding, ConsensusLevel, Severity
from review_quorum.scoring.agreement import sort_for_output


def test_the_one_integer_key_orders_as_the_tuple_key() -> None:
    rng = random.Random(3)
    for _ in range(300):
        items = [
            ConsensusFinding(
                rng.choice(["", "a.py", "b.py", "\u00e9.py", "a.pyc"]),
                rng.choice([None, 1, 2, MAX_LINE]),
                "security",
                "t",
                rng.choice(list(Severity)),
                ("bot",),
                2,
                0.5,
                0.5,
                rng.choice([0.0, -0.0, 0.25, 1.0, 0.1 + 0.2, 0.3, 1e-300]),
                ConsensusLevel.UNVERIFIED,
                (),
            )
            for _ in range(rng.randint(0, 40))
        ]
        expected = sorted(
            items,
            key=lambda item: (
                -item.consensus_score,
                -item.severity,
                item.file,
                item.line is None,
                item.line or 0,
            ),
        )
        sort_for_output(items)
        assert [id(item) for item in items] == [id(item) for item in expected]
