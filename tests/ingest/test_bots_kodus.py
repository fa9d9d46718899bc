"""Kodus: only signed comments, badges for category and severity, the proposed code."""

from __future__ import annotations

from comment_fixtures import INLINE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.kodus import PARSER


def test_security_badge_and_severity_level() -> None:
    parsed = parse(PARSER, "kodus.inline-security.md", INLINE, "src/ledger/db.py", 12)
    assert drafts(parsed) == [
        ("critical", "security", 1.0, "src/ledger/db.py", 12, None,
         "The refund lookup builds its SQL with string formatting, so a crafted id injects SQL"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.suggestion.startswith('query = "SELECT * FROM refunds WHERE id = %s"')
    assert "Talk to Kody" not in draft.body and "\u200b" not in draft.body


def test_bug_badge() -> None:
    parsed = parse(PARSER, "kodus.inline-bug.md", INLINE, "src/ledger/report.py", 30, 28)
    assert drafts(parsed) == [
        ("medium", "logic_error", 1.0, "src/ledger/report.py", 28, 30,
         "The total counts payments as refunds because the filter compares against the wrong "
         "kind"),
    ]  # fmt: skip


def test_the_account_owners_own_comments_are_not_kodus() -> None:
    assert parse(PARSER, "generic.review-lines.md", INLINE, "a.py", 1) == Parsed(
        skipped=("comment without the Kodus signature (by the account's owner)",)
    )
