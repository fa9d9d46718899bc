"""Following a comment's lines through later commits' patches."""

from __future__ import annotations

import pytest

from review_quorum.history.changes import Change, Commit, CommitFile, Followed, Span, follow

# Old lines 10-12 of app.py; the patches below are written against a file of 30 lines.
SPAN = Span("app.py", 10, 12)


def commit(sha: str, *files: CommitFile, parents: int = 1) -> Commit:
    return Commit(sha, "2026-01-02T00:00:00Z", parents, files)


def patched(patch: str, path: str = "app.py") -> CommitFile:
    return CommitFile(path, "modified", patch)


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ("@@ -11,1 +11,1 @@\n-old\n+new", Change.CHANGED),  # a line rewritten
        ("@@ -9,3 +9,2 @@\n a\n-b\n c", Change.CHANGED),  # line 10 removed
        ("@@ -10,2 +10,3 @@\n a\n+inserted\n b", Change.CHANGED),  # between 10 and 11
        ("@@ -1,2 +1,3 @@\n a\n+above\n b", Change.UNCHANGED),  # above: only moves
        ("@@ -12,0 +13,1 @@\n+below", Change.UNCHANGED),  # after line 12
        ("@@ -9,0 +10,1 @@\n+just above", Change.UNCHANGED),  # before line 10
        ("@@ -13,2 +13,1 @@\n a\n-b", Change.UNCHANGED),
        ("@@ -20,1 +20,1 @@\n-x\n\\ No newline at end of file\n+y", Change.UNCHANGED),
    ],
)
def test_one_commit(patch: str, expected: Change) -> None:
    assert follow(SPAN, [commit("s1", patched(patch))]).change is expected


def test_lines_move_with_insertions_above_and_are_found_again() -> None:
    grow = commit("s1", patched("@@ -1,1 +1,4 @@\n a\n+1\n+2\n+3"))  # 10-12 -> 13-15
    touch_old = commit("s2", patched("@@ -11,1 +11,1 @@\n-x\n+y"))  # old 11: now above
    touch_new = commit("s3", patched("@@ -14,1 +14,1 @@\n-x\n+y"))  # 14: inside
    moved = Span("app.py", 13, 15)
    assert follow(SPAN, [grow, touch_old]) == Followed(Change.UNCHANGED, span=moved)
    assert follow(SPAN, [grow, touch_old, touch_new]) == Followed(Change.CHANGED, "s3")


def test_removals_above_move_the_lines_up() -> None:
    shrink = commit("s1", patched("@@ -2,3 +2,0 @@\n-a\n-b\n-c"))  # 10-12 -> 7-9
    assert follow(SPAN, [shrink, commit("s2", patched("@@ -7,1 +7,1 @@\n-x\n+y"))]) == Followed(
        Change.CHANGED, "s2"
    )


def test_renames_deletions_merges_and_unknowns() -> None:
    rename = commit("s1", CommitFile("lib.py", "renamed", None, "app.py"))
    edit_renamed = commit("s2", patched("@@ -10,1 +10,1 @@\n-x\n+y", "lib.py"))
    assert follow(SPAN, [rename, edit_renamed]) == Followed(Change.CHANGED, "s2")
    assert follow(SPAN, [commit("s1", CommitFile("app.py", "removed"))]) == Followed(
        Change.CHANGED, "s1"
    )
    merge = commit("m", patched("@@ -10,1 +10,1 @@\n-x\n+y"), parents=2)
    assert follow(SPAN, [merge]) == Followed(Change.UNCHANGED, span=SPAN)
    binary = commit("s1", CommitFile("app.py", "modified", None))
    assert follow(SPAN, [binary]) == Followed(Change.UNKNOWN)
    assert follow(SPAN, [Commit("s1", "2026-01-02T00:00:00Z")]) == Followed(Change.UNKNOWN)
    other = commit("s1", patched("@@ -10,1 +10,1 @@\n-x\n+y", "other.py"))
    assert follow(SPAN, [other]) == Followed(Change.UNCHANGED, span=SPAN)
