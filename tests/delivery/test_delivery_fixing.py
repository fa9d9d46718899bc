"""`delivery.fixing`, the one rule every poster applies to a thread whose finding this run no
longer reports, one row per case: fixed only when every bot that reported it ran on this
head AND its flagged line changed or is gone; the platform's own word only when the code
cannot tell; kept open, saying why, otherwise."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from review_quorum.delivery.draft import ReviewDraft
from review_quorum.delivery.fixing import Gone, judge_gone, line_at, still_there
from review_quorum.delivery.reconcile import reconcile_threads
from review_quorum.identity import MAX_SOURCE_BYTES, CodeLines, code_hash
from review_quorum.markup.markers import marked_code, marker
from review_quorum.scope import DiffScope

FLAGGED = 'cursor.execute("SELECT " + q)'
H = code_hash(FLAGGED)
OTHER = code_hash("print(q)")
# The diff: line 3 of app.py is the flagged line, line 4 something else; lib.py is deleted.
DIFF = DiffScope.parse(
    "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n x = 1\n y = 2\n"
    f"+{FLAGGED}\n+print(q)\n"
    "--- a/lib.py\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-gone = True\n"
)
FIXED_DIFF = DiffScope.parse(
    "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n x = 1\n y = 2\n+cursor.execute(SQL, (q,))\n"
    "+print(q)\n"
)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(f"x = 1\ny = 2\n\n\n{FLAGGED}\n", encoding="utf-8")
    (tmp_path / "fixed.py").write_text("x = 1\ncursor.execute(SQL, (q,))\n", encoding="utf-8")
    return tmp_path


def body(bots: str | None = "bandit:semgrep", code: str | None = H) -> str:
    lines = [marker("finding", "f" * 32)]
    if bots is not None:
        lines.append(marker("by", bots))
    if code is not None:
        lines.append(marker("code", code))
    return "\n".join([*lines, "**HIGH** (security) SQL injection"])


def draft(
    lines: CodeLines | None, ran: frozenset[str] | None = frozenset({"bandit", "semgrep"})
) -> ReviewDraft:
    return ReviewDraft(body="", comments=(), summary="", ran=ran, lines=lines)


FIXED, SAME, UNCOMPARED = Gone(fixed=True), Gone(fixed=False), Gone(fixed=False, compared=False)


@pytest.mark.parametrize(
    ("case", "text", "path", "line", "outdated", "verdict"),
    [
        # 1. a bot that reported it did not report on this head: never fixed
        ("no-semgrep", body(), "app.py", 5, True, Gone(fixed=False, missing=("semgrep",))),
        # 2. its bots ran and the checkout still has the flagged text: not fixed, whatever
        #    the platform says
        ("checkout", body(), "app.py", 5, True, SAME),
        ("checkout", body(), "app.py", 1, None, SAME),  # it moved: still there
        # 3. the checkout has the file without that text, or not at all: fixed
        ("checkout", body(), "fixed.py", 2, False, FIXED),
        ("checkout", body(), "deleted.py", 2, False, FIXED),
        # 4. the diff alone: the text among the hunk's lines, or the thread's line now
        #    holding other text (fixed), or a line outside the hunks (the platform decides)
        ("diff", body(), "app.py", 4, None, SAME),
        ("fixed-diff", body(), "app.py", 3, None, FIXED),
        ("fixed-diff", body(), "app.py", 9, None, UNCOMPARED),
        ("fixed-diff", body(), "app.py", None, None, UNCOMPARED),
        ("fixed-diff", body(), "app.py", 9, True, FIXED),
        ("fixed-diff", body(), "app.py", 9, False, SAME),
        ("diff", body(), "lib.py", 1, None, FIXED),  # the diff deletes the file
        ("diff", body(), "other.py", 1, None, UNCOMPARED),  # the diff does not show it
        # 5. no code marker (written without the code, or by an earlier version), or no
        #    code at hand: the platform's word, and a platform that says nothing keeps it
        ("checkout", body(code=None), "fixed.py", 2, None, UNCOMPARED),
        ("checkout", body(code=None), "fixed.py", 2, True, FIXED),
        ("none", body(), "app.py", 5, True, FIXED),
        ("none", body(), "app.py", 5, False, SAME),
        ("none", body(), "app.py", 5, None, UNCOMPARED),
        # 6. an older comment without a `by` marker: nothing to re-check, the code decides
        ("checkout", body(bots=None), "fixed.py", 2, None, FIXED),
        ("checkout", body(bots=None), "app.py", 5, None, SAME),
    ],
)
def test_the_rule(
    checkout: Path,
    case: str,
    text: str,
    path: str,
    line: int | None,
    outdated: bool | None,
    verdict: Gone,
) -> None:
    lines = {
        "no-semgrep": CodeLines(root=checkout),
        "checkout": CodeLines(root=checkout, diff=FIXED_DIFF),
        "diff": CodeLines(diff=DIFF),
        "fixed-diff": CodeLines(diff=FIXED_DIFF),
        "none": None,
    }[case]
    ran = frozenset({"bandit"}) if case == "no-semgrep" else frozenset({"bandit", "semgrep"})
    assert judge_gone(draft(lines, ran), text, path, line, outdated=outdated) == verdict


def test_a_draft_that_does_not_say_which_bots_ran_is_taken_at_its_word(checkout: Path) -> None:
    lines = CodeLines(root=checkout)
    assert judge_gone(draft(lines, ran=None), body(), "app.py", 5, outdated=False) == FIXED


def test_what_the_code_cannot_tell(checkout: Path) -> None:
    lines = CodeLines(root=checkout)
    assert still_there(None, H, "app.py", 5) is None
    assert still_there(lines, None, "app.py", 5) is None
    assert still_there(lines, H, "", 5) is None
    assert still_there(CodeLines(diff=DIFF), code_hash("absent"), "app.py", None) is None
    assert still_there(CodeLines(diff=DIFF), OTHER, "app.py", None) is True
    big = checkout / "big.py"
    big.write_bytes(b"x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))  # too large to read: not gone
    assert still_there(lines, H, "big.py", 1) is None
    assert still_there(lines, H, "../outside.py", 1) is None  # never looked for outside


def test_line_at_reads_only_whole_numbers() -> None:
    assert line_at({"line": 7}) == 7
    assert line_at({"to": 7}, "to") == 7
    assert line_at({"line": True}) is None
    assert line_at({"line": "7"}) is None
    assert line_at(None) is None


class Thread(msgspec.Struct, frozen=True):
    id: int
    path: str
    line: int
    body: str
    replied: bool = False


def test_reconcile_threads_keeps_open_what_the_rule_keeps_and_says_why(checkout: Path) -> None:
    threads = {
        "a" * 32: [Thread(1, "fixed.py", 2, body())],  # its line changed: fixed
        "b" * 32: [Thread(2, "app.py", 5, body())],  # its line unchanged: kept, noted
        "c" * 32: [Thread(3, "app.py", 5, body(bots="cursor"))],  # cursor did not run
        "d" * 32: [Thread(4, "fixed.py", 2, body(), replied=True)],  # left alone
    }
    work = reconcile_threads(
        draft(CodeLines(root=checkout)),
        threads,
        stands_at=lambda t, c: False,
        said=lambda t: (t.path, t.body),
        postable=lambda c: True,
        left_alone=lambda t: t.replied,
        resolve_fixed=True,
        now=lambda t: t.line,
        head="e" * 40,
    )
    assert [(t.id, fp) for t, fp in work.fixed] == [(1, "a" * 32)]
    assert (work.unchecked, work.kept) == (2, 1)
    notes = {t.id: note for t, note in work.update}
    assert sorted(notes) == [2, 3]
    assert (
        "Still open on eeeeeeeeeeee: no longer reported, but its lines did not change" in (notes[2])
    )
    assert "not re-checked on eeeeeeeeeeee: cursor did not report" in notes[3]
    # a note already there is not written again
    again = reconcile_threads(
        draft(CodeLines(root=checkout)),
        {"b" * 32: [Thread(2, "app.py", 5, notes[2])]},
        stands_at=lambda t, c: False,
        said=lambda t: (t.path, t.body),
        postable=lambda c: True,
        left_alone=lambda t: t.replied,
        resolve_fixed=True,
        now=lambda t: t.line,
        head="e" * 40,
    )
    assert (again.update, again.unchecked, again.fixed) == ([], 1, [])


def test_the_flagged_lines_hash_is_read_from_our_code_marker_only() -> None:
    assert marked_code(body()) == H
    assert marked_code(body(code=None)) is None
    assert marked_code(marker("code")) is None  # a marker without a hash records nothing
    assert marked_code(f"quoted: {marker('code', H)}") is None  # not on a line of its own


def test_with_the_diff_alone_the_line_the_thread_stands_on_now_decides() -> None:
    work = reconcile_threads(
        draft(CodeLines(diff=FIXED_DIFF)),
        {"a" * 32: [Thread(1, "app.py", 3, body())]},
        stands_at=lambda t, c: False,
        said=lambda t: (t.path, t.body),
        postable=lambda c: True,
        left_alone=lambda t: t.replied,
        resolve_fixed=True,
        now=lambda t: t.line,
    )
    assert ([t.id for t, _ in work.fixed], work.unchecked) == ([1], 0)
