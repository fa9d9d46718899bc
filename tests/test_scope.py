"""Diff scope: addressable RIGHT-side lines and the reviewdog filter modes (issue 5)."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum.errors import InputError
from review_quorum.scope import DiffScope, FilterMode

DIFF = (FIXTURES / "diffs" / "git.rename-delete-binary-spaces.diff").read_text()


@pytest.fixture(scope="module")
def scope() -> DiffScope:
    return DiffScope.parse(DIFF)


def test_files_renames_deletions_binaries_and_spaces(scope: DiffScope) -> None:
    assert sorted(scope.files) == ["bin.dat", "gone.py", "new.py", "sub dir/my file.py"]
    assert scope.files["new.py"].old_path == "old.py"
    assert scope.files["new.py"].added == {3}
    assert scope.files["new.py"].addressable == {1, 2, 3}
    assert scope.files["gone.py"].deleted
    assert scope.files["bin.dat"].binary
    assert scope.files["sub dir/my file.py"].added == {2, 4}  # past the no-newline marker


@pytest.mark.parametrize(
    ("file", "line", "mode", "in_scope", "reason"),
    [
        ("sub dir/my file.py", 2, FilterMode.ADDED, True, ""),
        ("sub dir/my file.py", 3, FilterMode.ADDED, False, "line 3 is not an added line"),
        ("sub dir/my file.py", 3, FilterMode.DIFF_CONTEXT, True, ""),
        ("sub dir/my file.py", 40, FilterMode.DIFF_CONTEXT, False, "more than 3 lines"),
        ("sub dir/my file.py", 40, FilterMode.FILE, True, ""),
        ("sub dir/my file.py", None, FilterMode.ADDED, True, ""),
        ("other.py", 1, FilterMode.FILE, False, "file not changed in this pull request"),
        ("other.py", 1, FilterMode.NOFILTER, True, ""),
        ("gone.py", 1, FilterMode.FILE, False, "file is deleted in this pull request"),
        ("bin.dat", None, FilterMode.FILE, False, "file is binary in this pull request"),
        ("", None, FilterMode.ADDED, True, ""),
    ],
)
def test_filter_modes(
    scope: DiffScope,
    file: str,
    line: int | None,
    mode: FilterMode,
    in_scope: bool,
    reason: str,
) -> None:
    verdict = scope.judge(file, line, mode)
    assert verdict.in_scope is in_scope
    assert reason in verdict.reason


def test_only_right_side_diff_lines_are_addressable(scope: DiffScope) -> None:
    assert scope.addressable("new.py", 1)
    assert not scope.addressable("new.py", 4)
    assert not scope.addressable("gone.py", 1)
    assert not scope.addressable("new.py", None)


def test_quoted_paths_are_unquoted() -> None:
    diff = (
        'diff --git "a/t\\303\\251st.py" "b/t\\303\\251st.py"\n'
        "index 1..2 100644\n"
        '--- "a/t\\303\\251st.py"\n'
        '+++ "b/t\\303\\251st.py"\n'
        "@@ -1 +1,2 @@\n x\n+y\n"
    )
    assert list(DiffScope.parse(diff).files) == ["tést.py"]


def test_text_that_is_not_a_diff_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"pr.diff:line 1: not a unified diff"):
        DiffScope.parse("hello\nworld\n", source="pr.diff")


def test_a_hunk_header_of_thousands_of_digits_is_an_input_error_at_its_line() -> None:
    """int() refuses more than 4,300 digits: a ValueError, once an internal error."""
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1 +" + "9" * 5000 + ",2 @@\n x\n+y\n"
    with pytest.raises(InputError) as caught:
        DiffScope.parse(diff, source="pr.diff")
    assert str(caught.value) == (
        "pr.diff:line 3: not a unified diff: a hunk header's line number is thousands of "
        "digits long"
    )


def test_an_empty_diff_has_no_files() -> None:
    assert DiffScope.parse("").files == {}
