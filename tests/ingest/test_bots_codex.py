"""OpenAI Codex: P-badges inline, permalinked findings in review bodies, notices."""

from __future__ import annotations

import pytest

from comment_fixtures import INLINE, ISSUE, REVIEW, drafts, parse
from review_quorum.ingest.bots import CommentKind, Parsed
from review_quorum.ingest.bots.codex import PARSER


def test_inline_badge() -> None:
    parsed = parse(PARSER, "codex.inline-badge.md", INLINE, "src/ledger/refunds.py", 44, 40)
    assert drafts(parsed) == [
        ("high", "other", 0.0, "src/ledger/refunds.py", 40, 44,
         "Keep the currency when splitting a refund"),
    ]  # fmt: skip
    assert "Useful?" not in parsed.findings[0].body


def test_review_body_findings_take_file_and_lines_from_the_permalink() -> None:
    parsed = parse(PARSER, "codex.review-with-findings.md", REVIEW)
    assert drafts(parsed) == [
        ("medium", "other", 0.0, "docs/refunds.md", 12, 14, "Document the partial-refund limit"),
        ("low", "other", 0.0, "src/ledger/limits.py", 3, None, "Name the refund ceiling"),
    ]
    assert all(d.from_summary for d in parsed.findings)
    assert "About Codex" not in parsed.findings[1].body


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("codex.review-intro.md", REVIEW,
         "Codex review summary, not a finding (its inline comments are read)"),
        ("codex.usage-limit.md", ISSUE, "Codex usage-limit notice, not a finding"),
        ("codex.task-report.md", ISSUE, "Codex task report (work done), not a finding"),
        ("claude.status.md", ISSUE, "Codex comment with no finding layout"),
        ("greptile.overview.md", INLINE, "Codex comment without a badge"),
    ],
)  # fmt: skip
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(PARSER, name, kind, "a.py", 1) == Parsed(skipped=(reason,))
