"""Gemini Code Assist: priority badges, the security- prefix, titles in any language."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.gemini import PARSER
from review_quorum.model import Severity

INLINE = CommentKind.INLINE


def parse(name: str, kind: CommentKind = INLINE) -> Parsed:
    body = (FIXTURES / "comments" / name).read_text(encoding="utf-8")
    return PARSER.parse(Comment(kind, "gemini-code-assist[bot]", body, "src/a.py", 4))


@pytest.mark.parametrize(
    ("name", "severity", "category", "title", "suggestion"),
    [
        ("gemini.inline-high-suggestion.md", Severity.HIGH, "other",
         "The cache key omits the account id, so two accounts with the same month share one "
         "cached report", '    key = f"report:{account.id}:{month}"'),
        ("gemini.inline-security-badge.md", Severity.MEDIUM, "security",
         "The session cookie is set without the Secure flag, so it is sent over plain HTTP on "
         "the staging host", ""),
        ("gemini.inline-security-badge-alone.md", Severity.HIGH, "security",
         "A signed URL is built with a hard-coded key taken from the settings module", ""),
        ("gemini.inline-critical-japanese.md", Severity.CRITICAL, "other",
         "close() が二回呼ばれるとファイルハンドルが解放済みになり例外が発生します", ""),
        ("gemini.inline-heading-title.md", Severity.LOW, "other", "Sort the imports", ""),
        ("gemini.inline-references.md", Severity.MEDIUM, "other",
         "This list comprehension can be a generator, since the result is only iterated once", ""),
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
    assert (draft.file, draft.line) == ("src/a.py", 4)


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("gemini.reply-without-badge.md", INLINE,
         "Gemini comment without a priority badge (a reply, not a finding)"),
        ("gemini.review-code-review.md", CommentKind.REVIEW,
         "Gemini review summary, not a finding (its inline comments are read)"),
        ("gemini.summary.md", CommentKind.ISSUE, "Gemini pull request summary, not a finding"),
        ("gemini.reply-without-badge.md", CommentKind.ISSUE,
         "Gemini comment with no finding layout"),
    ],
)  # fmt: skip
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(name, kind) == Parsed(skipped=(reason,))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            "![unknown](https://x/y.svg)\n\nText.",
            "Gemini comment without a priority badge (a reply, not a finding)",
        ),
        ("![high](https://x/high.svg)", "Gemini finding with no text"),
        ("", "Gemini comment without a priority badge (a reply, not a finding)"),
    ],
)
def test_unusable_bodies(body: str, reason: str) -> None:
    assert PARSER.parse(Comment(INLINE, "gemini-code-assist", body, "a.py", 1)) == Parsed(
        skipped=(reason,)
    )


def test_text_on_the_badge_line_starts_the_title() -> None:
    body = "![low](https://x/low-priority.svg) Rename `tmp` to something descriptive."
    (draft,) = PARSER.parse(Comment(INLINE, "gemini-code-assist", body, "a.py", 1)).findings
    assert (draft.severity, draft.title) == (Severity.LOW, "Rename tmp to something descriptive")


def test_without_a_security_badge_the_category_is_a_guess_with_its_certainty() -> None:
    body = (
        "![medium](https://www.gstatic.com/codereviewagent/medium-priority.svg)\n\n"
        "This loop can be simplified: the same helper is duplicated in two modules."
    )
    (draft,) = PARSER.parse(Comment(INLINE, "gemini-code-assist[bot]", body, "a.py", 2)).findings
    assert (draft.category, draft.category_certainty) == ("maintainability", 0.6)
    (security,) = parse("gemini.inline-security-badge.md").findings
    assert security.category_certainty == 1.0
