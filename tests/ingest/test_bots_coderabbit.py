"""CodeRabbit: header eras, titles, prompt ranges, suggestions, review-body sections, skips."""

from __future__ import annotations

import pytest

import comment_fixtures as fixtures
from review_quorum.ingest.bots import Comment, CommentKind, Parsed
from review_quorum.ingest.bots.coderabbit import CATEGORIES, PARSER, Header, parse_header
from review_quorum.ingest.categories import CATEGORIES as VOCABULARY
from review_quorum.model import Severity

INLINE, REVIEW, ISSUE = CommentKind.INLINE, CommentKind.REVIEW, CommentKind.ISSUE
H, M, L, C = Severity.HIGH, Severity.MEDIUM, Severity.LOW, Severity.CRITICAL


def parse(
    name: str,
    kind: CommentKind = INLINE,
    path: str = "",
    line: int | None = None,
    start_line: int | None = None,
) -> Parsed:
    return fixtures.parse(PARSER, name, kind, path, line, start_line)


def summary(parsed: Parsed) -> list[tuple[object, ...]]:
    return [
        (d.severity, d.category, d.title, d.file, d.line, d.end_line, d.from_summary)
        for d in parsed.findings
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("_:warning: Potential issue_", Header(None, "potential issue", None)),
        ("_:broom: Nitpick (assertive)_", Header(None, "nitpick", None)),
        ("_⚠️ Potential issue_ | _🟠 Major_", Header(H, "potential issue", None)),
        ("_🛠️ Refactor suggestion_ | _🟠 Major_", Header(H, "refactor suggestion", None)),
        ("_🧹 Nitpick_ | _🔵 Trivial_", Header(L, "nitpick", None)),
        (
            "_⚠️ Potential issue_ | _🔴 Critical_ | _⚡ Quick win_",
            Header(C, "potential issue", None),
        ),
        (
            "_🎯 Functional Correctness_ | _🟡 Minor_ | _🏗️ Heavy lift_",
            Header(M, None, "logic_error"),
        ),
        ("_📐 Maintainability & Code Quality_ | _🔵 Trivial_", Header(L, None, "maintainability")),
        ("_🗄️ Data Integrity &amp; Integration_", Header(None, None, "data_integrity")),
        ("_🩺 Stability & Availability_ | _🟠 Major_", Header(H, None, "error_handling")),
        ("_🔒 Security & Privacy_ | _🔴 Critical_", Header(C, None, "security")),
        ("_🚀 Performance & Scalability_ | _💤 Low value_", Header(None, None, "performance")),
        ("_⚖️ Poor tradeoff_", Header(None, None, None)),
        ("_Something new_ | _🟠 Major_", Header(H, None, None)),
        ("_Just italic prose_", None),
        ("**Bold title**", None),
        ("plain text | with a pipe", None),
        ("__", None),
    ],
)
def test_parse_header(line: str, expected: Header | None) -> None:
    assert parse_header(line) == expected


def test_every_category_maps_into_the_shared_vocabulary() -> None:
    assert set(CATEGORIES.values()) <= set(VOCABULARY)


@pytest.mark.parametrize(
    ("name", "path", "line", "expected", "suggestion"),
    [
        (
            "coderabbit.inline-2024-shortcode.md",
            "src/ledger/accounts.py",
            12,
            (H, "logic_error", "Guard against an empty ledger before reading the first entry",
             "src/ledger/accounts.py", 12, None, False),
            "",
        ),
        (
            "coderabbit.inline-2024-nitpick-profile.md",
            "src/ledger/retry.py",
            4,
            (L, "maintainability", "Prefer a named constant for the retry budget",
             "src/ledger/retry.py", 4, None, False),
            "",
        ),
        (
            "coderabbit.inline-2025-committable.md",
            "src/ledger/money.py",
            14,
            (M, "maintainability", "Collapse the duplicated amount parsing into one helper",
             "src/ledger/money.py", 10, 14, False),
            "def parse_fee(text: str) -> Decimal:\n    return parse_amount(text)",
        ),
        (
            "coderabbit.inline-2026-effort.md",
            "src/ledger/export.py",
            33,
            (C, "logic_error", "Close the database cursor when the export fails",
             "src/ledger/export.py", 33, None, False),
            "-    cursor = conn.cursor()\n-    write_rows(cursor)\n"
            "+    with conn.cursor() as cursor:\n+        write_rows(cursor)",
        ),
        (
            "coderabbit.inline-2026-category.md",
            "src/ledger/posting.py",
            60,
            (H, "data_integrity", "Write the balance and the journal row in one transaction",
             "src/ledger/posting.py", 51, 60, False),
            "",
        ),
        (
            "coderabbit.inline-security-cwe.md",
            "src/ledger/backup.py",
            9,
            (C, "security", "Pass the archive name as an argument list, not through the shell",
             "src/ledger/backup.py", 9, None, False),
            "",
        ),
        (
            "coderabbit.inline-cwe-label-upgrades-category.md",
            "src/ledger/http.py",
            22,
            (H, "security", "Drop the API token from the debug log line",
             "src/ledger/http.py", 22, None, False),
            "",
        ),
    ],
)  # fmt: skip
def test_inline_findings(
    name: str, path: str, line: int, expected: tuple[object, ...], suggestion: str
) -> None:
    parsed = parse(name, INLINE, path, line)
    assert parsed.skipped == ()
    assert summary(parsed) == [expected]
    assert parsed.findings[0].suggestion == suggestion


def test_rest_start_line_wins_over_the_prompt_range() -> None:
    parsed = parse("coderabbit.inline-2026-category.md", INLINE, "src/ledger/posting.py", 58, 55)
    assert (parsed.findings[0].line, parsed.findings[0].end_line) == (55, 58)


def test_prompt_for_another_file_is_ignored() -> None:
    parsed = parse("coderabbit.inline-2025-committable.md", INLINE, "src/ledger/other.py", 14)
    assert (parsed.findings[0].line, parsed.findings[0].end_line) == (14, None)


def test_outdated_comment_without_a_line_takes_the_prompt_range() -> None:
    parsed = parse("coderabbit.inline-2025-committable.md", INLINE, "src/ledger/money.py", None)
    assert (parsed.findings[0].line, parsed.findings[0].end_line) == (10, 14)


def test_indicator_comment_supplies_the_type_when_the_header_has_none() -> None:
    body = "_⚡ Quick win_\n\n**Split the function.**\n\n"
    body += "<!-- cr-indicator-types:refactor_suggestion -->"
    parsed = PARSER.parse(Comment(INLINE, "coderabbitai", body, "a.py", 3))
    assert summary(parsed) == [(M, "maintainability", "Split the function", "a.py", 3, None, False)]


def test_title_falls_back_to_the_first_sentence() -> None:
    body = "_🧹 Nitpick_ | _🔵 Trivial_\n\nThe name is vague. Pick a better one."
    parsed = PARSER.parse(Comment(INLINE, "coderabbitai", body, "a.py", 3))
    assert parsed.findings[0].title == "The name is vague"


def test_review_body_sections() -> None:
    parsed = parse("coderabbit.review-outside-diff-and-nitpicks.md", REVIEW)
    assert parsed.skipped == ()
    assert summary(parsed) == [
        (H, "error_handling", "Handle a missing exchange rate instead of crashing the report",
         "src/ledger/report.py", 88, 95, True),
        (M, "performance", "Load the accounts once per report, not once per row",
         "src/ledger/report.py", 120, None, True),
        (L, "maintainability", "Use pathlib for the output path", "src/ledger/cli.py", 12, 14,
         True),
        (L, "maintainability", "Name the fixture after the scenario it builds",
         "tests/test_report.py", 40, 41, True),
        (C, "resource_leak", "Close the database cursor when the export fails",
         "src/ledger/export.py", 33, None, True),
    ]  # fmt: skip
    assert parsed.findings[3].suggestion == "-def data2():\n+def closed_period_ledger():"


def test_severity_grouped_section_gives_the_severity() -> None:
    parsed = parse("coderabbit.review-severity-groups.md", ISSUE)
    assert summary(parsed) == [
        (H, "error_handling", "Retry the upstream call with a bounded backoff",
         "src/ledger/sync.py", 7, 9, True)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("coderabbit.inline-without-header.md", INLINE,
         "no CodeRabbit finding header (_type_ | _severity_) on the first line"),
        ("coderabbit.reply.md", INLINE, "CodeRabbit chat reply, not a finding"),
        ("coderabbit.review-without-findings.md", REVIEW,
         "CodeRabbit review summary with no findings of its own"),
        ("coderabbit.walkthrough.md", ISSUE, "CodeRabbit walkthrough, not a finding"),
        ("coderabbit.status-rate-limit.md", ISSUE,
         "CodeRabbit status notice (rate limit), not a finding"),
    ],
)  # fmt: skip
def test_not_findings(name: str, kind: CommentKind, reason: str) -> None:
    assert parse(name, kind, "a.py" if kind is INLINE else "", 1) == Parsed(skipped=(reason,))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("", "empty CodeRabbit review body"),
        ("> [!IMPORTANT]\n> ## Review skipped\n> Draft detected.",
         "CodeRabbit status notice (review skipped), not a finding"),
        ("> [!NOTE]\n> ## Reviews paused",
         "CodeRabbit status notice (reviews paused), not a finding"),
        ("Some other text", "CodeRabbit comment with no recognised finding layout"),
    ],
)  # fmt: skip
def test_other_bodies(body: str, reason: str) -> None:
    assert PARSER.parse(Comment(ISSUE, "coderabbitai", body)) == Parsed(skipped=(reason,))


def test_header_without_a_title_is_skipped() -> None:
    parsed = PARSER.parse(Comment(INLINE, "coderabbitai", "_🧹 Nitpick_\n\n<!-- only -->", "a.py"))
    assert parsed == Parsed(skipped=("CodeRabbit comment with a header but no title",))


def test_unknown_indicator_type_falls_back_to_medium_other() -> None:
    body = "_⚡ Quick win_\n\n**Look again.**\n\n<!-- cr-indicator-types:mystery -->"
    parsed = PARSER.parse(Comment(INLINE, "coderabbitai", body, "a.py", 3))
    assert summary(parsed) == [(M, "other", "Look again", "a.py", 3, None, False)]


def test_review_entry_without_a_title_is_skipped_and_one_without_a_line_uses_its_prompt() -> None:
    body = "\n".join(
        [
            "<details>",
            "<summary>♻️ Duplicate comments (2)</summary><blockquote>",
            "<details>",
            "<summary>src/a.py (2)</summary><blockquote>",
            "`4-5`: _🧹 Nitpick_ | _🔵 Trivial_",
            "",
            "---",
            "`0`: **Keep the lock while reading.**",
            "<details>",
            "<summary>🤖 Prompt for AI Agents</summary>",
            "```",
            "In `@src/a.py` around lines 7 - 9, hold the lock.",
            "```",
            "</details>",
            "</blockquote></details>",
            "</blockquote></details>",
        ]
    )
    parsed = PARSER.parse(Comment(REVIEW, "coderabbitai", body))
    assert summary(parsed) == [(M, "other", "Keep the lock while reading", "src/a.py", 7, 9, True)]
    assert parsed.skipped == ("CodeRabbit review-body entry for 'src/a.py' has no title",)


def test_a_review_entrys_file_name_is_unescaped() -> None:
    # GitHub shows the summary's text: a file name holding "&" is written "&amp;"
    body = "\n".join(
        [
            "<details>",
            "<summary>🧹 Nitpick comments (1)</summary><blockquote>",
            "<details>",
            "<summary>src/r&amp;d.py (1)</summary><blockquote>",
            "`4-5`: **Close the file.**",
            "",
            "The handle leaks.",
            "</blockquote></details>",
            "</blockquote></details>",
        ]
    )
    parsed = PARSER.parse(Comment(REVIEW, "coderabbitai", body))
    assert [finding.file for finding in parsed.findings] == ["src/r&d.py"]
