"""A deliberately naive, quadratic implementation of SPEC section 3, written from the text
of the rules alone, for differential testing of the real engine. Not for production."""

from __future__ import annotations

import re
from collections.abc import Sequence

from review_quorum.model import ConsensusFinding, ConsensusLevel, NormalizedFinding

STOPWORDS = {
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "if", "in", "is",
    "it", "its", "of", "on", "or", "should", "the", "this", "that", "to", "with", "would",
}  # fmt: skip


def tokens(title: str) -> set[str]:
    words = re.findall(r"[A-Za-z0-9_]+", title.lower())
    return {
        word
        for word in words
        if (word[0].isalpha() or word[0] == "_") and len(word) >= 3 and word not in STOPWORDS
    }


def same_issue(a: NormalizedFinding, b: NormalizedFinding, window: int, overlap: float) -> bool:
    if a.evidence.file != b.evidence.file or a.category != b.category:
        return False
    if a.evidence.line is not None and b.evidence.line is not None:
        return abs(a.evidence.line - b.evidence.line) <= window
    left, right = tokens(a.title), tokens(b.title)
    union = left | right
    similarity = len(left & right) / len(union) if union else 0.0
    return similarity >= overlap


def level_of(score: float) -> ConsensusLevel:
    if score >= 0.66:
        return ConsensusLevel.CONFIRMED
    if score >= 0.33:
        return ConsensusLevel.NEEDS_VERIFICATION
    return ConsensusLevel.UNVERIFIED


def naive_consensus(
    findings: Sequence[NormalizedFinding],
    bots_ran: int | None = None,
    line_window: int = 3,
    title_overlap: float = 0.5,
) -> list[ConsensusFinding]:
    groups: list[list[NormalizedFinding]] = []
    for finding in findings:
        for group in groups:
            if same_issue(group[0], finding, line_window, title_overlap):
                group.append(finding)
                break
        else:
            groups.append([finding])
    ran = bots_ran if bots_ran is not None else len({f.bot for f in findings})
    ran = max(ran, 1)
    result = []
    for group in groups:
        detected = tuple(sorted({f.bot for f in group}))
        lines = [f.evidence.line for f in group if f.evidence.line is not None]
        title = group[0].title
        severity = group[0].severity
        for member in group[1:]:
            if len(member.title) > len(title):
                title = member.title
            if member.severity > severity:
                severity = member.severity
        confidence = max(min(max(f.confidence, 0.0), 1.0) for f in group)
        ratio = min(len(detected) / ran, 1.0)
        score = ratio * confidence
        result.append(
            ConsensusFinding(
                file=group[0].evidence.file,
                line=min(lines) if lines else None,
                category=group[0].category,
                title=title,
                severity=severity,
                detected_by=detected,
                bots_ran=ran,
                agreement_ratio=ratio,
                max_confidence=confidence,
                consensus_score=score,
                level=level_of(score),
                members=tuple(group),
            )
        )
    # Stable sorts, least significant key first.
    result.sort(key=lambda f: (f.line is None, f.line or 0))
    result.sort(key=lambda f: f.file)
    result.sort(key=lambda f: f.severity, reverse=True)
    result.sort(key=lambda f: f.consensus_score, reverse=True)
    return result
