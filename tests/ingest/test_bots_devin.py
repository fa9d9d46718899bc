"""Devin: the JSON marker, emoji severities, BUG and ANALYSIS kinds, the resolution reply."""

from __future__ import annotations

from comment_fixtures import INLINE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.devin import PARSER


def test_bug_marker_range_and_suggestion() -> None:
    parsed = parse(PARSER, "devin.inline-bug.md", INLINE, "src/ledger/refunds.py", 46)
    assert drafts(parsed) == [
        ("high", "logic_error", 1.0, "src/ledger/refunds.py", 40, 46,
         "Refund rows are written outside the payment's transaction"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.key == "BUG_pr-review-job-0000aaaa_0001"
    assert draft.suggestion == "    with payment.transaction() as tx:"
    assert draft.body.startswith("The refund insert runs on a second connection")
    assert "Open in Devin Review" not in draft.body


def test_info_and_flag_severities() -> None:
    info = parse(PARSER, "devin.inline-info.md", INLINE, "src/ledger/report.py", 32)
    flag = parse(PARSER, "devin.inline-flag.md", INLINE, "src/ledger/export.py", None)
    assert drafts(info) + drafts(flag) == [
        ("info", "other", 0.0, "src/ledger/report.py", 32, None,
         "report() sorts by name, not by date"),
        ("low", "other", 0.0, "src/ledger/export.py", 5, 9, "Export keeps a module-level cache"),
    ]  # fmt: skip
    assert info.findings[0].body.startswith("The report orders accounts")


def test_the_marker_locates_a_comment_without_a_path() -> None:
    parsed = parse(PARSER, "devin.inline-bug.md", INLINE)
    assert [(d.file, d.line, d.end_line) for d in parsed.findings] == [
        ("src/ledger/refunds.py", 40, 46)
    ]


def test_resolution_reply_is_not_a_finding() -> None:
    assert parse(PARSER, "devin.resolved-reply.md", INLINE, "a.py", 3) == Parsed(
        skipped=("Devin resolution reply (the finding was fixed), not a finding",)
    )
