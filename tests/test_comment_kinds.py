"""The one vocabulary of comment kinds: both persisted spellings, written in one module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import review_quorum
from conftest import FIXTURES
from review_quorum.comment_kinds import COMMENT_KINDS, CommentKind
from review_quorum.errors import FindingError
from review_quorum.ingest import Source, bots, read
from review_quorum.ingest.bots import base
from review_quorum.model import CommentSource

SRC = Path(review_quorum.__file__).parent
SPELLINGS = re.compile(r"""["'](review[-_]comment|issue[-_]comment)["':]""")


def test_each_kind_keeps_both_persisted_spellings() -> None:
    assert {kind.name: (kind.value, kind.source_kind) for kind in CommentKind} == {
        "INLINE": ("review-comment", "review_comment"),
        "REVIEW": ("review", "review"),
        "ISSUE": ("issue-comment", "issue_comment"),
    }
    assert COMMENT_KINDS == ("review_comment", "issue_comment", "review")


def test_the_parsers_vocabulary_is_the_same_enum() -> None:
    assert base.CommentKind is bots.CommentKind is CommentKind


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("github.pull-request-comments.json", CommentKind.INLINE),
        ("github.pull-request-reviews.json", CommentKind.REVIEW),
        ("github.issue-comments.json", CommentKind.ISSUE),
    ],
)
def test_a_comment_finding_is_named_by_the_value_and_sourced_by_the_source_kind(
    name: str, kind: CommentKind
) -> None:
    path = FIXTURES / "comments" / name
    findings = read(Source(str(path), path.read_bytes())).findings
    assert findings
    for finding in findings:
        assert finding.source is not None
        assert finding.finding_id.startswith(f"{kind.value}:{finding.source.rest_id}")
        assert finding.source.kind == kind.source_kind


def test_a_comment_source_takes_only_the_source_spelling() -> None:
    assert CommentSource("review_comment", 1).kind == "review_comment"
    with pytest.raises(FindingError, match='comment kind "review-comment" is not one of'):
        CommentSource("review-comment", 1)  # type: ignore[arg-type]


def test_no_other_module_spells_a_kind() -> None:
    spelt = {
        path.relative_to(SRC).as_posix()
        for path in SRC.rglob("*.py")
        if SPELLINGS.search(path.read_text(encoding="utf-8"))
    }
    assert spelt == {"comment_kinds.py"}
