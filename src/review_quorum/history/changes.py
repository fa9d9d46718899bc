"""Did a later commit change the lines a comment pointed at? Following lines through patches.

A comment points at lines `start..end` of a file as of one commit. Each later commit of the
pull request (merge commits are skipped: what they bring comes from the base branch) is
read as GitHub reports it: per file a status and the patch's hunks. A commit changes the
lines when it deletes the file, removes or rewrites one of them, or inserts a line between
them; otherwise the range moves by the lines added and removed above it (and follows a
rename) and the next commit is asked. A file whose patch GitHub omits (binary, or too
large) makes the answer unknown from then on.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Sequence

import msgspec

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Change(enum.Enum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    UNKNOWN = "unknown"


class CommitFile(msgspec.Struct, frozen=True):
    """One file of a commit, as GitHub's "get a commit" lists it."""

    path: str
    status: str
    patch: str | None = None
    previous_path: str = ""


class Commit(msgspec.Struct, frozen=True):
    """One commit of a pull request; `files` is None when it was not read."""

    sha: str
    committed_at: str
    parents: int = 1
    files: tuple[CommitFile, ...] | None = None


class Span(msgspec.Struct, frozen=True):
    path: str
    start: int
    end: int


class Followed(msgspec.Struct, frozen=True):
    """Whether the lines changed (and in which commit); where they are now when unchanged."""

    change: Change
    commit: str = ""
    span: Span | None = None


def follow(span: Span, commits: Sequence[Commit]) -> Followed:
    """Whether one of `commits` (in order) changes `span`, and which one first did."""
    current = span
    for commit in commits:
        if commit.parents > 1:
            continue
        if commit.files is None:
            return Followed(Change.UNKNOWN)
        file = _touching(commit.files, current.path)
        if file is None:
            continue
        if file.status == "removed":
            return Followed(Change.CHANGED, commit.sha)
        if file.patch is None:
            if file.status in ("renamed", "copied") and file.previous_path == current.path:
                current = Span(file.path, current.start, current.end)
                continue
            return Followed(Change.UNKNOWN)
        moved = _through(current, file.patch)
        if moved is None:
            return Followed(Change.CHANGED, commit.sha)
        current = Span(file.path, moved[0], moved[1])
    return Followed(Change.UNCHANGED, span=current)


def _touching(files: Sequence[CommitFile], path: str) -> CommitFile | None:
    for file in files:
        if file.path == path and file.status != "renamed":
            return file
        if file.status == "renamed" and file.previous_path == path:
            return file
    return None


def _through(span: Span, patch: str) -> tuple[int, int] | None:
    """The span's new start and end after `patch`, or None when the patch changes it."""
    shift = 0
    for kind, old_line in _edits(patch):
        if kind == "-":
            if span.start <= old_line <= span.end:
                return None
            if old_line < span.start:
                shift -= 1
        else:  # an insertion before old line `old_line`
            if span.start < old_line <= span.end:
                return None
            if old_line <= span.start:
                shift += 1
    return span.start + shift, span.end + shift


def _edits(patch: str) -> Iterator[tuple[str, int]]:
    """Each removed ("-", its old line) and added ("+", the old line it goes before) line."""
    old_line = 0
    for line in patch.splitlines():
        header = _HUNK.match(line)
        if header:
            old_line = int(header.group(1))
            if header.group(2) == "0":
                old_line += 1  # "-N,0": the insertion goes after old line N
            continue
        if line.startswith("-"):
            yield "-", old_line
            old_line += 1
        elif line.startswith("+"):
            yield "+", old_line
        elif not line.startswith("\\"):
            old_line += 1
