"""What every label format shares: runs of findings to score, metrics, the label protocol.

A label set says which findings are real. It turns the findings a user gives (or, for
review-bots-dev, the findings its units are) into `Run`s, one consensus each (one pull
request, or everything at once), answers whether one finding is real (`truth`, what
`quorum calibrate` counts), and scores what a policy kept (`score`) by the rule of its
corpus. A kept item is a group of findings: one finding alone, or a cluster's members.
Label files are read as the finding readers read inputs (`read_label_file`): UTF-8 with or
without a byte-order mark, or UTF-16 with one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import msgspec

from review_quorum.errors import InputError
from review_quorum.ingest.base import Source
from review_quorum.model import NormalizedFinding


def read_label_file(path: Path) -> Source:
    """The file at `path` as UTF-8 (`Source` decides the encoding); `InputError` naming it."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(str(path), "", f"cannot read: {err.strerror}") from err
    source = Source(str(path), data)
    source.text()  # bytes that are not UTF-8: an error at their line and column
    return source


class Run(msgspec.Struct, frozen=True):
    """The findings of one consensus (one pull request), and how many bots ran on it."""

    name: str
    findings: tuple[NormalizedFinding, ...]
    bots_ran: int | None = None


Kept = Sequence[tuple[Run, Sequence[NormalizedFinding]]]


class Metrics(msgspec.Struct, frozen=True):
    """How well a policy did: precision, recall and F1, plus TPR and FPR for test cases."""

    kept: int
    true: int
    precision: float
    recall: float
    tpr: float | None = None
    fpr: float | None = None

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    @classmethod
    def of(cls, kept: int, true: int, found: int, wanted: int) -> Metrics:
        precision = true / kept if kept else 0.0
        return cls(kept, true, precision, found / wanted if wanted else 0.0)


class Labels(Protocol):
    """A label set: its runs, each finding's truth, and the score of kept findings."""

    name: str
    own_findings: bool  # the labels are their own findings (no finding files needed)

    def runs(self, findings: Sequence[NormalizedFinding], bots_ran: int | None) -> list[Run]: ...

    def truth(self, run: Run, finding: NormalizedFinding) -> bool | None: ...

    def score(self, kept: Kept) -> Metrics: ...
