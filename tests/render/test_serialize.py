"""A lone finding's data is written inline: the same data as every member's."""

from __future__ import annotations

import pytest

from review_quorum import Evidence, NormalizedFinding, Severity, compute_consensus
from review_quorum.model import CommentSource
from review_quorum.render.serialize import consensus_data, member_data


def lone(line: int | None, end_line: int | None, **extra: object) -> NormalizedFinding:
    return NormalizedFinding(
        bot="ruff",
        finding_id="r1",
        severity=Severity.HIGH,
        category="security",
        title="weak hash",
        evidence=Evidence(file="a.py", line=line, end_line=end_line, snippet="s", symbol="f"),
        confidence=0.7,
        rule_id="S324",
        suggestion="use sha256",
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("model", ["agreement", "reliability"])
@pytest.mark.parametrize(
    ("line", "end_line", "extra"),
    [
        (None, None, {}),
        (3, None, {}),
        (3, 3, {}),
        (3, 9, {}),
        (
            5,
            7,
            {
                "source": CommentSource("review_comment", 12, "N1", "https://x/1", "bot"),
                "related": (Evidence(file="b.py", line=2), Evidence(file="c.py")),
            },
        ),
    ],
)
def test_a_lone_finding_has_its_members_data(
    line: int | None, end_line: int | None, extra: dict[str, object], model: str
) -> None:
    member = lone(line, end_line, **extra)
    [finding] = compute_consensus([member], bots_ran=2, model=model)  # type: ignore[arg-type]
    data = consensus_data(finding)
    assert data["members"] == [member_data(member)]
    assert data["end_line"] == finding.end_line
    assert list(data) == list(consensus_data(finding, shares={}))
