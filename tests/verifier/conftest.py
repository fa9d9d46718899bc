"""A small pull request to verify: a head checkout, its diff, and findings on it."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared_path
from review_quorum.model import Evidence, NormalizedFinding, Severity
from review_quorum.plan import ReviewPlan, Settings, review
from review_quorum.scope import DiffScope
from verifier.openai_standin import Contract, StandIn, serve

BASE = [
    "import sqlite3",
    "",
    "",
    "def connect(path):",
    "    return sqlite3.connect(path)",
    "",
    "",
    "def total(items):",
    "    result = 0",
    "    return result",
    "",
    "",
    "def tail():",
    "    return None",
]
ADDED = [
    "    # sum every item but the last",
    "    for index in range(len(items) - 1):",
    "        result += items[index]",
    "    query = f\"SELECT * FROM parts WHERE name = '{items[0]}'\"",
    "    rows = sqlite3.connect(':memory:').execute(query)",
    "    try:",
    "        rows.close()",
    "    except Exception:",
    "        pass",
    '    "just a string line"',
    "    result += len(list(rows))",
]
# head: BASE with ADDED after line 9 ("    result = 0"), so the added lines are 10..20
HEAD = [*BASE[:9], *ADDED, *BASE[9:]]


def diff_text() -> str:
    lines = difflib.unified_diff(
        [f"{line}\n" for line in BASE],
        [f"{line}\n" for line in HEAD],
        "a/app/calc.py",
        "b/app/calc.py",
    )
    return "diff --git a/app/calc.py b/app/calc.py\n" + "".join(lines)


def finding(
    bot: str,
    line: int,
    severity: Severity,
    category: str,
    title: str,
    file: str = "app/calc.py",
    rule: str = "",
) -> NormalizedFinding:
    return NormalizedFinding(
        bot=bot,
        finding_id=f"{bot}-{file}-{line}",
        severity=severity,
        category=category,
        title=title,
        evidence=Evidence(file=file, line=line),
        rule_id=rule,
    )


# Where each kind of cluster sits in `findings()`.
UNCERTAIN = ("app/calc.py", 11)  # semgrep alone, medium: uncertain
LONE_HIGH = ("app/calc.py", 13)  # coderabbit alone, high security
TWO_FAMILIES = ("app/calc.py", 17)  # coderabbit + copilot, medium: p ~0.53
CONFIRMED = ("app/calc.py", 18)  # three families: confirmed
LOW_STYLE = ("app/calc.py", 19)  # low style, bound for the summary


def findings() -> list[NormalizedFinding]:
    return [
        finding("semgrep", 11, Severity.MEDIUM, "logic_error", "loop skips the last", rule="r1"),
        finding("coderabbit", 13, Severity.HIGH, "security", "SQL built with an f-string"),
        finding("coderabbit", 17, Severity.MEDIUM, "error_handling", "broad except hides errors"),
        finding("copilot", 17, Severity.MEDIUM, "error_handling", "except Exception hides errors"),
        finding("coderabbit", 18, Severity.MEDIUM, "logic_error", "pass swallows the failure"),
        finding("copilot", 18, Severity.MEDIUM, "logic_error", "pass swallows failure silently"),
        finding("sourcery", 18, Severity.MEDIUM, "logic_error", "failure swallowed by pass"),
        finding("sourcery", 19, Severity.LOW, "style", "stray string statement"),
        finding("bandit", 3, Severity.HIGH, "security", "outside the diff", file="app/other.py"),
    ]


class Workspace:
    """The pull request on disk, and its plan before verification."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.checkout = root / "head"
        (self.checkout / "app").mkdir(parents=True)
        (self.checkout / "app" / "calc.py").write_text("\n".join(HEAD) + "\n", encoding="utf-8")
        (self.checkout / "app" / "other.py").write_text("x = 1\n" * 5, encoding="utf-8")
        self.diff = diff_text()
        self.findings = findings()
        self.settings = Settings(bots_ran=5)

    def plan(self, verdicts: object = ()) -> ReviewPlan:
        return review(
            self.findings,
            settings=self.settings,
            diff=DiffScope.parse(self.diff) if self.diff else None,
            verdicts=verdicts,  # type: ignore[arg-type]
        )

    def index_at(self, plan: ReviewPlan, place: tuple[str, int]) -> int:
        return next(
            i
            for i, item in enumerate(plan.findings)
            if (item.finding.file, item.finding.line) == place
        )


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture(scope="session")
def contract() -> Contract:
    return Contract(shared_path("openai-chat", "openai-chat-subset.json"))


@pytest.fixture
def standin(contract: Contract) -> Iterator[StandIn]:
    with serve(contract) as server:
        yield server
        assert server.errors == []


@pytest.fixture
def ollama(contract: Contract) -> Iterator[StandIn]:
    with serve(contract, shape="ollama") as server:
        yield server
        assert server.errors == []
