"""Output order (SPEC 3.7) is the tuple key's: score desc, severity desc, file, line (none last);
the reliability model puts the priority tools state (SARIF rank) after the severity."""

from __future__ import annotations

import random

from msgspec.structs import replace

from review_quorum import Profile, compute_consensus
from review_quorum.model import (
    MAX_LINE,
    ConsensusFinding,
    ConsensusLevel,
    Evidence,
    NormalizedFinding,
    Severity,
)
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


def _lone(bot: str, file: str, priority: float) -> NormalizedFinding:
    return NormalizedFinding(
        bot=bot,
        finding_id=f"{bot}-{file}",
        severity=Severity.MEDIUM,
        category="security",
        title=f"{bot} in {file}",
        evidence=Evidence(file=file, line=3),
        rule_id="rule",
        priority=priority,
    )


def test_the_reliability_model_orders_ties_by_the_priority_tools_state() -> None:
    # One rule's lone findings tie on score and severity: the tool's stated priority (SARIF
    # rank) decides which comes first, before the file name; no stated priority comes last.
    items = [_lone("scan", "a.py", 0.2), _lone("scan", "b.py", 0.9), _lone("scan", "c.py", -1.0)]
    items.append(_lone("scan", "d.py", 0.35))
    ordered = compute_consensus(items, model="reliability", profile=Profile())
    assert len({c.consensus_score for c in ordered}) == 1
    assert [c.file for c in ordered] == ["b.py", "d.py", "a.py", "c.py"]


def test_a_stated_priority_of_zero_still_comes_before_none_stated() -> None:
    items = [_lone("scan", "a.py", -1.0), _lone("scan", "b.py", 0.0)]
    ordered = compute_consensus(items, model="reliability", profile=Profile())
    assert [c.file for c in ordered] == ["b.py", "a.py"]


def test_a_priority_never_outranks_the_score_or_the_severity() -> None:
    low = replace(_lone("scan", "a.py", 1.0), severity=Severity.LOW)
    high = _lone("scan", "b.py", 0.0)
    ordered = compute_consensus([low, high], model="reliability", profile=Profile())
    assert [c.file for c in ordered] == ["b.py", "a.py"]


def test_the_agreement_models_order_stays_spec_3_7s_whatever_the_priority() -> None:
    items = [_lone("scan", "a.py", 0.2), _lone("scan", "b.py", 0.9)]
    assert [c.file for c in compute_consensus(items, model="agreement")] == ["a.py", "b.py"]


def test_the_priority_key_orders_as_its_tuple_key() -> None:
    rng = random.Random(5)
    for _ in range(200):
        items = [
            ConsensusFinding(
                rng.choice(["a.py", "b.py", ""]),
                rng.choice([None, 1, 2]),
                "security",
                "t",
                rng.choice(list(Severity)),
                ("bot",),
                2,
                0.5,
                0.5,
                rng.choice([0.0, 0.25, 1.0]),
                ConsensusLevel.UNVERIFIED,
                tuple(
                    _lone("scan", "x.py", rng.choice([-1.0, 0.0, 0.3, 1.0]))
                    for _ in range(rng.randint(1, 3))
                ),
            )
            for _ in range(rng.randint(0, 30))
        ]
        expected = sorted(
            items,
            key=lambda item: (
                -item.consensus_score,
                -item.severity,
                -max(member.priority for member in item.members),
                item.file,
                item.line is None,
                item.line or 0,
            ),
        )
        sort_for_output(items, by_priority=True)
        assert [id(item) for item in items] == [id(item) for item in expected]


def _at(file: str, line: int | None, score: float) -> ConsensusFinding:
    return ConsensusFinding(
        file, line, "security", "t", Severity.LOW, ("bot",), 2, 0.5, 0.5, score,
        ConsensusLevel.UNVERIFIED, (),
    )  # fmt: skip


def test_the_order_holds_where_the_key_outgrows_a_floats_exact_integers() -> None:
    # 122,000 distinct scores, files and lines: the one number per finding reaches 2**53,
    # past which a float would no longer tell neighbouring lines apart.
    size = 122_000
    items = [_at(f"f{n:06d}", n + 1, n / size) for n in range(size)]
    last = [_at("zz.py", line, -1.0) for line in range(3 * size + 6, 3 * size, -1)]
    everything = items + last
    sort_for_output(everything)
    assert [(item.file, item.line) for item in everything[-6:]] == [
        ("zz.py", line) for line in range(3 * size + 1, 3 * size + 7)
    ]
    assert everything[0].consensus_score == (size - 1) / size
