"""OWASP Benchmark-style labels: the `expectedresults` CSV of test cases.

Rows are ``test name, category, real vulnerability, CWE`` (``BenchmarkTest00001,sqli,
true,89``); lines starting with ``#`` are comments (the header). A test case is one file
whose name without extension is the test name. A policy flags a test case when it keeps
a finding in that file; TPR is the share of real test cases flagged, FPR the share of
the others, and precision the share of flagged test cases that are real.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import msgspec

from review_quorum.errors import InputError, shown
from review_quorum.labels.base import Kept, Metrics, Run, read_label_file
from review_quorum.model import MAX_CWE, NormalizedFinding


class TestCase(msgspec.Struct, frozen=True):
    name: str
    category: str
    real: bool
    cwe: int


class OwaspLabels(msgspec.Struct):
    """Test cases by name."""

    name: str
    own_findings = False
    cases: dict[str, TestCase] = msgspec.field(default_factory=dict)

    def runs(self, findings: Sequence[NormalizedFinding], bots_ran: int | None) -> list[Run]:
        return [Run("all", tuple(findings), bots_ran)]

    def case(self, finding: NormalizedFinding) -> TestCase | None:
        return self.cases.get(PurePosixPath(finding.evidence.file).stem)

    def truth(self, run: Run, finding: NormalizedFinding) -> bool | None:
        case = self.case(finding)
        return None if case is None else case.real

    def score(self, kept: Kept) -> Metrics:
        flagged = {case.name: case for _, group in kept for f in group if (case := self.case(f))}
        real = sum(1 for case in self.cases.values() if case.real)
        fake = len(self.cases) - real
        hit = sum(1 for case in flagged.values() if case.real)
        metrics = Metrics.of(len(flagged), hit, hit, real)
        tpr = hit / real if real else 0.0
        fpr = (len(flagged) - hit) / fake if fake else 0.0
        return Metrics(metrics.kept, hit, metrics.precision, metrics.recall, tpr, fpr)


def load(path: Path) -> OwaspLabels:
    """Read an expectedresults CSV; a bad row is an `InputError` naming its line."""
    text = read_label_file(path).text()
    labels = OwaspLabels(str(path))
    rows = csv.reader(io.StringIO(text, newline=""))  # lines end in \n, \r\n or \r
    number = 1  # the line a row starts on: a quoted cell may hold line breaks
    try:
        for row in rows:
            start, number = number, rows.line_num + 1
            if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
                continue
            labels.cases[row[0].strip()] = _case(row, str(path), f"line {start}")
    except csv.Error as err:  # a cell over the reader's size limit
        raise InputError(str(path), f"line {rows.line_num}", f"unreadable CSV: {err}") from None
    if not labels.cases:
        raise InputError(str(path), "", "no test cases")
    return labels


def _case(row: list[str], source: str, where: str) -> TestCase:
    if len(row) < 4:
        raise InputError(
            source, where, f"expected 4 columns (name, category, real, CWE), not {len(row)}"
        )
    name, category, real, cwe = (cell.strip() for cell in row[:4])
    if real.lower() not in ("true", "false"):
        raise InputError(source, where, f"'real vulnerability' must be true or false, not {real!r}")
    if not (cwe.isascii() and cwe.isdigit()):  # int() refuses some digits: superscripts
        raise InputError(source, where, f"CWE must be a number, not {cwe!r}")
    digits = cwe.lstrip("0") or "0"  # int() refuses more than 4,300 digits, zeros too
    if len(digits) > len(str(MAX_CWE)) or int(digits) > MAX_CWE:
        raise InputError(source, where, f"CWE must be at most {MAX_CWE}, not {shown(cwe)}")
    return TestCase(name, category, real.lower() == "true", int(digits))
