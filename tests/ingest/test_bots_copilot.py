"""Copilot: inline prose, [nitpick], suggestions, suppressed low-confidence review entries."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.copilot import PARSER, SUPPRESSED_CONFIDENCE
from review_quorum.model import Severity

INLINE, REVIEW, ISSUE = CommentKind.INLINE, CommentKind.REVIEW, CommentKind.ISSUE


def parse(name: str, kind: CommentKind, path: str = "", line: int | None = None) -> Parsed:
    body = (FIXTURES / "comments" / name).read_text(encoding="utf-8")
    return PARSER.parse(Comment(kind, "Copilot", body, path, line))


def test_inline_comment_with_a_suggestion() -> None:
    (draft,) = parse("copilot.inline-suggestion.md", INLINE, "src/ledger/settings.py", 8).findings
    assert (draft.severity, draft.category, draft.file, draft.line) == (
        Severity.MEDIUM,
        "other",
        "src/ledger/settings.py",
        8,
    )
    assert draft.title == (
        "The timeout is read from the environment as a string and compared with an integer, "
        "so the guard never triggers"
    )
    assert draft.suggestion == 'TIMEOUT_SECONDS = int(os.environ.get("LEDGER_TIMEOUT", "30"))'
    assert draft.confidence == 1.0


def test_nitpick_prefix_lowers_the_severity_and_the_suggestion_beats_the_illustration() -> None:
    (draft,) = parse("copilot.inline-nitpick.md", INLINE, ".github/workflows/ci.yml", 20).findings
    assert draft.severity is Severity.LOW
    assert draft.title == "The step name does not say which Python version it installs"
    assert draft.suggestion == "      - name: Set up Python 3.12"


def test_category_is_a_keyword_guess() -> None:
    body = "This query interpolates user input, which allows SQL injection."
    (draft,) = PARSER.parse(Comment(INLINE, "Copilot", body, "a.py", 1)).findings
    assert draft.category == "security"


def test_suppressed_comments_in_the_review_body() -> None:
    parsed = parse("copilot.review-suppressed.md", REVIEW)
    assert parsed.skipped == ()
    assert [
        (d.severity, d.title, d.file, d.line, d.end_line, d.confidence, d.from_summary)
        for d in parsed.findings
    ] == [
        (
            Severity.LOW,
            "The rounding mode differs from the one the invoice module uses",
            "src/ledger/report.py",
            57,
            None,
            SUPPRESSED_CONFIDENCE,
            True,
        ),
        (
            Severity.LOW,
            "The help text repeats the option name; a short description reads better",
            "src/ledger/cli.py",
            10,
            12,
            SUPPRESSED_CONFIDENCE,
            True,
        ),
    ]


def test_suppressed_entry_without_a_line_is_skipped() -> None:
    body = (
        "<details>\n<summary>Comments suppressed due to low confidence (1)</summary>\n\n"
        "**src/ledger/report.py**\n* Something odd here.\n</details>"
    )
    assert PARSER.parse(Comment(REVIEW, "copilot-pull-request-reviewer", body)) == Parsed(
        skipped=("suppressed Copilot comment without a path:line location or text",)
    )


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        (
            "copilot.review-overview-2025.md",
            REVIEW,
            "Copilot review overview, not a finding (its inline comments are read)",
        ),
        ("copilot.review-could-not-review.md", REVIEW, "Copilot could not review any files"),
        (
            "copilot.review-overview-2025.md",
            ISSUE,
            "Copilot conversation comment, not a review finding",
        ),
    ],
)
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(name, kind) == Parsed(skipped=(reason,))


def test_empty_inline_comment_is_skipped() -> None:
    assert PARSER.parse(Comment(INLINE, "Copilot", "  \n", "a.py", 1)) == Parsed(
        skipped=("Copilot comment with no text",)
    )


def test_markup_quoted_in_a_code_span_does_not_hide_the_comment() -> None:
    parsed = parse("copilot.inline-details-code-span.md", INLINE, "templates/report.html", 3)
    assert [(d.title, d.body) for d in parsed.findings] == [
        (
            "The template closes the collapsible block with </details> before the table ends, "
            "so the last rows render outside the block",
            "The template closes the collapsible block with </details> before the table ends, "
            "so the last rows render outside the block.",
        )
    ]


def test_a_hard_coded_index_is_a_maintainability_nit_not_security() -> None:
    parsed = parse("copilot.inline-hard-coded-index.md", INLINE, "src/ledger/receipt.py", 3)
    assert [(d.severity, d.category, d.category_certainty) for d in parsed.findings] == [
        (Severity.LOW, "maintainability", 0.8)
    ]


def test_bare_closing_tags_in_the_prose_do_not_hide_the_comment() -> None:
    """Issue 33 item 1: a comment about an HTML template quotes raw ``</summary></details>``
    outside a code span; its text is still read (a stray close does not end anything)."""
    parsed = parse("copilot.inline-bare-details-tags.md", INLINE, "templates/search.html", 7)
    assert [(d.title, d.file, d.line) for d in parsed.findings] == [
        ("The query is built from term", "templates/search.html", 7)
    ]
    assert parsed.skipped == ()


def test_a_line_of_prose_before_a_collapsed_block_is_read() -> None:
    body = "Escape the value before it is used.<details><summary>Why</summary>hidden</details>"
    (draft,) = PARSER.parse(Comment(INLINE, "Copilot", body, "a.html", 2)).findings
    assert (draft.title, draft.body) == (
        "Escape the value before it is used",
        "Escape the value before it is used.",
    )
