"""The rules quorum enforces on an answer, whatever the model says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from review_quorum.scoring.confidence.verdicts import EvidenceStrength, Verdict
from review_quorum.verifier.answer import (
    Answer,
    AnswerItem,
    NoVerdict,
    cites_code,
    enforce,
    is_code,
    item_for,
    read_answer,
)
from review_quorum.verifier.request import Window

HEAD = Window(
    10,
    (
        "def load(path):",  # 10
        "    # read the whole file",  # 11
        "    data = open(path).read()",  # 12
        "",  # 13
        '    "a docstring-like string"',  # 14
        "    return data",  # 15
    ),
)


FIELDS: dict[str, Any] = {
    "id": "f1",
    "verdict": "DISMISSED",
    "severity": "medium",
    "evidence_strength": "direct",
    "context_completeness": "full",
    "in_changed_code": True,
    "cited_lines": [12],
    "reason": "the file is closed by the caller",
}


def item(**change: Any) -> AnswerItem:
    return AnswerItem(**{**FIELDS, **change})


def enforced(**change: Any) -> Verdict:
    return enforce(item(**change), HEAD, source="verifier", position="f1").verdict.verdict


def test_a_dismissal_citing_code_lines_of_the_window_stands() -> None:
    assert enforced() is Verdict.DISMISSED
    assert enforced(cited_lines=[12, 15]) is Verdict.DISMISSED


@pytest.mark.parametrize(
    ("cited", "why"),
    [
        ([], "no line cited"),
        ([99], "a line outside the window"),
        ([11], "a comment"),
        ([13], "a blank line"),
        ([14], "a lone string"),
        ([12, 11], "one of them a comment"),
        ([9], "just before the window"),
    ],
)
def test_a_dismissal_without_cited_code_counts_as_likely(cited: list[int], why: str) -> None:
    result = enforce(item(cited_lines=cited), HEAD, source="verifier", position="f1")
    assert result.verdict.verdict is Verdict.LIKELY, why
    assert result.changed


def test_confirmed_and_likely_need_no_citation() -> None:
    assert enforced(verdict="CONFIRMED", cited_lines=[]) is Verdict.CONFIRMED
    assert enforced(verdict="LIKELY", cited_lines=[]) is Verdict.LIKELY


def test_no_context_cannot_be_direct_evidence() -> None:
    result = enforce(
        item(verdict="CONFIRMED", context_completeness="none"), HEAD, source="v", position="f1"
    )
    assert result.verdict.evidence_strength is EvidenceStrength.CIRCUMSTANTIAL
    partial = enforce(
        item(verdict="CONFIRMED", context_completeness="partial"), HEAD, source="v", position="f1"
    )
    assert partial.verdict.evidence_strength is EvidenceStrength.DIRECT


def test_unknown_ids_are_ignored() -> None:
    answer = Answer([item(id="other"), item(id="f1", verdict="CONFIRMED")])
    found = item_for(answer, "f1")
    assert isinstance(found, AnswerItem) and found.verdict == "CONFIRMED"
    assert item_for(Answer([item(id="other")]), "f1") == NoVerdict(
        "no verdict for this finding in the answer"
    )


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"verdicts": [oops',
        json.dumps({"verdicts": [{"id": "f1", "verdict": "LIKELY"}]}),
        json.dumps({"verdicts": [{**json.loads(json.dumps(FIELDS)), "score": 99}]}),
        json.dumps({"verdicts": [{"id": "f1", "verdict": "WRONG"}]}),
        json.dumps({"verdicts": "none"}),
        json.dumps({"verdicts": [], "extra": 1}),
    ],
)
def test_an_answer_off_the_schema_is_no_verdict(content: str) -> None:
    assert isinstance(read_answer(content), NoVerdict)


def test_a_valid_answer_is_read() -> None:
    content = json.dumps(
        {
            "verdicts": [
                {
                    "id": "f1",
                    "verdict": "LIKELY",
                    "severity": "low",
                    "evidence_strength": "speculative",
                    "context_completeness": "partial",
                    "in_changed_code": False,
                    "cited_lines": [],
                    "reason": "maybe",
                }
            ]
        }
    )
    answer = read_answer(content)
    assert isinstance(answer, Answer) and answer.verdicts[0].severity == "low"


def test_code_lines_are_told_from_comments_and_strings() -> None:
    assert is_code("x = compute()  # with a comment")
    assert is_code("return data")
    assert not is_code("   // a comment")
    assert not is_code(" * javadoc line")
    assert not is_code("'just a string',")
    assert not cites_code([], HEAD)


def test_the_reason_is_kept_as_text_and_capped() -> None:
    result = enforce(
        item(verdict="CONFIRMED", reason="<b>x</b>" * 500), HEAD, source="v", position="f1"
    )
    assert result.verdict.issue.startswith("<b>x</b>")
    assert len(result.verdict.issue) == 1000
