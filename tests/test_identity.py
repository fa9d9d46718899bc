"""A finding's identity (`review_quorum.identity`): properties (hypothesis) and the rules
a user relies on: distinct within a review; the same whatever the bots, their wording,
member order or bot count; the same when lines move; from the checkout, else the diff."""

from __future__ import annotations

from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from review_quorum.identity import (
    CodeLines,
    code_hash,
    identities,
    normal_line,
    tool_fingerprint,
)
from review_quorum.model import Evidence, NormalizedFinding, Severity
from review_quorum.plan import Settings, review
from review_quorum.scope import DiffScope

BOTS = ("bandit", "ruff", "semgrep", "codeql")
CODE = ("x = run(cmd)", "db.execute(q)", "pass", "x = run(cmd)", "db.execute(q)")


def new_file(path: str, lines: list[str]) -> str:
    """A diff adding `path` with `lines`."""
    body = "".join(f"+{line}\n" for line in lines)
    return f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def make(
    bot: str, line: int | None, title: str = "Issue", *, file: str = "a.py", **kw: str
) -> NormalizedFinding:
    category = kw.get("category", "security")
    return NormalizedFinding(
        bot,
        kw.get("finding_id", f"{bot}-{line}"),
        Severity.HIGH,
        category,
        title,
        Evidence(file, line),
        rule_id=kw.get("rule_id", ""),
    )


def ids_of(findings: list[NormalizedFinding], diff: str, bots: int = 4) -> dict[int | None, str]:
    plan = review(findings, settings=Settings(bots_ran=bots), diff=DiffScope.parse(diff))
    return {item.finding.line: item.fingerprint for item in plan.findings}


places = st.lists(
    st.tuples(
        st.sampled_from(BOTS),
        st.sampled_from(("a.py", "b.py")),
        st.sampled_from(("security", "error_handling")),
        st.one_of(st.none(), st.integers(1, 30)),
        st.sampled_from(("SQL injection", "Injection of SQL", "Bad", "")),
    ),
    max_size=25,
)
texts = st.lists(st.sampled_from(CODE), min_size=30, max_size=30)


@settings(max_examples=60, deadline=None)
@given(places, texts, st.integers(0, 3))
def test_no_two_findings_of_one_review_share_an_identity(
    rows: list[tuple[str, str, str, int | None, str]], lines: list[str], window: int
) -> None:
    findings = [
        make(bot, line, title or "x", file=file, category=category)
        for bot, file, category, line, title in rows
    ]
    diff = new_file("a.py", lines) + new_file("b.py", lines)
    plan = review(findings, settings=Settings(line_window=window), diff=DiffScope.parse(diff))
    ids = [item.fingerprint for item in plan.findings]
    assert len(set(ids)) == len(ids)
    assert all(len(i) == 32 and set(i) <= set("0123456789abcdef") for i in ids)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(BOTS), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(BOTS), min_size=1, max_size=4, unique=True),
    st.integers(0, 20),
    st.lists(st.text("abc =()", max_size=12), min_size=2, max_size=2),
)
def test_the_same_finding_keeps_its_identity_across_bots_wording_and_moved_lines(
    first: list[str], second: list[str], shift: int, titles: list[str]
) -> None:
    code = ["a = 1", "db.execute(f'select {x}')", "b = 2"]
    before = ids_of([make(bot, 2, titles[0] or "t") for bot in first], new_file("a.py", code))
    moved = ["# new"] * shift + code
    reworded = [make(bot, 2 + shift, titles[1] or "u") for bot in reversed(second)]
    after = ids_of(reworded, new_file("a.py", moved), bots=len(second))
    assert before[2] == after[2 + shift]


def test_a_changed_line_or_another_kind_is_another_identity() -> None:
    code = ["a = 1", "db.execute(q)"]
    [same] = ids_of([make("ruff", 2)], new_file("a.py", code)).values()
    [edited] = ids_of([make("ruff", 2)], new_file("a.py", ["a = 1", "db.run(q)"])).values()
    other = make("ruff", 2, category="error_handling")
    [kind] = ids_of([other], new_file("a.py", code)).values()
    [spaced] = ids_of([make("ruff", 2)], new_file("a.py", ["a = 1", "db.execute( q )"])).values()
    assert len({same, edited, kind}) == 3
    assert spaced == same  # whitespace is not part of it


def test_identical_lines_are_told_apart_by_their_order_and_stay_put_when_one_moves() -> None:
    code = ["run(cmd)", "x = 1", "", "", "", "", "run(cmd)"]  # further apart than the window
    first = ids_of([make("ruff", 1), make("ruff", 7)], new_file("a.py", code))
    shifted = ids_of([make("ruff", 3), make("ruff", 9)], new_file("a.py", ["#", "#", *code]))
    assert first[1] != first[7]
    assert (first[1], first[7]) == (shifted[3], shifted[9])
    # Reworded so that the titles sort the other way: each keeps its own identity.
    reworded = [make("ruff", 1, "Beta"), make("ruff", 7, "Alpha")]
    assert ids_of(reworded, new_file("a.py", code)) == first


def test_member_order_does_not_matter() -> None:
    diff = DiffScope.parse(new_file("a.py", ["q = 1", "run(q)"]))
    plan = review([make("ruff", 2, "A"), make("bandit", 2, "B")], diff=diff)
    [item] = plan.findings
    flipped = msgspec.structs.replace(item.finding, members=item.finding.members[::-1])
    assert identities([flipped], [item.code]) == [item.fingerprint]


def test_the_checkout_is_read_before_the_diff_and_only_inside_it(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("first\n  db.execute(q)  \n", encoding="utf-8")
    (tmp_path.parent / "outside.py").write_text("secret\n", encoding="utf-8")
    diff = DiffScope.parse(new_file("app.py", ["other", "diff text"]))
    lines = CodeLines(root=tmp_path, diff=diff)
    assert lines.line("app.py", 2) == "  db.execute(q)  "
    assert lines.line("app.py", 3) is None  # past the end of the checked-out file
    assert lines.line("../outside.py", 1) is None
    assert CodeLines(diff=diff).line("app.py", 2) == "diff text"
    assert CodeLines(root=tmp_path / "missing", diff=diff).line("app.py", 1) == "other"
    assert code_hash("  db.execute(q)") == code_hash("db.execute(q)") != code_hash(None) == ""
    assert normal_line(" a \t b ") == "ab"


def test_without_the_line_an_analysers_own_fingerprint_is_used_else_the_line_number() -> None:
    given_a = make("codeql", 5, finding_id="py/sql:abc", rule_id="py/sql", file="app.py")
    given_b = make("codeql", 9, finding_id="py/sql:abc", rule_id="py/sql", file="app.py")
    plain = make("codeql", 5, finding_id="py/sql", rule_id="py/sql", file="app.py")
    plan = review([given_a])
    moved = review([given_b])
    assert plan.findings[0].fingerprint == moved.findings[0].fingerprint  # no code: tool's id
    [cluster] = review([given_a]).findings
    assert tool_fingerprint(cluster.finding) == "abc"
    bare = review([plain]).findings[0].fingerprint
    assert (
        bare
        != review([msgspec.structs.replace(plain, evidence=Evidence("app.py", 6))])
        .findings[0]
        .fingerprint
    )


def test_identical_lines_keep_their_identities_whatever_order_the_findings_come_in() -> None:
    code = ["run(cmd)", "x = 1", "", "", "", "", "run(cmd)"]
    diff = new_file("a.py", code)
    # The finding at line 7 confirmed by three bots, then the one at line 1: each keeps
    # the identity its line gives it, however the review ranks them.
    seven = ids_of([make("ruff", 1), make("ruff", 7), make("bandit", 7), make("semgrep", 7)], diff)
    one = ids_of([make("ruff", 1), make("bandit", 1), make("semgrep", 1), make("ruff", 7)], diff)
    assert seven == one
    plan = review([make("ruff", 1), make("ruff", 7)], diff=DiffScope.parse(diff))
    findings = [item.finding for item in plan.findings]
    codes = [item.code for item in plan.findings]
    assert identities(findings[::-1], codes[::-1]) == identities(findings, codes)[::-1]
