"""Cursor Bugbot: ### titles, stated (or hidden) severity, the locations block, the agent notice."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, REVIEW, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.cursor import PARSER


def test_severity_line_locations_and_bug_id() -> None:
    parsed = parse(PARSER, "cursor.inline-severity-line.md", INLINE, "src/ledger/refunds.py", 46)
    assert drafts(parsed) == [
        ("medium", "other", 0.0, "src/ledger/refunds.py", 40, 46,
         "Refund total ignores partial refunds"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.key == "4b0e7a8c-1111-4d2e-9a55-0123456789ab"
    assert draft.related == (("src/ledger/report.py", 12, 13),)
    assert draft.body.startswith("The refund total sums only full refunds")
    assert draft.suggestion == ""


def test_severity_hidden_in_an_html_comment_and_the_verification_block_left_out() -> None:
    parsed = parse(PARSER, "cursor.inline-hidden-severity.md", INLINE, "src/ledger/cache.py", 9)
    (draft,) = parsed.findings
    assert (draft.severity.label, draft.line, draft.end_line, draft.key) == ("high", 7, 9, "")
    assert "assert" not in draft.body and draft.body.endswith("plain-text logs.")


def test_a_moved_comment_keeps_its_current_line() -> None:
    parsed = parse(PARSER, "cursor.inline-severity-line.md", INLINE, "src/ledger/refunds.py", 90)
    assert [(d.line, d.end_line) for d in parsed.findings] == [(90, None)]


def test_not_findings() -> None:
    assert parse(PARSER, "cursor.agent-notice.md", ISSUE) == Parsed(
        skipped=("Cursor Agent availability notice, not a finding",)
    )
    assert parse(PARSER, "greptile.review-summary.md", REVIEW) == Parsed(
        skipped=("Cursor Bugbot summary, not a finding (its inline comments are read)",)
    )
    assert parse(PARSER, "devin.resolved-reply.md", INLINE, "a.py", 1) == Parsed(
        skipped=("Cursor comment without a ### title (a reply, not a finding)",)
    )
