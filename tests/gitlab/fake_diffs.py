"""The diffs behind the GitLab stand-in: how a note's position anchors on a version's diff.

A diff note's position names the SHAs of one version and a line of that version's diff of
the file: an added line by ``new_line`` alone, an unchanged line by ``old_line`` and
``new_line``; a ``line_range``'s ends carry GitLab's line codes. `push` traces notes to a
new version's lines (`trace`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from unidiff.patch import PatchSet


def diff_text(lines: Mapping[int, str], changed: set[int], length: int) -> str:
    """A one-hunk file diff: lines in `changed` added, the rest of 1..`length` unchanged."""
    body = []
    old = 0
    for number in range(1, length + 1):
        text = lines.get(number, f"line {number}")
        if number in changed:
            body.append(f"+{text}")
        else:
            old += 1
            body.append(f" {text}")
    return f"@@ -1,{old} +1,{length} @@\n" + "\n".join(body) + "\n"


def anchor_problem(
    versions: list[dict[str, Any]],
    diffs: Mapping[int, Mapping[str, str]],
    position: dict[str, Any],
) -> str | None:
    """What GitLab says is wrong with a diff note's `position`, or None: its SHAs must
    name a version, its line (and `line_range` ends, with their line codes) a line of
    that version's diff of the file."""
    version = next(
        (
            v
            for v in versions
            if (v["base_commit_sha"], v["start_commit_sha"], v["head_commit_sha"])
            == (position["base_sha"], position["start_sha"], position["head_sha"])
        ),
        None,
    )
    if version is None:
        return "can't be blank (the SHAs name no version of this merge request)"
    lines = anchors(diffs[version["id"]].get(position.get("new_path") or "", ""))
    end = (position.get("old_line"), position.get("new_line"))
    if end not in lines:
        return "must be a valid line code"
    line_range = position.get("line_range")
    if line_range:
        path = position["new_path"]
        for which in ("start", "end"):
            point = line_range[which]
            pair = (point.get("old_line"), point.get("new_line"))
            code = line_code(path, lines.get(pair, 0), pair[1] or 0)
            if pair not in lines or point.get("line_code") != code:
                return f"must be a valid line code (line_range {which})"
        if (line_range["end"].get("old_line"), line_range["end"].get("new_line")) != end:
            return "must be a valid line code (line_range end is not the position's line)"
    return None


def trace(
    note: dict[str, Any],
    version: dict[str, Any],
    diffs: Mapping[str, str],
    move: Callable[[str, int], int | None],
) -> None:
    """Carry a diff note to `version` (its file diffs `diffs`) as GitLab does on a push:
    `move` gives a line's new number, or None when the line changed and the note stays
    on its old version (outdated)."""
    position = note.get("position")
    if not position or position.get("new_line") is None:
        return
    line = move(position["new_path"], position["new_line"])
    if line is None:
        return  # the line changed: the note stays on its old version (outdated)
    pairs = anchors(diffs.get(position["new_path"], ""))
    old = next((o for o, n in pairs if n == line), None)
    position.update(
        new_line=line,
        old_line=old,
        head_sha=version["head_commit_sha"],
        base_sha=version["base_commit_sha"],
        start_sha=version["start_commit_sha"],
    )
    position.pop("line_range", None)


def line_code(path: str, old: int, new: int) -> str:
    """GitLab's line code: the path's SHA-1, the old and the new line position."""
    return f"{hashlib.sha1(path.encode()).hexdigest()}_{old}_{new}"


def anchors(diff: str) -> dict[tuple[int | None, int], int]:
    """Every line a note can anchor on, (old line, new line) -> the old position in its line
    code: an added line is (None, n) and counts the old line that follows it."""
    if not diff:
        return {}
    lines: dict[tuple[int | None, int], int] = {}
    for hunk in PatchSet(f"--- a/f\n+++ b/f\n{diff}")[0]:
        following = hunk.source_start
        for line in hunk:
            old, new = line.source_line_no, line.target_line_no
            if line.is_added and new is not None:
                lines[(None, new)] = following
            elif line.is_removed and old is not None:
                following = old + 1
            elif old is not None and new is not None:
                lines[(old, new)] = old
                following = old + 1
    return lines
