"""Where a diff note can go: the lines of a merge request version's diff, and positions.

GitLab anchors a diff note with a ``position``: the version's base, start and head SHAs,
``position_type: text``, the paths, and the line: an added line by ``new_line`` alone, an
unchanged line by ``old_line`` and ``new_line``. A multi-line note adds ``line_range``,
whose ends name their lines again with GitLab's line code (the path's SHA-1, the old and
the new position). `addressable(diffs)` reads the version's file diffs into the lines a
note can anchor on, and `position_for` builds the position of one inline finding, or None
when its line is not in the diff (the poster then lists it in the summary note).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.delivery.draft import DraftComment
from review_quorum.gitlab.snapshot import DiffRefs

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


class Line(msgspec.Struct, frozen=True):
    """A new-file line of the diff: its old line (None when added) and its old position."""

    old_line: int | None
    old_position: int


class FileLines(msgspec.Struct, frozen=True):
    old_path: str
    lines: Mapping[int, Line]


def addressable(diffs: Sequence[Mapping[str, Any]]) -> dict[str, FileLines]:
    """The lines of each changed file a note can anchor on, by new path."""
    files: dict[str, FileLines] = {}
    for entry in diffs:
        new_path, text = entry.get("new_path"), entry.get("diff")
        if not isinstance(new_path, str) or not isinstance(text, str) or entry.get("deleted_file"):
            continue
        old_path = entry.get("old_path")
        files[new_path] = FileLines(
            old_path if isinstance(old_path, str) else new_path, _lines(text)
        )
    return files


def _lines(diff: str) -> dict[int, Line]:
    lines: dict[int, Line] = {}
    old = new = 0
    for text in diff.split("\n"):
        hunk = _HUNK.match(text)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
        elif text.startswith("+") and new:
            lines[new] = Line(None, old)
            new += 1
        elif text.startswith("-") and old:
            old += 1
        elif text.startswith(" ") and new:
            lines[new] = Line(old, old)
            old, new = old + 1, new + 1
    return lines


def position_for(
    comment: DraftComment, refs: DiffRefs, files: Mapping[str, FileLines] | None
) -> dict[str, Any] | None:
    """The position of `comment` on the diff, or None when its line is not in it.

    Without the diff (an offline dry run) every line is taken for an added one."""
    if comment.side != "RIGHT":
        return None
    known = files.get(comment.path) if files is not None else FileLines(comment.path, {})
    if known is None:
        return None
    end = known.lines.get(comment.line) if files is not None else Line(None, 0)
    if end is None:
        return None
    position: dict[str, Any] = {
        "base_sha": refs.base_sha,
        "start_sha": refs.start_sha,
        "head_sha": refs.head_sha,
        "position_type": "text",
        "new_path": comment.path,
        "old_path": known.old_path,
        "new_line": comment.line,
    }
    if end.old_line is not None:
        position["old_line"] = end.old_line
    start = known.lines.get(comment.start_line) if comment.start_line is not None else None
    if start is not None and comment.start_line is not None:
        position["line_range"] = {
            "start": _range_end(comment.path, comment.start_line, start),
            "end": _range_end(comment.path, comment.line, end),
        }
    return position


def _range_end(path: str, new_line: int, line: Line) -> dict[str, Any]:
    code = f"{hashlib.sha1(path.encode()).hexdigest()}_{line.old_position}_{new_line}"
    end: dict[str, Any] = {"line_code": code, "new_line": new_line}
    if line.old_line is None:
        end["type"] = "new"
    else:
        end["old_line"] = line.old_line
    return end


def anchored_at(position: object, comment: DraftComment, head_sha: str) -> bool:
    """Whether a note's (traced) position is `comment`'s line on the head version."""
    if not isinstance(position, dict):
        return False
    return (
        position.get("head_sha") == head_sha
        and position.get("new_path") == comment.path
        and position.get("new_line") == comment.line
    )
