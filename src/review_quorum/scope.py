"""Diff scope: which lines of a pull request a finding may be posted on, and filter modes.

A unified diff (parsed with `unidiff`: renames, deletions, binary files, paths with spaces
and no-newline markers included) tells, for every file on the RIGHT side, which lines are
added and which are context. GitHub anchors inline comments only on those lines. The filter
modes follow reviewdog's:

- ``added`` (default): keep findings on added lines;
- ``diff_context``: keep findings within N lines of an added line;
- ``file``: keep findings anywhere in a changed file;
- ``nofilter``: keep everything.

A finding with a file but no line is in scope when its file changed (every mode); a global
finding (no file) is always in scope. Findings on deleted or binary files have no RIGHT
side to anchor on and are out of scope unless the mode is ``nofilter``.
"""

from __future__ import annotations

import bisect
import enum
import re
from collections.abc import Mapping

import msgspec
from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchedFile, PatchSet

from review_quorum.errors import InputError


class FilterMode(enum.Enum):
    ADDED = "added"
    DIFF_CONTEXT = "diff_context"
    FILE = "file"
    NOFILTER = "nofilter"


class FileChange(msgspec.Struct, frozen=True):
    """The RIGHT side of one changed file: its added lines and all addressable lines."""

    path: str
    added: frozenset[int]
    addressable: frozenset[int]
    sorted_added: tuple[int, ...]
    deleted: bool = False
    binary: bool = False
    old_path: str | None = None
    lines: Mapping[int, str] = msgspec.field(default_factory=dict)  # hunk lines' head text
    old_lines: Mapping[int, str] = msgspec.field(default_factory=dict)  # and base text
    kept: Mapping[int, int] = msgspec.field(default_factory=dict)  # context: base -> head
    # (base start, base length, head start, head length) of each hunk, in order
    hunks: tuple[tuple[int, int, int, int], ...] = ()

    def head_line(self, line: int) -> int | None:
        """Where base `line` of this file is on head; None when the diff removed it."""
        if self.deleted:
            return None
        shift = 0
        for base_start, base_length, head_start, head_length in self.hunks:
            if line < base_start:
                break
            if line < base_start + base_length:
                return self.kept.get(line)
            shift = head_start + head_length - (base_start + base_length)
        return line + shift


class ScopeCheck(msgspec.Struct, frozen=True):
    """Whether a finding is in scope, whether it can anchor inline, and why not."""

    in_scope: bool
    addressable: bool
    reason: str = ""


class DiffScope(msgspec.Struct, frozen=True):
    """The files a pull request changes, by repository-relative path."""

    files: Mapping[str, FileChange]

    @classmethod
    def parse(cls, text: str, *, source: str = "<diff>") -> DiffScope:
        try:
            patch = PatchSet(text)
        except UnidiffParseError as err:
            raise InputError(source, "", f"not a unified diff: {err}") from err
        except ValueError as err:  # int() refuses a hunk header's number of 4,300+ digits
            header = re.search(r"^@@[^\n]*\d{4301}", text, re.MULTILINE)
            where = "" if header is None else f"line {_line_of(text, header.start())}"
            message = "not a unified diff: a hunk header's line number is thousands of digits long"
            raise InputError(source, where, message) from err
        if text.strip() and not len(patch):
            raise InputError(source, "line 1", "not a unified diff: no file headers found")
        return cls({change.path: change for change in map(_file_change, patch)})

    def head_place(self, file: str, line: int | None) -> tuple[str, int | None] | None:
        """Where base `file:line` is on head (the file renamed, the line shifted); the line
        is None when the diff removed or rewrote it; None when the file was deleted."""
        change = self.files.get(file)
        if change is None or (change.old_path is not None and change.old_path != file):
            change = next((c for c in self.files.values() if c.old_path == file), change)
        if change is None:
            return file, line
        if change.deleted:
            return None
        return change.path, None if line is None else change.head_line(line)

    def addressable(self, file: str, line: int | None) -> bool:
        """Whether GitHub accepts an inline comment at RIGHT-side `line` of `file`."""
        change = self.files.get(file)
        return change is not None and line is not None and line in change.addressable

    def judge(
        self, file: str, line: int | None, mode: FilterMode, context_lines: int = 3
    ) -> ScopeCheck:
        """Whether a finding at `file:line` is in scope under `mode`, and why not."""
        addressable = self.addressable(file, line)
        if mode is FilterMode.NOFILTER or not file:
            return ScopeCheck(True, addressable)
        change = self.files.get(file)
        if change is None:
            return ScopeCheck(False, False, "file not changed in this pull request")
        if change.deleted or change.binary:
            kind = "deleted" if change.deleted else "binary"
            return ScopeCheck(False, False, f"file is {kind} in this pull request")
        if line is None or mode is FilterMode.FILE:
            return ScopeCheck(True, addressable)
        if mode is FilterMode.ADDED:
            if line in change.added:
                return ScopeCheck(True, addressable)
            return ScopeCheck(False, addressable, f"line {line} is not an added line")
        if _distance_to_added(change, line) <= context_lines:
            return ScopeCheck(True, addressable)
        return ScopeCheck(
            False, addressable, f"line {line} is more than {context_lines} lines from a change"
        )


def _distance_to_added(change: FileChange, line: int) -> float:
    lines = change.sorted_added
    index = bisect.bisect_left(lines, line)
    nearest = [abs(lines[i] - line) for i in (index - 1, index) if 0 <= i < len(lines)]
    return min(nearest, default=float("inf"))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


_QUOTED = re.compile(r'^"(.*)"$')


def _unquote(path: str) -> str:
    """Git quotes unusual paths C-style (`"t\\303\\251st.py"`); undo it."""
    match = _QUOTED.match(path)
    if match is None:
        return path
    raw = match.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")


def _strip_prefix(path: str) -> str:
    path = _unquote(path)
    return path[2:] if path.startswith(("a/", "b/")) else path


def _file_change(patched: PatchedFile) -> FileChange:
    added: set[int] = set()
    addressable: set[int] = set()
    lines: dict[int, str] = {}
    old_lines: dict[int, str] = {}
    kept: dict[int, int] = {}
    hunks: list[tuple[int, int, int, int]] = []
    for hunk in patched:
        hunks.append((hunk.source_start, hunk.source_length, hunk.target_start, hunk.target_length))
        for line in hunk:
            if line.source_line_no is not None:
                old_lines[line.source_line_no] = line.value.rstrip("\r\n")
                if line.target_line_no is not None:
                    kept[line.source_line_no] = line.target_line_no
            if line.target_line_no is None:
                continue
            addressable.add(line.target_line_no)
            lines[line.target_line_no] = line.value.rstrip("\r\n")
            if line.is_added:
                added.add(line.target_line_no)
    deleted = bool(patched.is_removed_file)
    target = patched.source_file if deleted else patched.target_file
    old = _strip_prefix(patched.source_file) if patched.is_rename else None
    return FileChange(
        path=_strip_prefix(target),
        added=frozenset(added),
        addressable=frozenset(addressable),
        sorted_added=tuple(sorted(added)),
        deleted=deleted,
        binary=bool(patched.is_binary_file),
        old_path=old,
        lines=lines,
        old_lines=old_lines,
        kept=kept,
        hunks=tuple(hunks),
    )
