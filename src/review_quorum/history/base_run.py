"""The findings the history recorded for one commit: a baseline (`quorum review
--baseline-db SHA`, SHA the merge-base of the pull request), read back as findings.

The newest run recorded with that head commit for the repository under review is taken
(a run of another repository in the same database is never a baseline); its members come
back as the findings that were read then (bot, rule, place, category, title, severity,
confidence).
"""

from __future__ import annotations

from review_quorum.history.database import Database
from review_quorum.model import Evidence, NormalizedFinding, Severity


def run_at(database: Database, sha: str, owner: str, repo: str) -> int | None:
    """The newest run recorded for head commit `sha` (a full or abbreviated id) of a pull
    request of repository `owner`/`repo`."""
    rows = database.rows(
        "SELECT u.id FROM runs u JOIN pull_requests p ON p.id = u.pull_request_id"
        " JOIN repositories r ON r.id = p.repository_id"
        " WHERE r.owner = ? AND r.name = ? AND (u.head_sha = ? OR u.head_sha LIKE ?)"
        " ORDER BY u.id DESC LIMIT 1",
        (owner, repo, sha, f"{sha}%" if len(sha) >= 7 else sha),
    )
    return int(rows[0][0]) if rows else None


def findings_of(database: Database, run_id: int) -> list[NormalizedFinding]:
    """Every member of run `run_id`'s findings, as the finding it was read as."""
    rows = database.rows(
        "SELECT m.bot, m.finding_key, m.severity, m.category, m.title, m.file, m.line,"
        " m.end_line, m.rule_id, m.confidence FROM members m"
        " JOIN findings f ON f.id = m.finding_id WHERE f.run_id = ? ORDER BY f.position,"
        " m.position",
        (run_id,),
    )
    return [
        NormalizedFinding(
            str(bot),
            str(key),
            Severity.parse(severity),
            str(category),
            str(title),
            Evidence(str(file), line, end_line=end_line),
            confidence=float(confidence),
            rule_id=str(rule),
        )
        for bot, key, severity, category, title, file, line, end_line, rule, confidence in rows
    ]
