"""Labels: which findings are real, in the formats `quorum evaluate` and `calibrate` read.

The registry is literal: `review-bots` (review-bots-dev units with golden.jsonl and
reviewed.json beside them), `owasp` (an OWASP Benchmark expectedresults CSV), `jsonl`
(generic line labels). `detect` picks one from the file's name and first bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from review_quorum.errors import InputError
from review_quorum.labels import lines, owasp, review_bots
from review_quorum.labels.base import Kept, Labels, Metrics, Run, read_label_file

FORMATS = ("review-bots", "owasp", "jsonl")
TOLERANCE = lines.TOLERANCE

__all__ = ["FORMATS", "TOLERANCE", "Kept", "Labels", "Metrics", "Run", "detect", "load"]


def detect(path: Path) -> str:
    """The label format of `path`, from its extension and its first line."""
    if path.suffix.lower() == ".csv":
        return "owasp"
    head = read_label_file(path).data.split(b"\n", 1)[0]
    return "review-bots" if b'"judge"' in head and b'"unit"' in head else "jsonl"


def load(
    path: Path,
    label_format: str | None = None,
    *,
    judge: str | None = None,
    ignore_rules: Sequence[str] = (),
    tolerance: int = lines.TOLERANCE,
    any_category: bool = False,
) -> Labels:
    """Read the labels at `path` in `label_format` (detected when None)."""
    chosen = label_format or detect(path)
    if chosen == "review-bots":
        return review_bots.load(path, judge)
    if chosen == "owasp":
        return owasp.load(path)
    if chosen == "jsonl":
        return lines.load(path, ignore_rules, tolerance=tolerance, any_category=any_category)
    raise InputError(str(path), "", f"unknown label format {chosen!r} (expected {FORMATS})")
