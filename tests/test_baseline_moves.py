"""A base finding whose flagged line the pull request moved elsewhere in its file is the
same finding on head (pre-existing, `unchanged`), not a new one: the base finding's
identity comes from the text the diff's base side shows for the removed line."""

from __future__ import annotations

import difflib

from review_quorum.model import Evidence, NormalizedFinding, Severity
from review_quorum.plan import review
from review_quorum.scope import DiffScope

BASE = ["import os", "", "os.system(cmd)", "a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "f = 6"]
HEAD = ["import os", "", "a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "os.system(cmd)", "f = 6"]


def shell(line: int) -> NormalizedFinding:
    where = Evidence("app.py", line)
    return NormalizedFinding("bandit", f"B605-{line}", Severity.HIGH, "security", "Shell", where)


def test_a_finding_on_a_line_the_diff_moved_is_pre_existing() -> None:
    patch = "".join(
        difflib.unified_diff(
            [f"{line}\n" for line in BASE],
            [f"{line}\n" for line in HEAD],
            "a/app.py",
            "b/app.py",
            n=0,
        )
    )
    diff = DiffScope.parse(patch)
    assert 3 in diff.files["app.py"].old_lines and diff.head_place("app.py", 3) == ("app.py", None)
    plan = review([shell(8)], diff=diff, baseline=[shell(3)], baseline_sources=["base.sarif"])
    assert [item.baseline_state for item in plan.findings] == ["unchanged"]
    assert plan.baseline is not None and plan.baseline.absent == ()
    # Control: the line rewritten, not moved, is a new finding and the base one is fixed.
    rewritten = [*HEAD[:7], "os.system(cmd, check=True)", HEAD[8]]
    patch = "".join(
        difflib.unified_diff(
            [f"{line}\n" for line in BASE],
            [f"{line}\n" for line in rewritten],
            "a/app.py",
            "b/app.py",
            n=0,
        )
    )
    plan = review([shell(8)], diff=DiffScope.parse(patch), baseline=[shell(3)])
    assert [item.baseline_state for item in plan.findings] == ["new"]
    assert plan.baseline is not None and len(plan.baseline.absent) == 1
