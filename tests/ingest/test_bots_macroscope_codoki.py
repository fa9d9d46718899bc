"""Macroscope (short paths, the verdict comment) and Codoki (the marker, emoji severities)."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.codoki import PARSER as CODOKI
from review_quorum.ingest.bots.macroscope import PARSER as MACROSCOPE

HEADER = (
    "The export writes the header row after the first page, so spreadsheets read the first "
    "page as data without column names"
)


def test_macroscope_takes_the_line_from_its_short_path() -> None:
    parsed = parse(MACROSCOPE, "macroscope.inline.md", INLINE, "pkg/ledger/export.py", None)
    assert drafts(parsed) == [("high", "other", 0.0, "pkg/ledger/export.py", 19, None, HEADER)]


def test_macroscope_keeps_the_comment_line_and_ignores_another_files_path() -> None:
    moved = parse(MACROSCOPE, "macroscope.inline.md", INLINE, "pkg/ledger/export.py", 25)
    other = parse(MACROSCOPE, "macroscope.inline.md", INLINE, "pkg/ledger/report.py", None)
    assert [(d.line, d.file) for d in moved.findings + other.findings] == [
        (25, "pkg/ledger/export.py"),
        (None, "pkg/ledger/report.py"),
    ]


def test_macroscope_verdict_is_not_a_finding() -> None:
    assert parse(MACROSCOPE, "macroscope.approvability.md", ISSUE) == Parsed(
        skipped=("Macroscope approvability verdict, not a finding",)
    )


def test_codoki_shortcode_and_emoji_severities() -> None:
    high = parse(CODOKI, "codoki.inline-shortcode.md", INLINE, "migrations/0007.sql", 3)
    medium = parse(CODOKI, "codoki.inline-medium.md", INLINE, "src/ledger/receipt.py", 8)
    assert drafts(high) + drafts(medium) == [
        ("high", "concurrency", 0.6, "migrations/0007.sql", 3, None,
         "Dropping the refunds index without CONCURRENTLY locks the table during the deploy"),
        ("medium", "other", 0.0, "src/ledger/receipt.py", 8, None,
         'When the note is empty, the receipt prints the word "None"'),
    ]  # fmt: skip
    assert high.findings[0].suggestion.startswith("CREATE INDEX CONCURRENTLY")
    assert medium.findings[0].body.startswith("When the note is empty")
