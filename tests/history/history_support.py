"""Builders shared by the history tests: the review plans `quorum review` makes."""

from __future__ import annotations

from review_quorum import CommentSource, NormalizedFinding, Settings, review
from review_quorum.history import Database
from review_quorum.plan import ReviewPlan

HEAD = "c" * 40


def finding(
    bot: str, file: str, line: int | None, title: str, *, rule: str = "", comment: int = 0
) -> NormalizedFinding:
    source = None
    if comment:
        source = CommentSource(
            "review_comment",
            comment,
            f"PRRC_{comment}",
            f"https://github.com/o/r/pull/1#discussion_r{comment}",
            f"{bot}[bot]",
        )
    return NormalizedFinding.create(
        bot=bot,
        finding_id=f"{bot}-{file}-{line}",
        severity="medium",
        category="security",
        title=title,
        file=file,
        line=line,
        rule_id=rule,
        source=source,
    )


def plan_of(findings: list[NormalizedFinding], bots: int | None = None) -> ReviewPlan:
    return review(findings, settings=Settings(bots_ran=bots))


SQL_FINDINGS = [
    finding("bandit", "app/db.py", 10, "SQL injection in query", rule="B608"),
    finding("semgrep", "app/db.py", 11, "SQL built from f-string", rule="sql-fstring"),
    finding("coderabbit", "app/db.py", 12, "SQL injection risk", comment=4001),
    finding("copilot", "app/web.py", 40, "Unescaped output in template", comment=4002),
]


def counts(database: Database) -> dict[str, int]:
    tables = ["repositories", "pull_requests", "runs", "findings", "members"]
    return {table: int(database.value(f"SELECT COUNT(*) FROM {table}")) for table in tables}
