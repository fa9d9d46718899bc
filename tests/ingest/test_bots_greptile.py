"""Greptile: prose findings, the prompt block's range, P-badges, "Additional Comments"."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, REVIEW, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.greptile import PARSER


def test_bold_title_prompt_range_and_suggestion() -> None:
    parsed = parse(PARSER, "greptile.inline-bold-title.md", INLINE, "src/ledger/export.py", 21)
    assert drafts(parsed) == [
        ("medium", "logic_error", 0.8, "src/ledger/export.py", 18, 21,
         "Off-by-one: the last page is never exported"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.suggestion == "for page in range(pages):"
    assert draft.body.startswith("The loop stops at pages - 1, so the final page")
    assert "How can I resolve this" not in draft.body


def test_the_prompt_block_locates_an_outdated_comment() -> None:
    parsed = parse(PARSER, "greptile.inline-bold-title.md", INLINE, "src/ledger/export.py", None)
    assert [(d.line, d.end_line) for d in parsed.findings] == [(18, 21)]


def test_priority_badge_and_knowledge_base_line() -> None:
    parsed = parse(PARSER, "greptile.inline-badge.md", INLINE, "src/ledger/webhooks.py", 40)
    assert drafts(parsed) == [
        ("critical", "security", 0.6, "src/ledger/webhooks.py", 40, None,
         "Webhook secret compared with =="),
    ]  # fmt: skip
    assert "Knowledge Base" not in parsed.findings[0].body


def test_additional_comments_each_become_a_finding() -> None:
    parsed = parse(PARSER, "greptile.additional-comments.md", ISSUE)
    assert drafts(parsed) == [
        ("medium", "other", 0.0, "src/ledger/settings.py", 5, 7,
         "The default currency is read before the environment is loaded, so overrides never "
         "apply"),
        ("medium", "other", 0.0, "src/ledger/cli.py", 31, None,
         "The --dry-run flag is parsed but never passed to the exporter"),
    ]  # fmt: skip
    assert [(d.from_summary, d.key) for d in parsed.findings] == [(True, "1"), (True, "2")]
    assert parsed.findings[1].suggestion == "    export(ledger, dry_run=args.dry_run)"


def test_summaries_are_not_findings() -> None:
    assert parse(PARSER, "greptile.review-summary.md", REVIEW) == Parsed(
        skipped=("Greptile review summary, not a finding (it counts the inline comments)",)
    )
    assert parse(PARSER, "greptile.overview.md", ISSUE) == Parsed(
        skipped=("Greptile overview, not a finding (its issues are posted inline)",)
    )
