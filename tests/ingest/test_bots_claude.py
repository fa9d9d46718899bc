"""Claude: numbered findings in one comment, both tag styles, praise left out, notices."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, REVIEW, body, drafts, parse
from review_quorum.ingest.bots import Comment, Parsed
from review_quorum.ingest.bots.claude import PARSER


def test_bracket_tags_heading_locations_and_section_colours() -> None:
    parsed = parse(PARSER, "claude.review-bracket-tags.md", ISSUE)
    assert drafts(parsed) == [
        ("high", "other", 0.0, "src/ledger/refunds.py", 40, 46, "Refund can exceed the payment"),
        ("low", "other", 0.0, "src/ledger/money.py", 10, None, "Duplicate rounding helper"),
        ("medium", "concurrency", 0.8, "src/ledger/stats.py", 8, None, "Thread-unsafe counter"),
    ]
    assert [(d.key, d.from_summary) for d in parsed.findings] == [
        ("1", True), ("2", True), ("3", True),
    ]  # fmt: skip
    first = parsed.findings[0]
    assert first.suggestion.startswith("if refunded + amount > payment.amount:")
    assert first.body.startswith("Nothing checks that the sum of refunds")


def test_suffix_tags_take_the_first_word_and_praise_is_left_out() -> None:
    parsed = parse(PARSER, "claude.review-suffix-tags.md", ISSUE)
    assert [(d.severity.label, d.file, d.line, d.title) for d in parsed.findings] == [
        ("critical", "src/ledger/webhooks.py", 18, "Refund webhook accepts unsigned calls"),
        ("low", "", None, "Retry loop never gives up"),
    ]


def test_a_comment_without_numbered_findings_is_read_like_any_bot() -> None:
    comment = Comment(ISSUE, "claude", body("generic.review-lines.md"))
    assert [d.title for d in PARSER.parse(comment).findings] == [
        "totals are rounded before summing",
        "typo in the help text",
    ]


def test_inline_comments_are_prose() -> None:
    comment = Comment(INLINE, "claude", "**Race:** the counter is shared.", "a.py", 3)
    assert drafts(PARSER.parse(comment)) == [
        ("medium", "concurrency", 0.3, "a.py", 3, None, "Race: the counter is shared"),
    ]


def test_not_findings() -> None:
    assert parse(PARSER, "claude.setup-notice.md", REVIEW) == Parsed(
        skipped=("Claude Code Review set-up notice, not a finding",)
    )
    assert parse(PARSER, "claude.status.md", ISSUE) == Parsed(
        skipped=("Claude comment with no numbered findings (a summary, plan or status)",)
    )
