"""Recording a review run: the plan `quorum review` made, stored once per identity.

A run is identified by its repository, pull request, head commit and content: the SHA-256
of the plan document (canonical JSON, `render.json_report.content_digest`, which the caller
passes in: the history does not render), a function of the inputs' content and settings,
so `quorum review --db` and a later `quorum post --db` of the same saved plan are one run.
`RunRecord.from_plan` takes the typed `ReviewPlan` (a saved plan is read and checked by
`saved_plan`, the one reader of plan JSON); `record_run` writes the run, its findings and
every member (bot, rule, location, fingerprint, disposition and the GitHub ids of the
comment it came from) in one transaction, or nothing when the run is already there:
re-recording changes nothing. A new run also settles what became of the previous run's
findings (`successive`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import orjson

from review_quorum.history.database import Database
from review_quorum.history.schema import utc_now
from review_quorum.history.successive import Changes, link_previous_run
from review_quorum.model import NormalizedFinding
from review_quorum.plan import PlannedFinding, ReviewPlan


class RunRecord(msgspec.Struct, frozen=True):
    """One review run ready to store: where it ran and everything it decided."""

    owner: str
    repo: str
    number: int
    head_sha: str
    content_sha256: str
    plan: ReviewPlan
    origin: str = "db"  # db (quorum review/post --db) | action (the GitHub Action)

    @classmethod
    def from_plan(
        cls,
        plan: ReviewPlan,
        *,
        owner: str,
        repo: str,
        number: int,
        head_sha: str,
        content_sha256: str,
        origin: str = "db",
    ) -> RunRecord:
        """A run of `plan`, identified by `content_sha256`, the digest of its JSON report
        (`render.json_report.content_digest`: the history does not render)."""
        return cls(owner, repo, number, head_sha, content_sha256, plan, origin)

    @property
    def findings(self) -> int:
        return len(self.plan.findings)


class Recorded(msgspec.Struct, frozen=True):
    """What `record_run` did: the run's id, and whether it was new."""

    run_id: int
    created: bool

    def describe(self, record: RunRecord) -> str:
        what = "recorded" if self.created else "already recorded; nothing changed:"
        where = f"{record.owner}/{record.repo}#{record.number} at {record.head_sha[:12]}"
        return f"history: {what} run {self.run_id} of {where} ({record.findings} findings)"


def record_run(database: Database, record: RunRecord, changes: Changes | None = None) -> Recorded:
    """Store `record` unless a run with its identity exists (all in one transaction).

    A new run also labels the findings of the run before it on the same pull request
    (`successive`), through `changes`: the diff between two heads (None: unknown).
    """
    with database.transaction():
        pull_id = ensure_pull_request(database, record.owner, record.repo, record.number)
        plan = record.plan
        gate = plan.gate
        created = database.execute(
            "INSERT INTO runs (pull_request_id, head_sha, content_sha256, recorded_at, bots_ran,"
            " input_findings, skipped, gate_level, gate_failed, settings, origin)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (pull_request_id, head_sha, content_sha256) DO NOTHING",
            (
                pull_id,
                record.head_sha,
                record.content_sha256,
                utc_now(),
                plan.bots_ran,
                plan.input_count,
                len(plan.skipped),
                gate.level.value if gate.level else "none",
                int(gate.failed),
                orjson.dumps(plan.settings.as_data(), option=orjson.OPT_SORT_KEYS).decode(),
                record.origin,
            ),
        )
        run_id = int(
            database.value(
                "SELECT id FROM runs WHERE pull_request_id = ? AND head_sha = ?"
                " AND content_sha256 = ?",
                (pull_id, record.head_sha, record.content_sha256),
            )
        )
        if created:
            _write_findings(database, run_id, plan.findings)
            link_previous_run(database, run_id, changes)
    return Recorded(run_id, bool(created))


def ensure_pull_request(database: Database, owner: str, repo: str, number: int) -> int:
    """The id of the pull request row, creating it (and its repository) when missing."""
    database.execute(
        "INSERT INTO repositories (owner, name) VALUES (?, ?) ON CONFLICT (owner, name) DO NOTHING",
        (owner, repo),
    )
    repository_id = database.value(
        "SELECT id FROM repositories WHERE owner = ? AND name = ?", (owner, repo)
    )
    database.execute(
        "INSERT INTO pull_requests (repository_id, number) VALUES (?, ?)"
        " ON CONFLICT (repository_id, number) DO NOTHING",
        (repository_id, number),
    )
    return int(
        database.value(
            "SELECT id FROM pull_requests WHERE repository_id = ? AND number = ?",
            (repository_id, number),
        )
    )


def _write_findings(database: Database, run_id: int, findings: Sequence[PlannedFinding]) -> None:
    database.execute_many(
        "INSERT INTO findings (run_id, position, fingerprint, file, line, end_line, category,"
        " title, severity, level, consensus_score, agreement_ratio, detected_by, disposition,"
        " reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [_finding_row(run_id, position, item) for position, item in enumerate(findings)],
    )
    rows = database.rows("SELECT position, id FROM findings WHERE run_id = ?", (run_id,))
    ids: dict[int, int] = dict(rows)
    database.execute_many(
        "INSERT INTO members (finding_id, position, bot, rule_id, finding_key, file, line,"
        " end_line, category, title, severity, confidence, comment_kind, comment_rest_id,"
        " comment_node_id, comment_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            _member_row(ids[position], index, member)
            for position, item in enumerate(findings)
            for index, member in enumerate(item.finding.members)
        ],
    )
    database.execute_many(
        "INSERT INTO verdicts (finding_id, source, verdict, severity, evidence_strength,"
        " context_completeness, in_changed_code) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (
                ids[position],
                item.verdict.source,
                item.verdict.verdict.value,
                item.verdict.severity.value,
                item.verdict.evidence_strength.value,
                item.verdict.context_completeness.value,
                int(item.verdict.in_changed_code),
            )
            for position, item in enumerate(findings)
            if item.verdict is not None
        ],
    )


def _finding_row(run_id: int, position: int, item: PlannedFinding) -> tuple[Any, ...]:
    finding = item.finding
    return (
        run_id,
        position,
        item.fingerprint,
        finding.file,
        finding.line,
        finding.end_line,
        finding.category,
        finding.title,
        finding.severity.label,
        finding.level.value,
        float(finding.consensus_score),
        float(finding.agreement_ratio),
        ",".join(finding.detected_by),
        item.disposition.value,
        item.reason,
    )


def _member_row(finding_id: int, position: int, member: NormalizedFinding) -> tuple[Any, ...]:
    source = member.source
    evidence = member.evidence
    return (
        finding_id,
        position,
        member.bot,
        member.rule_id,
        member.finding_id,
        evidence.file,
        evidence.line,
        evidence.end_line,
        member.category,
        member.title,
        member.severity.label,
        float(member.confidence),
        source.kind if source else None,
        source.rest_id if source else None,
        source.node_id if source else None,
        source.html_url if source else None,
    )
