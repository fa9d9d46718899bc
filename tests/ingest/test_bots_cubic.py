"""cubic: P-levels, the confidence metadata, the prompt's location, addressed findings."""

from __future__ import annotations

from comment_fixtures import INLINE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.cubic import PARSER


def test_open_finding() -> None:
    parsed = parse(PARSER, "cubic.inline-open.md", INLINE, "src/ledger/api.py", None)
    assert drafts(parsed) == [
        ("high", "security", 0.3, "src/ledger/api.py", 22, None,
         "The refund endpoint skips the role check, so any signed-in user can refund any "
         "payment"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.confidence == 0.7
    assert draft.key == "0a1b2c3d-0000-4000-8000-123456789abc"
    assert draft.suggestion == '@app.post("/refunds", dependencies=[require_role("finance")])'
    assert draft.body.startswith("The refund endpoint skips the role check")
    assert "Check if this issue is valid" not in draft.body


def test_the_comment_line_wins_over_the_prompt() -> None:
    parsed = parse(PARSER, "cubic.inline-open.md", INLINE, "src/ledger/api.py", 25)
    assert [d.line for d in parsed.findings] == [25]


def test_an_addressed_finding_is_not_open() -> None:
    assert parse(PARSER, "cubic.inline-addressed.md", INLINE, "CHANGELOG.md", 3) == Parsed(
        skipped=("cubic finding addressed in abc1234, not an open finding",)
    )
