"""The generic reader (bots without a reader of their own) and who-wrote-what (`authors`)."""

from __future__ import annotations

import pytest

from comment_fixtures import INLINE, ISSUE, REVIEW, drafts, parse
from review_quorum.ingest.bots import BY_NAME, PARSERS, Comment, CommentKind, Parsed
from review_quorum.ingest.bots.authors import (
    HUMAN,
    KODUS_HINT,
    OWN,
    Attribution,
    Author,
    generic,
    resolve,
)
from review_quorum.ingest.bots.generic import NO_FINDINGS, GenericParser

BOT = GenericParser("graphite-app")


def test_heading_title_severity_line_and_suggestion() -> None:
    parsed = parse(BOT, "generic.inline-labelled.md", INLINE, "src/ledger/export.py", 12)
    assert drafts(parsed) == [
        ("high", "error_handling", 0.6, "src/ledger/export.py", 12, None,
         "Unbounded retry on export"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.suggestion == "for attempt in range(3):"
    assert draft.body == (
        "The exporter retries every failed page forever, so one bad row stalls the nightly job."
    )


@pytest.mark.parametrize(
    ("text", "severity", "title"),
    [
        ("P2: The total column index is fixed. It moves.", "medium",
         "The total column index is fixed"),
        ("[nitpick] Rename `tmp` to `pending`.", "low", "Rename tmp to pending"),
        ("<!-- **Critical Severity** -->\nThe refund is booked twice.", "critical",
         "The refund is booked twice"),
        ("**Refund booked twice**\n\nThe handler runs on retries too.", "medium",
         "Refund booked twice"),
        ("🔴 The refund is booked twice.", "high", "The refund is booked twice"),
        ("**High Severity**\n\nThe refund is booked twice.", "high", "The refund is booked twice"),
        ("[info] Consider a named constant.", "info", "Consider a named constant"),
    ],
)  # fmt: skip
def test_inline_severity_labels_and_titles(text: str, severity: str, title: str) -> None:
    (draft,) = BOT.parse(Comment(INLINE, "graphite-app", text, "a.py", 4)).findings
    assert (draft.severity.label, draft.title) == (severity, title)


def test_review_body_headings_and_finding_lines() -> None:
    headed = parse(BOT, "generic.review-headings.md", REVIEW)
    lines = parse(BOT, "generic.review-lines.md", ISSUE)
    assert drafts(headed) + drafts(lines) == [
        ("high", "other", 0.0, "src/ledger/api.py", 40, None, "Refund id parsed as float"),
        ("medium", "other", 0.0, "src/ledger/report.py", 30, None,
         "totals are rounded before summing"),
        ("low", "documentation", 0.3, "src/ledger/cli.py", 4, None, "typo in the help text"),
    ]  # fmt: skip
    assert all(d.from_summary for d in headed.findings + lines.findings)


@pytest.mark.parametrize(
    ("name", "kind", "reason"),
    [
        ("generic.review-started.md", ISSUE, "graphite-app review-started notice, not a finding"),
        ("codemetrics.trial.md", ISSUE, "graphite-app subscription notice, not a finding"),
        ("sonarqube.quality-gate.md", ISSUE, "graphite-app quality-gate report, not a finding"),
        ("greptile.review-summary.md", REVIEW, "graphite-app review summary, not a finding"),
        ("codex.usage-limit.md", ISSUE, "graphite-app usage-limit notice, not a finding"),
        ("claude.status.md", ISSUE, f"graphite-app {NO_FINDINGS}"),
    ],
)
def test_bodies_without_findings_say_what_they_were(
    name: str, kind: CommentKind, reason: str
) -> None:
    assert parse(BOT, name, REVIEW if kind == REVIEW else ISSUE) == Parsed(skipped=(reason,))


def test_empty_comments() -> None:
    assert BOT.parse(Comment(INLINE, "x", "<!-- -->", "a.py", 1)) == Parsed(
        skipped=("graphite-app comment with no text",)
    )
    assert BOT.parse(Comment(ISSUE, "x", "  ")) == Parsed(skipped=("empty graphite-app comment",))


NOBODY = Attribution()
HUMANS = Attribution(include_humans=True)
QODO_AS_TWO = Attribution(logins={"qodo-merge-pro[bot]": "qodo-merge"})
KODUS = Attribution(logins={"octo-dev": "kodus"})
SIGNED = "The total is wrong.\n<!-- kody-codereview -->"
OURS = "<!-- review-quorum:finding ab12 -->\n**Title**"


@pytest.mark.parametrize(
    ("login", "user_type", "body", "attribution", "expected"),
    [
        ("coderabbitai[bot]", "Bot", "x", NOBODY, ("coderabbit", PARSERS["coderabbitai"])),
        ("coderabbitai", "", "x", NOBODY, ("coderabbit", PARSERS["coderabbitai"])),
        ("claude", "User", "x", NOBODY, ("", None)),
        ("graphite-app[bot]", "Bot", "x", NOBODY, ("graphite-app", generic("graphite-app"))),
        ("baz-reviewer", "Bot", "x", NOBODY, ("baz-reviewer", generic("baz-reviewer"))),
        ("octo-dev", "User", "x", HUMANS, ("octo-dev", generic("octo-dev"))),
        ("octo-dev", "User", SIGNED, KODUS, ("kodus", BY_NAME["kodus"])),
        ("qodo-merge-pro[bot]", "Bot", "x", QODO_AS_TWO, ("qodo-merge", PARSERS["qodo-merge-pro"])),
        ("qodo-code-review[bot]", "Bot", "x", QODO_AS_TWO, ("qodo", PARSERS["qodo-code-review"])),
        ("octo-dev", "User", "x", Attribution(bot="greptile"), ("greptile", BY_NAME["greptile"])),
        ("Copilot", "Bot", "x", Attribution(bot="team"), ("team", PARSERS["copilot"])),
        ("octo-dev", "User", "x", Attribution(bot="team"), ("team", generic("team"))),
        ("github-actions[bot]", "Bot", OURS, Attribution(bot="t"), ("", None)),
        ("quorum-app[bot]", "Bot", OURS, Attribution(own_login="quorum-app[bot]"), ("", None)),
        # A marker is ours only in a comment by our login that opens with it.
        ("Copilot", "Bot", OURS, Attribution(bot="t"), ("t", PARSERS["copilot"])),
        ("quorum-app[bot]", "Bot", OURS, NOBODY, ("quorum-app", generic("quorum-app"))),
        ("github-actions[bot]", "Bot", f"x\n{OURS}", NOBODY,
         ("github-actions", generic("github-actions"))),
    ],
)  # fmt: skip
def test_authors(
    login: str, user_type: str, body: str, attribution: Attribution, expected: tuple[object, ...]
) -> None:
    author = resolve(login, user_type, body, attribution, PARSERS, BY_NAME)
    assert (author.bot, author.parser) == expected


def test_reasons_for_comments_that_are_not_read() -> None:
    assert resolve("octo-dev", "User", "x", NOBODY, PARSERS, BY_NAME) == Author("", None, HUMAN)
    assert resolve("octo-dev", "User", SIGNED, NOBODY, PARSERS, BY_NAME) == Author(
        "", None, HUMAN + KODUS_HINT
    )
    ours = "<!-- review-quorum:summary -->\r\nSummary"
    assert resolve("github-actions[bot]", "Bot", ours, HUMANS, PARSERS, BY_NAME) == Author(
        "", None, OWN
    )
    quoted = "Summary\n<!-- review-quorum:summary -->"
    assert resolve("octo-dev", "User", quoted, HUMANS, PARSERS, BY_NAME).bot == "octo-dev"
    assert resolve("octo-dev", "User", ours, HUMANS, PARSERS, BY_NAME).bot == "octo-dev"
