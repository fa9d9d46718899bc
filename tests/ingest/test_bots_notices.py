"""SonarQube Cloud and Codemetrics: their notices are counted, anything else read generically."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.notices import CODEMETRICS, SONARQUBE


def test_quality_gate_and_trial_notices() -> None:
    assert parse(SONARQUBE, "sonarqube.quality-gate.md", ISSUE) == Parsed(
        skipped=("SonarQube Cloud quality-gate report (passed), not a finding",)
    )
    assert parse(CODEMETRICS, "codemetrics.trial.md", ISSUE) == Parsed(
        skipped=("Codemetrics subscription notice, not a finding",)
    )


def test_other_comments_are_read_like_any_bot() -> None:
    inline = parse(CODEMETRICS, "generic.inline-priority.md", INLINE, "src/ledger/receipt.py", 7)
    body = parse(SONARQUBE, "generic.review-lines.md", ISSUE)
    assert [d.title for d in inline.findings + body.findings] == [
        "The receipt template hard-codes the index of the total column",
        "totals are rounded before summing",
        "typo in the help text",
    ]
