"""`score_findings` equals a direct reading of SPEC 4, on random inputs (Hypothesis).

The reference below is written from the specification's text, one rule per line, with no
lookup table, no packing and no C-level tricks; the engine must agree with it exactly,
cap included.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from review_quorum.scoring.confidence import (
    Category,
    ContextCompleteness,
    EvidenceStrength,
    FindingInput,
    Verdict,
    VerifierSeverity,
    score_findings,
)

RANK = {"high": 3, "medium": 2, "low": 1}
EVIDENCE = {"direct": 18, "circumstantial": 8, "speculative": -4}
CONTEXT = {"full": 12, "partial": 4, "none": -10}


def reference_score(item: FindingInput) -> tuple[int, int]:
    """(score, subtotal) per SPEC 4 steps 0-4."""
    if not (item.in_diff and item.in_changed_code) or item.verdict == "DISMISSED":
        return 0, 0
    base = 70 if item.verdict == "CONFIRMED" else 40
    subtotal = base + EVIDENCE[item.evidence_strength] + CONTEXT[item.context_completeness]
    distance = abs(RANK[item.drafter_severity] - RANK[item.verifier_severity])
    concordance = {0: 5, 1: 0, 2: -8}[distance]
    return min(max(subtotal + concordance, 0), 100), subtotal


def reference_place(item: FindingInput, score: int, threshold: int) -> tuple[str, bool]:
    """(disposition, forced) per the posting rules 1-7, first match wins."""
    believed = item.verdict in ("CONFIRMED", "LIKELY")
    if not (item.in_diff and item.in_changed_code):
        return "dropped", False
    if item.verdict == "DISMISSED" and item.category != "security":
        return "dropped", False
    if believed and item.category == "security":
        return "inline", True
    if believed and item.verifier_severity == "high":
        return "inline", True
    if believed and score >= threshold:
        return "inline", False
    if believed and score >= 30:
        return "summary", False
    if believed and item.verifier_severity == "medium":
        return "summary", False
    if item.verdict == "DISMISSED" and item.category == "security":
        return "audit", False
    return "dropped", False


def reference(items: list[FindingInput], threshold: int, cap: int) -> list[tuple[int, str, bool]]:
    rows: list[list[Any]] = []
    for item in items:
        score, subtotal = reference_score(item)
        rows.append([score, subtotal, *reference_place(item, score, threshold)])
    candidates = [i for i, row in enumerate(rows) if row[2] == "inline" and not row[3]]

    def cap_key(index: int) -> tuple[int, ...]:
        item = items[index]
        score, subtotal = rows[index][0], rows[index][1]
        confirmed = int(item.verdict == "CONFIRMED")
        evidence = EVIDENCE[item.evidence_strength]
        context = CONTEXT[item.context_completeness]
        return (-score, -confirmed, -subtotal, -evidence, -context, index)

    for index in sorted(candidates, key=cap_key)[cap:]:
        rows[index][2] = "summary"
    return [(row[0], row[2], row[3]) for row in rows]


findings = st.builds(
    FindingInput,
    file=st.sampled_from(["a.py", "b.py"]),
    line=st.integers(1, 50),
    category=st.sampled_from(list(Category)),
    verdict=st.sampled_from(list(Verdict)),
    evidence_strength=st.sampled_from(list(EvidenceStrength)),
    context_completeness=st.sampled_from(list(ContextCompleteness)),
    drafter_severity=st.sampled_from(list(VerifierSeverity)),
    verifier_severity=st.sampled_from(list(VerifierSeverity)),
    in_diff=st.booleans(),
    in_changed_code=st.booleans(),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    items=st.lists(findings, max_size=40),
    threshold=st.integers(30, 100),
    cap=st.integers(0, 8),
)
def test_engine_equals_the_reference(items: list[FindingInput], threshold: int, cap: int) -> None:
    report = score_findings(items, post_threshold=threshold, comment_cap=cap)
    got = [(f.result.score, f.result.disposition.value, f.result.forced) for f in report.findings]
    assert got == reference(items, threshold, cap)
    groups = {"inline": report.inline, "summary": report.summary}
    groups |= {"audit": report.audit, "dropped": report.dropped}
    for name, members in groups.items():
        assert all(f.result.disposition == name for f in members)
    assert sorted(f.position for group in groups.values() for f in group) == list(range(len(items)))
    non_forced = [f for f in report.inline if not f.result.forced]
    assert len(non_forced) <= cap
