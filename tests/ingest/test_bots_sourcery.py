"""Sourcery: label forms, severities and categories, suggestions, the review's prompt block."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.sourcery import CATEGORIES, PARSER
from review_quorum.ingest.categories import CATEGORIES as VOCABULARY
from review_quorum.model import Severity

INLINE, REVIEW = CommentKind.INLINE, CommentKind.REVIEW
H, M, L = Severity.HIGH, Severity.MEDIUM, Severity.LOW


def parse(name: str, kind: CommentKind = INLINE) -> Parsed:
    body = (FIXTURES / "comments" / name).read_text(encoding="utf-8")
    return PARSER.parse(Comment(kind, "sourcery-ai[bot]", body, "src/a.py", 7, 5))


@pytest.mark.parametrize(
    ("name", "severity", "category", "title", "suggestion"),
    [
        ("sourcery.inline-bug-risk.md", H, "logic_error",
         "The month filter compares a date with a datetime, so entries posted on the last day "
         "are dropped", "    if entry.posted_at.date() <= end:"),
        ("sourcery.inline-security-emoji.md", H, "security",
         "The upload path is joined without normalising it, so ../ escapes the storage folder", ""),
        ("sourcery.inline-static-analysis.md", H, "security",
         "Detected the use of eval() on a value that can come from the request", ""),
        ("sourcery.inline-2024-one-paragraph.md", M, "maintainability",
         "The loop builds the same dictionary on every iteration", ""),
        ("sourcery.inline-nitpick-typo.md", L, "documentation",
         'Typo: "recieve" should be "receive"',
         "Entries you receive after closing are queued for the next period."),
        ("sourcery.inline-suggested-implementation.md", M, "performance",
         "Fetch the currency table once instead of once per entry",
         "rates = load_rates()\nconverted = [convert(entry, rates) for entry in entries]"),
    ],
)  # fmt: skip
def test_inline_findings(
    name: str, severity: Severity, category: str, title: str, suggestion: str
) -> None:
    (draft,) = parse(name).findings
    assert (draft.severity, draft.category, draft.title, draft.suggestion) == (
        severity,
        category,
        title,
        suggestion,
    )
    assert (draft.file, draft.line, draft.end_line, draft.from_summary) == ("src/a.py", 5, 7, False)


@pytest.mark.parametrize(
    ("label", "severity", "category"),
    [
        ("**issue:**", H, "other"),
        ("**suggestion:**", M, "other"),
        ("**nitpick (testing):**", L, "testing"),
        ("**suggestion (security):**", H, "security"),
        ("**nitpick (some_new_kind):**", L, "other"),
        ("**issue (bug_risk):**", H, "logic_error"),
        ("**suggestion (python.lang.correctness.useless-eqeq):**", M, "logic_error"),
        ("**issue (javascript.express.security.audit.xss):**", H, "security"),
    ],
)
def test_label_forms(label: str, severity: Severity, category: str) -> None:
    body = f"{label} Something to fix here."
    (draft,) = PARSER.parse(Comment(INLINE, "sourcery-ai", body, "a.py", 1)).findings
    assert (draft.severity, draft.category, draft.title) == (
        severity,
        category,
        "Something to fix here",
    )


def test_every_category_maps_into_the_shared_vocabulary() -> None:
    assert set(CATEGORIES.values()) <= set(VOCABULARY)


def test_title_may_start_on_the_next_paragraph() -> None:
    body = "**issue (bug_risk):**\n\nThe cache is never invalidated. It grows forever."
    (draft,) = PARSER.parse(Comment(INLINE, "sourcery-ai", body, "a.py", 1)).findings
    assert draft.title == "The cache is never invalidated"


def test_prompt_block_individual_comments() -> None:
    parsed = parse("sourcery.review-prompt-block.md", REVIEW)
    assert parsed.skipped == ()
    assert [
        (d.severity, d.category, d.title, d.file, d.line, d.end_line, d.from_summary)
        for d in parsed.findings
    ] == [
        (H, "logic_error",
         "Totals are keyed by account name, so two accounts with the same name are merged",
         "src/ledger/report.py", 30, 34, True),
        (M, "testing", "Add a case with two accounts that share a name", "tests/test_report.py",
         12, None, True),
    ]  # fmt: skip


def test_prompt_block_old_location_form() -> None:
    parsed = parse("sourcery.review-prompt-block-old-location.md", REVIEW)
    assert [(d.severity, d.title, d.file, d.line, d.end_line) for d in parsed.findings] == [
        (L, "The option help strings mix sentence case and lower case", "src/ledger/cli.py", 38, 44)
    ]
    assert parsed.skipped == (
        "Sourcery individual comment 'This branch has no location block' without a <location>",
    )


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("sourcery.inline-question.md", INLINE, "Sourcery 'question' comment, not a finding"),
        ("sourcery.reviewers-guide.md", CommentKind.ISSUE,
         "Sourcery reviewer's guide, not a finding"),
        ("sourcery.review-size-limit.md", REVIEW,
         "Sourcery did not review: the pull request is over its size limit"),
        ("sourcery.review-high-level-only.md", REVIEW,
         "Sourcery review overview (high-level feedback has no location)"),
    ],
)  # fmt: skip
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(name, kind) == Parsed(skipped=(reason,))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("No label at all.", "no Sourcery label (**type (category):**) on the first line"),
        ("", "no Sourcery label (**type (category):**) on the first line"),
        ("**issue (bug_risk):**", "Sourcery label with no title text"),
        ("**praise:** Nice work.", "Sourcery 'praise' comment, not a finding"),
        ("**weird:** Unknown type.", "Sourcery 'weird' comment, not a finding"),
    ],
)
def test_unusable_inline_bodies(body: str, reason: str) -> None:
    assert PARSER.parse(Comment(INLINE, "sourcery-ai", body, "a.py", 1)) == Parsed(
        skipped=(reason,)
    )


def test_individual_comment_without_issue_block_is_skipped() -> None:
    body = '## Individual Comments\n\n### Comment 1\n<location path="a.py" line_range="3" />\n'
    assert PARSER.parse(Comment(REVIEW, "sourcery-ai", body)) == Parsed(
        skipped=("Sourcery individual comment without <issue_to_address>",)
    )


def test_individual_comment_without_a_label_and_old_location_without_lines() -> None:
    body = (
        "## Individual Comments\n\n### Comment 1\n<location> `src/a.py` </location>\n"
        "<issue_to_address>\n**suggestion:** Split this function.\n</issue_to_address>\n\n"
        '### Comment 2\n<location path="b.py" />\n<issue_to_address>\nNo label here.\n'
        "</issue_to_address>\n"
    )
    parsed = PARSER.parse(Comment(REVIEW, "sourcery-ai", body))
    assert [(d.title, d.file, d.line) for d in parsed.findings] == [
        ("Split this function", "src/a.py", None)
    ]
    assert parsed.skipped == ("no Sourcery label (**type (category):**) on the first line",)
