"""GitHub Advanced Security: CodeQL and third-party code-scanning alerts, notices."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.ghas import PARSER
from review_quorum.model import Severity


def parse(name: str, kind: CommentKind = CommentKind.INLINE) -> Parsed:
    body = (FIXTURES / "comments" / name).read_text(encoding="utf-8")
    return PARSER.parse(Comment(kind, "github-advanced-security[bot]", body, "src/a.py", 9))


@pytest.mark.parametrize(
    ("name", "title", "key"),
    [
        ("ghas.codeql-alert.md", "Uncontrolled data used in path expression", "code-scanning/41"),
        ("ghas.third-party-alert.md", "unpinned action reference", "code-scanning/42"),
    ],
)
def test_alerts(name: str, title: str, key: str) -> None:
    (draft,) = parse(name).findings
    assert (draft.severity, draft.category, draft.title, draft.key) == (
        Severity.MEDIUM,
        "security",
        title,
        key,
    )
    assert (draft.file, draft.line) == ("src/a.py", 9)


def test_header_without_a_tool_is_the_rule() -> None:
    body = "## Unused variable\n\nUnused import x."
    (draft,) = PARSER.parse(Comment(CommentKind.INLINE, "x", body, "a.ts", 2)).findings
    assert (draft.title, draft.key) == ("Unused variable", "")


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("ghas.setup-notice.md", CommentKind.ISSUE, "code-scanning notice, not a finding"),
        ("ghas.codeql-alert.md", CommentKind.REVIEW, "code-scanning notice, not a finding"),
    ],
)
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(name, kind) == Parsed(skipped=(reason,))


@pytest.mark.parametrize(
    ("body", "kind", "reason"),
    [
        ("", CommentKind.REVIEW, "empty code-scanning review body"),
        ("[Show more details](https://x/code-scanning/1)", CommentKind.INLINE,
         "code-scanning comment with no rule or message"),
    ],
)  # fmt: skip
def test_empty_bodies(body: str, kind: CommentKind, reason: str) -> None:
    assert PARSER.parse(Comment(kind, "x", body, "a.py", 1)) == Parsed(skipped=(reason,))
