"""Qodo: Code Review by Qodo items (banners, status, categories) and Qodo Merge tables."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.qodo import MERGE_CATEGORIES, PARSER, REVIEW_CATEGORIES
from review_quorum.ingest.categories import CATEGORIES as VOCABULARY
from review_quorum.model import Severity

ISSUE, INLINE = CommentKind.ISSUE, CommentKind.INLINE
H, M, L = Severity.HIGH, Severity.MEDIUM, Severity.LOW
EXPORT_ANCHOR = "d0070edc93e64d8ed063544f027c0c4787d1982671ef1133654f69c419a65e37"
UNKNOWN_ANCHOR = "3aa6e3b20c92fb9417f4abc95c62a7ce503a150acdeae76e092871a668b48fc2"


def parse(name: str, kind: CommentKind = ISSUE, login: str = "qodo-code-review[bot]") -> Parsed:
    body = (FIXTURES / "comments" / name).read_text(encoding="utf-8")
    path, line = ("src/inline.py", 3) if kind is INLINE else ("", None)
    return PARSER.parse(Comment(kind, login, body, path, line))


def rows(parsed: Parsed) -> list[tuple[object, ...]]:
    return [
        (d.severity, d.category, d.title, d.file, d.line, d.end_line, d.key, d.diff_anchor)
        for d in parsed.findings
    ]


def test_mapping_tables_use_the_shared_vocabulary() -> None:
    assert set(REVIEW_CATEGORIES.values()) | set(MERGE_CATEGORIES.values()) <= set(VOCABULARY)


def test_code_review_open_and_closed_items() -> None:
    parsed = parse("qodo.code-review-open-findings.md")
    assert rows(parsed) == [
        (H, "logic_error", "Refund posted twice on retry", "src/ledger/refunds.py", 40, 46,
         "1", ""),
        (M, "security", "Webhook secret compared with ==", "src/ledger/webhooks.py", 18, None,
         "3", ""),
        (M, "error_handling", "Retry loop has no upper bound", "", None, None, "5", ""),
    ]  # fmt: skip
    assert all(draft.from_summary for draft in parsed.findings)
    assert parsed.skipped == (
        "Qodo finding 2 'Unused import left behind' is marked resolved",
        "Qodo finding 4 'Timeout not configurable' is marked dismissed",
    )


def test_inline_qodo_item_falls_back_to_the_comment_location() -> None:
    body = (
        '<img src="https://img.shields.io/badge/Medium-634FD1" alt="Remediation recommended">\n'
        "<details>\n<summary>  1.  Loop never ends <code>🐞 Bug</code> "
        "<code>≡ Correctness</code></summary>\n</details>"
    )
    parsed = PARSER.parse(Comment(INLINE, "qodo-code-review", body, "src/inline.py", 3))
    assert rows(parsed) == [
        (M, "logic_error", "Loop never ends", "src/inline.py", 3, None, "1", "")
    ]
    assert parsed.findings[0].from_summary is False


@pytest.mark.parametrize(
    ("banner", "severity"),
    [
        ('<img src="https://img.shields.io/badge/Low-634FD1" alt="">', L),
        ('<img src="https://img.shields.io/badge/High-634FD1" alt="something else">', H),
        ('<img src="https://www.qodo.ai/action-required.png" alt="Action required">', H),
        ('<img src="https://www.qodo.ai/divider.svg" alt="Grey Divider">', M),
    ],
)
def test_banner_forms(banner: str, severity: Severity) -> None:
    body = f"<h3>Code Review by Qodo</h3>\n{banner}\n<details>\n"
    body += "<summary>  1.  T <code>🐞 Bug</code></summary>"
    (draft,) = PARSER.parse(Comment(ISSUE, "qodo-code-review", body)).findings
    assert (draft.severity, draft.category) == (severity, "other")


def test_item_without_a_title_is_skipped() -> None:
    body = "<h3>Code Review by Qodo</h3>\n<details>\n<summary>  1.  <code>🐞 Bug</code></summary>"
    assert PARSER.parse(Comment(ISSUE, "qodo-code-review", body)) == Parsed(
        skipped=("Qodo finding 1 has no title",)
    )


def test_merge_code_suggestions() -> None:
    parsed = parse("qodo.merge-code-suggestions.md", login="qodo-merge-pro[bot]")
    assert rows(parsed) == [
        (H, "security", "Escape the account name in the report", "src/ledger/report.py", 70, 72,
         "1", ""),
        (M, "logic_error", "Handle an empty month", "src/ledger/report.py", 81, None, "2", ""),
        (L, "logic_error", "Keep the sort stable", "src/ledger/export.py", 15, 16, "3", ""),
        (L, "maintainability", "Name the magic number", "src/ledger/sync.py", 5, None, "4", ""),
    ]  # fmt: skip
    assert parsed.findings[1].suggestion == (
        "-    average = total / len(entries)\n+    average = total / len(entries) if entries else 0"
    )
    assert parsed.findings[3].suggestion == ""


def test_merge_reviewer_guide_focus_areas_carry_diff_anchors() -> None:
    parsed = parse("qodo.merge-reviewer-guide.md", login="qodo-merge-pro[bot]")
    assert rows(parsed) == [
        (M, "resource_leak", "Resource Leak", "", 21, 24, "", EXPORT_ANCHOR),
        (M, "logic_error", "Possible Bug", "", 9, None, "", UNKNOWN_ANCHOR),
    ]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ((FIXTURES / "comments" / "qodo.merge-description.md").read_text(encoding="utf-8"),
         "Qodo comment with no findings (description, compliance or status)"),
        ("## PR Code Suggestions ✨\n\nNo code suggestions found for the PR.",
         "Qodo code suggestions table with no suggestions"),
        ("## PR Reviewer Guide 🔍\n<table><tr><td>No focus</td></tr></table>",
         "Qodo reviewer guide with no focus areas, not a finding"),
        ("<h3>Code Review by Qodo</h3>\nNo findings.",
         "Qodo comment with no findings (description, compliance or status)"),
    ],
)  # fmt: skip
def test_not_findings(body: str, reason: str) -> None:
    assert PARSER.parse(Comment(ISSUE, "qodo-merge-pro", body)) == Parsed(skipped=(reason,))


def test_suggestion_without_a_location_is_global_and_odd_guide_blocks_are_ignored() -> None:
    table = (
        "## PR Code Suggestions ✨\n<table><tr><td rowspan=1>Typo</td>\n<td>\n"
        "<details><summary>Fix the spelling</summary>\n\n**Spelling.**\n</details></td>"
        "<td align=center>Low\n</td></tr></table>"
    )
    parsed = PARSER.parse(Comment(ISSUE, "qodo-merge-pro", table))
    assert rows(parsed) == [(L, "documentation", "Fix the spelling", "", None, None, "1", "")]
    guide = (FIXTURES / "comments" / "qodo.merge-reviewer-guide.md").read_text(encoding="utf-8")
    guide = guide.replace("<tr><td>🧪", "<tr><td><details><summary>Tests</summary></details>🧪")
    assert len(PARSER.parse(Comment(ISSUE, "qodo-merge-pro", guide)).findings) == 2
