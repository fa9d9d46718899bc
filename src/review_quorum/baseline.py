"""New versus pre-existing: a review compared with the base branch's findings (SPEC 11).

The base branch's findings (read from any input format, or a saved plan) are clustered as
the head's are, then moved onto the head through the diff: a renamed file takes its new
name, a line its new number, and a line the diff removed or rewrote has no place on head.
Each base cluster then gets its identity (`identity.identities`) from the text of its
line: the diff's base side for a line in a hunk, else the head's text at its new place
(lines outside the hunks are the same on both sides). A head finding whose identity a base
cluster has is pre-existing: `unchanged`, or `updated` when its severity changed; else it is
`new`. A base cluster no head finding matches is `absent`: fixed by this pull request.
These are SARIF's `baselineState` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec
from msgspec.structs import replace

from review_quorum.identity import CodeLines, code_hash, identities
from review_quorum.model import ConsensusFinding
from review_quorum.scope import DiffScope

BaselineState = Literal["new", "unchanged", "updated", "absent"]
BASELINE_STATES: tuple[BaselineState, ...] = ("new", "unchanged", "updated", "absent")
GateOn = Literal["new", "all"]
GATE_ON: tuple[GateOn, ...] = ("new", "all")  # `--gate-on`, config `gate-on`


class Baseline(msgspec.Struct, frozen=True):
    """What a review was compared with: the files read, and the base findings no head
    finding matches (`absent`, fixed by this pull request), at their base place."""

    sources: tuple[str, ...]
    absent: tuple[ConsensusFinding, ...] = ()


def onto_head(
    base: Sequence[ConsensusFinding], diff: DiffScope | None, lines: CodeLines | None
) -> tuple[list[ConsensusFinding], list[str]]:
    """`base` at its head place (a removed line: no line), and each one's `code_hash`."""
    moved: list[ConsensusFinding] = []
    codes: list[str] = []
    for finding in base:
        place = diff.head_place(finding.file, finding.line) if diff is not None else None
        path, line = place if place is not None else (finding.file, finding.line)
        change = diff.files.get(path) if diff is not None else None
        text: str | None = None
        if change is not None and finding.line is not None and finding.line in change.old_lines:
            text = change.old_lines[finding.line]
        elif line is not None and lines is not None:
            text = lines.line(path, line)
        if place is None and diff is not None:
            path, line = finding.file, None  # the file was deleted: nothing to match on head
        moved.append(replace(finding, file=path, line=line))
        codes.append(code_hash(text))
    return moved, codes


def compare(
    head: Sequence[tuple[ConsensusFinding, str]],
    base: Sequence[ConsensusFinding],
    *,
    diff: DiffScope | None,
    lines: CodeLines | None,
) -> tuple[list[BaselineState], list[ConsensusFinding]]:
    """Each head finding's state (`head`: (finding, identity)), and the absent base ones."""
    moved, codes = onto_head(base, diff, lines)
    base_ids = identities(moved, codes)
    by_id = {identity: index for index, identity in enumerate(base_ids)}
    states: list[BaselineState] = []
    matched: set[int] = set()
    for finding, identity in head:
        index = by_id.get(identity)
        if index is None:
            states.append("new")
            continue
        matched.add(index)
        states.append("unchanged" if base[index].severity == finding.severity else "updated")
    absent = [finding for index, finding in enumerate(base) if index not in matched]
    return states, absent
