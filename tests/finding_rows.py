"""Findings as comparable rows, for reader tests that pin what each record became."""

from __future__ import annotations

from review_quorum.ingest.base import Batch


def rows(batch: Batch) -> list[tuple[object, ...]]:
    """(bot, id, severity, category, title, file, line, end line) per finding, in order."""
    return [
        (
            f.bot,
            f.finding_id,
            f.severity.label,
            f.category,
            f.title,
            f.file,
            f.line,
            f.evidence.end_line,
        )
        for f in batch.findings
    ]
