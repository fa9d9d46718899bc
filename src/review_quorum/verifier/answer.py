"""Reading a verifier's answer, and the rules quorum enforces on it whatever the model says.

The answer's fields map one to one onto seed 000's verdict (`scoring.confidence` scores
them unchanged), plus `cited_lines`. Enforced here: an entry for an id that was not asked
about is ignored; an answer that is not the schema is no verdict (never a dismissal);
`context_completeness: none` cannot come with `direct` evidence (it becomes
circumstantial); and DISMISSED stands only when it cites lines that exist in the window
sent and are code (not blank, not a comment, not a lone string): otherwise it counts as
LIKELY. Only the enums and the cited lines feed the score; `reason` is text to show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

import msgspec

from review_quorum.scoring.confidence.attach import AttachedVerdict
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)
from review_quorum.verifier.request import Window

REASON_CAP = 1000


class AnswerItem(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One entry of the answer schema (`request.ANSWER_SCHEMA`)."""

    id: str
    verdict: Literal["CONFIRMED", "LIKELY", "DISMISSED"]
    severity: Literal["high", "medium", "low"]
    evidence_strength: Literal["direct", "circumstantial", "speculative"]
    context_completeness: Literal["full", "partial", "none"]
    in_changed_code: bool
    cited_lines: list[int]
    reason: str


class Answer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    verdicts: list[AnswerItem]


class NoVerdict(msgspec.Struct, frozen=True):
    """Why an answer gives no verdict (the finding keeps its consensus placement)."""

    reason: str


def read_answer(content: str) -> Answer | NoVerdict:
    """The answer's JSON checked against the schema, or why it is no verdict."""
    try:
        return msgspec.json.decode(content.encode("utf-8", "surrogatepass"), type=Answer)
    except msgspec.ValidationError:
        return NoVerdict("answer does not follow the schema")
    except msgspec.DecodeError:
        return NoVerdict("answer is not valid JSON")


def item_for(answer: Answer, cluster_id: str) -> AnswerItem | NoVerdict:
    """The entry for `cluster_id`; entries for ids not asked about are ignored."""
    for item in answer.verdicts:
        if item.id == cluster_id:
            return item
    return NoVerdict("no verdict for this finding in the answer")


class Enforced(msgspec.Struct, frozen=True):
    """A verdict after quorum's rules, with what the rules changed."""

    verdict: AttachedVerdict
    cited_lines: tuple[int, ...]
    changed: tuple[str, ...]

    @property
    def drops(self) -> bool:
        """Whether this verdict would take the finding out of the review."""
        return self.verdict.verdict is Verdict.DISMISSED or not self.verdict.in_changed_code


def enforce(item: AnswerItem, head: Window, *, source: str, position: str) -> Enforced:
    """The verdict `item` gives once quorum's rules are applied (module docstring)."""
    changed: list[str] = []
    verdict = Verdict(item.verdict)
    evidence = EvidenceStrength(item.evidence_strength)
    context = ContextCompleteness(item.context_completeness)
    cited = tuple(dict.fromkeys(item.cited_lines))
    if context is ContextCompleteness.NONE and evidence is EvidenceStrength.DIRECT:
        evidence = EvidenceStrength.CIRCUMSTANTIAL
        changed.append("direct evidence without context counts as circumstantial")
    if verdict is Verdict.DISMISSED and not cites_code(cited, head):
        verdict = Verdict.LIKELY
        changed.append("a dismissal that cites no code line of the window counts as LIKELY")
    reason = item.reason if len(item.reason) <= REASON_CAP else item.reason[:REASON_CAP]
    attached = AttachedVerdict(
        verdict=verdict,
        severity=VerifierSeverity(item.severity),
        evidence_strength=evidence,
        context_completeness=context,
        in_changed_code=item.in_changed_code,
        issue=reason,
        details="; ".join(changed),
        source=source,
        position=position,
    )
    return Enforced(attached, cited, tuple(changed))


_COMMENT_STARTS = ("#", "//", "/*", "*", "--", ";", "<!--", "%", "'''", '"""', "rem ")
_LONE_STRING = re.compile(r"""^[rbuf]{0,2}(["'`]).*\1[,;]?$""", re.IGNORECASE)


def is_code(text: str) -> bool:
    """Whether a line holds code: not blank, not a comment, not a lone string literal."""
    stripped = text.strip()
    if not stripped or stripped.lower().startswith(_COMMENT_STARTS):
        return False
    return not _LONE_STRING.match(stripped)


def cites_code(cited: Iterable[int], head: Window) -> bool:
    """Whether `cited` names at least one line and every one is a code line of `head`."""
    lines = list(cited)
    return bool(lines) and all(head.has(line) and is_code(head.text_of(line)) for line in lines)


def item_from_record(record: dict[str, Any], cluster_id: str) -> AnswerItem | NoVerdict:
    """A verifier-schema record (as `--verifier-cmd` writes it) as an answer entry."""
    cited = record.get("cited_lines", [])
    if not isinstance(cited, list) or not all(type(line) is int for line in cited):
        return NoVerdict("cited_lines is not a list of line numbers")
    reason = " ".join(str(record.get(key) or "") for key in ("issue", "details")).strip()
    return AnswerItem(
        id=cluster_id,
        verdict=record["verdict"].value,
        severity=record["severity"].value,
        evidence_strength=record["evidence_strength"].value,
        context_completeness=record["context_completeness"].value,
        in_changed_code=record["in_changed_code"],
        cited_lines=cited,
        reason=reason,
    )
