"""Recording a review run: the plan `quorum review` made, stored once per identity.

A run is identified by its repository, pull request, head commit and content: the SHA-256
of the plan document (canonical JSON), which is a function of the inputs' content and the
settings, so `quorum review --db` and a later `quorum post --db` of the same saved plan are
one run. `RunRecord.from_report` reads the JSON report (`quorum review --format json`),
checking its shape and naming the JSON pointer of anything malformed; `record_run` writes
the run, its findings and every member (bot, rule, location, fingerprint, disposition and
the GitHub ids of the comment it came from) in one transaction, or nothing when the run is
already there: re-recording changes nothing. A new run also settles what became of the
previous run's findings (`successive`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from review_quorum.errors import InputError
from review_quorum.history.database import Database
from review_quorum.history.schema import utc_now
from review_quorum.history.successive import Changes, link_previous_run


class _Evidence(msgspec.Struct):
    file: str = ""
    line: int | None = None
    end_line: int | None = None


class _Source(msgspec.Struct):
    kind: str
    rest_id: int
    node_id: str = ""
    html_url: str = ""


class _Member(msgspec.Struct):
    bot: str
    severity: str
    category: str
    title: str
    finding_id: str = ""
    evidence: _Evidence = msgspec.field(default_factory=_Evidence)
    confidence: float = 1.0
    rule_id: str = ""
    source: _Source | None = None


class _Finding(msgspec.Struct):
    file: str
    line: int | None
    category: str
    title: str
    severity: str
    level: str
    consensus_score: float
    detected_by: list[str]
    members: list[_Member]
    agreement_ratio: float = 0.0
    end_line: int | None = None
    fingerprint: str = ""
    disposition: str = ""
    reason: str = ""


class _Gate(msgspec.Struct):
    level: str = "none"
    failed: bool = False


class _Report(msgspec.Struct):
    findings: list[_Finding] = msgspec.field(default_factory=list)
    bots_ran: int = 0
    input_findings: int = 0
    skipped: list[Any] = msgspec.field(default_factory=list)
    gate: _Gate = msgspec.field(default_factory=_Gate)
    settings: dict[str, Any] = msgspec.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One review run ready to store: where it ran and everything it decided."""

    owner: str
    repo: str
    number: int
    head_sha: str
    content_sha256: str
    report: _Report
    origin: str = "db"  # db (quorum review/post --db) | action (the GitHub Action)

    @classmethod
    def from_report(
        cls,
        document: Any,
        *,
        owner: str,
        repo: str,
        number: int,
        head_sha: str,
        source: str,
        origin: str = "db",
    ) -> RunRecord:
        """A run from a JSON report; `InputError` naming the pointer when it is malformed."""
        try:
            report = msgspec.convert(document, _Report)
        except msgspec.ValidationError as err:
            raise InputError(source, _pointer(str(err)), f"not a review plan: {err}") from None
        canonical = orjson.dumps(document, option=orjson.OPT_SORT_KEYS)
        digest = hashlib.sha256(canonical).hexdigest()
        return cls(owner, repo, number, head_sha, digest, report, origin)

    @property
    def findings(self) -> int:
        return len(self.report.findings)


@dataclass(frozen=True, slots=True)
class Recorded:
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
        report = record.report
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
                report.bots_ran,
                report.input_findings,
                len(report.skipped),
                report.gate.level,
                int(report.gate.failed),
                orjson.dumps(report.settings, option=orjson.OPT_SORT_KEYS).decode(),
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
            _write_findings(database, run_id, report.findings)
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


def _write_findings(database: Database, run_id: int, findings: list[_Finding]) -> None:
    database.execute_many(
        "INSERT INTO findings (run_id, position, fingerprint, file, line, end_line, category,"
        " title, severity, level, consensus_score, agreement_ratio, detected_by, disposition,"
        " reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                run_id,
                position,
                item.fingerprint,
                item.file,
                item.line,
                item.end_line,
                item.category,
                item.title,
                item.severity,
                item.level,
                item.consensus_score,
                item.agreement_ratio,
                ",".join(item.detected_by),
                item.disposition,
                item.reason,
            )
            for position, item in enumerate(findings)
        ],
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
            for index, member in enumerate(item.members)
        ],
    )


def _member_row(finding_id: int, position: int, member: _Member) -> tuple[Any, ...]:
    source = member.source
    return (
        finding_id,
        position,
        member.bot,
        member.rule_id,
        member.finding_id,
        member.evidence.file,
        member.evidence.line,
        member.evidence.end_line,
        member.category,
        member.title,
        member.severity,
        member.confidence,
        source.kind if source else None,
        source.rest_id if source else None,
        source.node_id if source else None,
        source.html_url if source else None,
    )


def _pointer(message: str) -> str:
    """msgspec's ``- at `$.findings[0].bot``` as the JSON pointer ``/findings/0/bot``."""
    _, marker, path = message.rpartition("- at `$")
    if not marker:
        return "/"
    path = path.rstrip("`")
    parts = path.replace("[", ".").replace("]", "").split(".")
    return "/" + "/".join(part for part in parts if part)
