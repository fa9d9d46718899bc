"""Augment: the opening location, the stated severity, other locations."""

from __future__ import annotations

from comment_fixtures import INLINE, ISSUE, drafts, parse
from review_quorum.ingest.bots import Parsed
from review_quorum.ingest.bots.augment import PARSER
from review_quorum.ingest.bots.generic import NO_FINDINGS


def test_severity_line_and_other_locations() -> None:
    parsed = parse(
        PARSER, "augment.inline-other-locations.md", INLINE, "src/ledger/webhooks.py", 18
    )
    assert drafts(parsed) == [
        ("high", "other", 0.0, "src/ledger/webhooks.py", 18, None,
         "The webhook handler accepts requests without a signature header, so anyone can post "
         "refunds"),
    ]  # fmt: skip
    (draft,) = parsed.findings
    assert draft.related == (("src/ledger/webhooks.py", 31, None), ("src/ledger/api.py", 12, None))
    assert draft.body == (
        "The webhook handler accepts requests without a signature header, so anyone can post "
        "refunds."
    )


def test_the_opening_location_stands_in_for_a_missing_one() -> None:
    parsed = parse(PARSER, "augment.inline-low.md", INLINE)
    assert drafts(parsed) == [
        ("low", "other", 0.0, "src/ledger/cli.py", 4, None,
         'The help text says "refound" instead of "refund"'),
    ]  # fmt: skip


def test_bodies_are_read_like_any_bot() -> None:
    assert parse(PARSER, "augment.inline-low.md", ISSUE) == Parsed(
        skipped=(f"augment {NO_FINDINGS}",)
    )
