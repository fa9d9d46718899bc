"""review-bots-dev labels: units (each tool's distinct issues per pull request) and golden bugs.

The folder holds `units.jsonl` (the labels path), `golden.jsonl` and `reviewed.json`.
Its units are the findings: one run per pull request, each unit a native finding exactly
as the folder's README and issue 9 prescribe (`bot` = tool, `finding_id` = unit, `title` =
text, severity medium, category other, no file and no line), `trigger` units left out,
`bots_ran` = the tools that reviewed that pull request. Scoring follows the README: a kept
item is true when at least half of its units are `tp`, and is credited with the one golden
id most of its `tp` units match (ties: the smallest); recall counts credited core ids.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import orjson

from review_quorum.errors import InputError, shown
from review_quorum.ingest.base import pointer
from review_quorum.labels.base import Kept, Metrics, Run, read_label_file
from review_quorum.model import Evidence, NormalizedFinding, Severity

DEFAULT_JUDGE = "anthropic_claude-opus-4-5-20251101"


class Unit(msgspec.Struct, frozen=True):
    label: str
    golden: tuple[str, ...]


class ReviewBotsLabels(msgspec.Struct):
    """The units of one judge, the core golden ids, and who reviewed each pull request."""

    name: str
    judge: str
    own_findings = True
    units: dict[tuple[str, str, str], Unit] = msgspec.field(default_factory=dict)
    texts: dict[str, list[tuple[str, str, str]]] = msgspec.field(default_factory=dict)
    core: frozenset[str] = frozenset()
    reviewed: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def runs(self, findings: Sequence[NormalizedFinding], bots_ran: int | None) -> list[Run]:
        if findings:
            raise InputError(self.name, "", "review-bots labels carry their own findings")
        return [
            Run(
                pr, tuple(_finding(*unit) for unit in units), len(self.reviewed.get(pr, [])) or None
            )
            for pr, units in sorted(self.texts.items())
        ]

    def repository(self, run: Run) -> str:
        return run.name.split("/", 1)[0]

    def truth(self, run: Run, finding: NormalizedFinding) -> bool | None:
        unit = self.units.get((run.name, finding.bot, finding.finding_id))
        return None if unit is None else unit.label == "tp"

    def score(self, kept: Kept) -> Metrics:
        true = 0
        credited: set[str] = set()
        for run, group in kept:
            units = [self.units[(run.name, f.bot, f.finding_id)] for f in group]
            hits = [unit for unit in units if unit.label == "tp"]
            if hits and 2 * len(hits) >= len(units):
                true += 1
                votes = Counter(golden for unit in hits for golden in unit.golden)
                if votes:
                    credited.add(min(votes, key=lambda golden: (-votes[golden], golden)))
        return Metrics.of(len(kept), true, len(credited & self.core), len(self.core))


def _finding(tool: str, unit: str, text: str) -> NormalizedFinding:
    return NormalizedFinding(tool, unit, Severity.MEDIUM, "other", text, Evidence("", None))


def load(path: Path, judge: str | None = None) -> ReviewBotsLabels:
    """Read units.jsonl at `path` with golden.jsonl and reviewed.json beside it."""
    records = _jsonl(path)
    judges = sorted({str(record.get("judge")) for _, record in records})
    chosen = _choose_judge(judges, judge, path)
    labels = ReviewBotsLabels(f"{path} ({chosen})", chosen)
    for number, record in records:
        if record.get("judge") != chosen or record.get("label") == "trigger":
            continue
        key, unit, text = _unit(record, str(path), f"line {number}")
        labels.units[key] = unit
        labels.texts.setdefault(key[0], []).append((key[1], key[2], text))
    golden = path.with_name("golden.jsonl")
    labels.core = frozenset(
        str(record.get("golden_id")) for _, record in _jsonl(golden) if record.get("core")
    )
    labels.reviewed = _reviewed(path.with_name("reviewed.json"), chosen)
    return labels


def _unit(record: dict[str, Any], path: str, where: str) -> tuple[tuple[str, str, str], Unit, str]:
    """A unit record's key (pull request, tool, unit), label and text; `InputError` at its
    line when a field is missing or not of its type (a label is ``tp`` or ``fp`` here)."""
    for name in ("pr", "tool", "unit", "label", "text"):
        if name not in record:
            raise InputError(path, where, f"missing field {name!r}")
    pr, tool, unit, label, text = (record[n] for n in ("pr", "tool", "unit", "label", "text"))
    golden = record.get("golden") or []
    checks = (
        ("pr", pr, isinstance(pr, str) and pr != "", "a non-empty string"),
        ("tool", tool, isinstance(tool, str) and tool != "", "a non-empty string"),
        ("unit", unit, _number_or_text(unit), "a number or a string"),
        ("label", label, label in ("tp", "fp"), "tp, fp or trigger"),
        ("text", text, isinstance(text, str), "a string"),
        ("golden", golden, _texts(golden), "a list of golden ids"),
    )
    for name, value, right, wanted in checks:
        if not right:
            raise InputError(path, where, f"{name!r} must be {wanted}, not {shown(value)}")
    return (pr, tool, str(unit)), Unit(label, tuple(golden)), text


def _number_or_text(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | str)


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _choose_judge(judges: list[str], wanted: str | None, path: Path) -> str:
    if wanted is None:
        return DEFAULT_JUDGE if DEFAULT_JUDGE in judges else judges[0]
    matches = [judge for judge in judges if wanted.lower() in judge.lower()]
    if len(matches) != 1:
        raise InputError(str(path), "", f"judge {wanted!r} matches {matches or 'none'} of {judges}")
    return matches[0]


def _jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    lines = read_label_file(path).data.splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as err:
            raise InputError(str(path), f"line {number}", f"invalid JSON: {err.msg}") from None
        if not isinstance(record, dict):
            raise InputError(str(path), f"line {number}", "expected a JSON object")
        records.append((number, record))
    return records


def _reviewed(path: Path, judge: str) -> dict[str, list[str]]:
    try:
        document = orjson.loads(read_label_file(path).data)
    except orjson.JSONDecodeError as err:
        raise InputError(str(path), f"line {err.lineno}", f"invalid JSON: {err.msg}") from None
    table = document.get(judge) if isinstance(document, dict) else None
    if not isinstance(table, dict):
        raise InputError(str(path), f"/{judge}", "expected an object of pull requests")
    for pr, tools in table.items():
        if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
            where, value = pointer(judge, pr), shown(tools)
            raise InputError(str(path), where, f"expected a list of tool names, not {value}")
    return table
