"""CodeAnt: "Nitpicks" review areas located by diff anchors, and its status comments."""

from __future__ import annotations

import hashlib

from comment_fixtures import INLINE, ISSUE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.codeant import PARSER


def test_nitpicks_are_low_findings_located_by_their_diff_anchor() -> None:
    parsed = parse(PARSER, "codeant.nitpicks.md", ISSUE)
    assert drafts(parsed) == [
        ("low", "other", 0.0, "", 18, 21, "Page loop bound"),
        ("low", "maintainability", 0.8, "", 3, None, "Unused import"),
    ]
    sha = hashlib.sha256(b"src/ledger/export.py").hexdigest()
    assert [d.diff_anchor for d in parsed.findings][0] == sha
    assert [(d.from_summary, d.key, d.body) for d in parsed.findings] == [
        (True, "1", "The export loop may stop one page early."),
        (True, "2", "The os import is never used."),
    ]


def test_status_and_summary_comments() -> None:
    assert parse(PARSER, "codeant.reviewing.md", ISSUE) == Parsed(
        skipped=("CodeAnt review-started notice, not a finding",)
    )
    assert parse(PARSER, "codeant.sequence-diagram.md", ISSUE) == Parsed(
        skipped=("CodeAnt pull-request summary, not a finding",)
    )


def test_inline_comments_are_prose() -> None:
    parsed = parse(PARSER, "generic.inline-priority.md", INLINE, "src/ledger/receipt.py", 7)
    assert [(d.severity.label, d.title) for d in parsed.findings] == [
        ("medium", "The receipt template hard-codes the index of the total column")
    ]
