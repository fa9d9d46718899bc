"""The review to post, as `quorum review` planned it: the contract between planner and poster.

`ReviewDraft.from_plan_json` reads the JSON document `quorum review --format json` writes:
``github_review`` (exactly the body of POST /pulls/{n}/reviews: ``body``, ``event``,
``comments[]`` with ``path``, ``line``, ``side``, ``body`` and optional ``start_line`` /
``start_side``; every comment body carries ``marker("finding", fingerprint)``),
``summary_markdown`` (the sticky comment, carrying ``marker("summary")``), ``gate``
(``{"level", "failed", "count"}``), optionally ``gate_findings_by_level`` (how many
findings the gate would count stand at exactly each consensus level), which lets
``--request-changes-on`` pick any level rather than only the one the plan was gated at,
and optionally ``findings[]`` (each with ``fingerprint`` and ``disposition``, and the bot
comments it came from: see `draft_findings`): a finding still reported in the summary is
not "fixed" just because it is no longer inline. ``settings.inline_mode`` says whether the
plan posts inline comments ("post") or links to the bots' own ("link"). A
structurally broken document raises `InputError` naming the JSON pointer; one unusable
comment becomes a `Skipped` record on the draft, never a silent loss.

`from_plan_json` posts the bodies it is given as they are, so it only ever gets bodies
just rendered: `ReviewDraft.from_plan(plan)` renders them from a `ReviewPlan`, and
`quorum post PLAN.json` reads the file with `review_quorum.saved_plan`, which rebuilds the
plan from its findings and never uses the file's own bodies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from review_quorum.config import INLINE_MODES
from review_quorum.errors import InputError, Skipped, shown
from review_quorum.github.draft_findings import DraftFinding, read_findings
from review_quorum.markup.markers import FINDING, SUMMARY, find_markers, marker
from review_quorum.model import MAX_LINE, ConsensusLevel
from review_quorum.plan import ReviewPlan
from review_quorum.render.json_report import report_data

EVENTS = ("COMMENT", "REQUEST_CHANGES", "APPROVE")
SIDES = ("LEFT", "RIGHT")


@dataclass(frozen=True, slots=True)
class DraftComment:
    """One inline comment to post; `fingerprint` identifies its finding across pushes."""

    path: str
    line: int
    body: str
    fingerprint: str
    side: str = "RIGHT"
    start_line: int | None = None
    start_side: str | None = None

    def payload(self) -> dict[str, Any]:
        """The comment as an item of the create-review `comments` array."""
        data: dict[str, Any] = {
            "path": self.path,
            "line": self.line,
            "side": self.side,
            "body": self.body,
        }
        if self.start_line is not None:
            data["start_line"] = self.start_line
            data["start_side"] = self.start_side or self.side
        return data

    @property
    def anchor(self) -> str:
        lines = f"{self.start_line}-{self.line}" if self.start_line else str(self.line)
        return f"{self.path}:{lines}"


@dataclass(frozen=True, slots=True)
class Gate:
    """The plan's gate result, and per-level counts when the plan provides them."""

    level: str
    failed: bool
    count: int
    by_level: Mapping[str, int] | None = None

    def fails_at(self, level: ConsensusLevel) -> bool | None:
        """Whether findings at or above `level` exist; None when the plan cannot tell."""
        if self.by_level is not None:
            return any(
                count > 0
                for name, count in self.by_level.items()
                if ConsensusLevel.parse(name).rank >= level.rank
            )
        if self.level == "none":
            return None
        gated = ConsensusLevel.parse(self.level)
        if self.failed and gated.rank >= level.rank:
            return True
        if not self.failed and gated.rank <= level.rank:
            return False
        return None


@dataclass(frozen=True, slots=True)
class ReviewDraft:
    """One review (body plus inline comments) and the sticky summary comment."""

    body: str
    comments: tuple[DraftComment, ...]
    summary: str
    event: str = "COMMENT"
    commit_id: str | None = None
    gate: Gate | None = None
    skipped: tuple[Skipped, ...] = field(default=())
    reported: frozenset[str] = frozenset()
    findings: tuple[DraftFinding, ...] = ()
    inline_mode: str = "post"
    # Members of a saved plan that GitHub's comments did not bear out (`checked_plan`):
    # the draft was rebuilt from GitHub's comments, and no comment is hidden or restored.
    mismatched: int = 0

    @classmethod
    def from_plan_json(cls, document: object, *, source: str = "<plan>") -> ReviewDraft:
        """The draft a `quorum review --format json` document describes."""
        root = _mapping(document, source, "")
        review = _mapping(root.get("github_review"), source, "/github_review")
        summary = _text(root.get("summary_markdown"), source, "/summary_markdown")
        comments, skipped = _comments(review.get("comments", []), source)
        event = review.get("event", "COMMENT")
        if event not in EVENTS:
            allowed = ", ".join(EVENTS)
            raise InputError(source, "/github_review/event", f"expected one of {allowed}")
        commit_id = review.get("commit_id")
        if commit_id is not None and not isinstance(commit_id, str):
            raise InputError(source, "/github_review/commit_id", "expected a string")
        findings = read_findings(root.get("findings"), source)
        return cls(
            body=_text(review.get("body", ""), source, "/github_review/body"),
            comments=comments,
            summary=with_summary_marker(summary),
            event=event,
            commit_id=commit_id or None,
            gate=_gate(root, source),
            skipped=skipped,
            reported=frozenset(f.fingerprint for f in findings if f.disposition != "dropped"),
            findings=findings,
            inline_mode=_inline_mode(root.get("settings"), source),
        )

    @classmethod
    def from_plan(cls, plan: ReviewPlan, *, source: str = "<plan>") -> ReviewDraft:
        """The draft of a plan, every body rendered (and escaped) from its findings."""
        return cls.from_plan_json(report_data(plan), source=source)

    def fingerprints(self) -> frozenset[str]:
        """Every finding this draft still reports: inline, in the review body or summary."""
        inline = {comment.fingerprint for comment in self.comments}
        listed = find_markers(self.body) + find_markers(self.summary)
        marked = {payload for kind, payload in listed if kind == FINDING}
        return frozenset(inline | marked | self.reported)


def with_summary_marker(summary: str) -> str:
    """`summary` with the sticky marker on its first line, unless it already has one."""
    if (SUMMARY, "") in find_markers(summary):
        return summary
    return f"{marker(SUMMARY)}\n{summary}"


def fingerprint_of(body: str) -> str | None:
    """The fingerprint of the first finding marker in `body`, if any."""
    return next((payload for kind, payload in find_markers(body) if kind == FINDING), None)


def _comments(value: object, source: str) -> tuple[tuple[DraftComment, ...], tuple[Skipped, ...]]:
    if not isinstance(value, list):
        raise InputError(source, "/github_review/comments", "expected an array")
    comments: list[DraftComment] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        position = f"/github_review/comments/{index}"
        try:
            comment = _comment(item)
        except ValueError as err:
            skipped.append(Skipped(source, position, str(err)))
            continue
        if comment.fingerprint in seen:
            reason = f"duplicate finding fingerprint {comment.fingerprint}; posted once"
            skipped.append(Skipped(source, position, reason))
            continue
        seen.add(comment.fingerprint)
        comments.append(comment)
    return tuple(comments), tuple(skipped)


def _comment(item: object) -> DraftComment:
    if not isinstance(item, dict):
        raise ValueError("expected an object with path, line, side and body")
    path, body = item.get("path"), item.get("body")
    if not isinstance(path, str) or not path.strip():
        raise ValueError("comment has no path")
    if not isinstance(body, str):
        raise ValueError("comment has no body")
    fingerprint = fingerprint_of(body)
    if fingerprint is None:
        raise ValueError("comment body has no finding marker, so it cannot be posted idempotently")
    line = _line(item.get("line"), "line")
    start_line = None if item.get("start_line") is None else _line(item["start_line"], "start_line")
    if start_line is not None and start_line >= line:
        raise ValueError(f"start_line {start_line} must be before line {line}")
    return DraftComment(
        path=path,
        line=line,
        body=body,
        fingerprint=fingerprint,
        side=_side(item.get("side", "RIGHT"), "side"),
        start_line=start_line,
        start_side=None if start_line is None else _side(item.get("start_side"), "start_side"),
    )


def _line(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LINE:
        raise ValueError(
            f"comment {name} must be a line number from 1 to {MAX_LINE}, not {shown(value)}"
        )
    return value


def _side(value: object, name: str) -> str:
    if value is None and name == "start_side":
        return "RIGHT"
    if value not in SIDES:
        raise ValueError(f"comment {name} must be LEFT or RIGHT, not {shown(value)}")
    return str(value)


def _inline_mode(value: object, source: str) -> str:
    settings = {} if value is None else _mapping(value, source, "/settings")
    mode = settings.get("inline_mode", "post")
    if mode not in INLINE_MODES:
        raise InputError(source, "/settings/inline_mode", "expected post or link")
    return str(mode)


def _gate(root: Mapping[str, Any], source: str) -> Gate | None:
    value = root.get("gate")
    if value is None:
        return None
    gate = _mapping(value, source, "/gate")
    level, failed, count = gate.get("level"), gate.get("failed"), gate.get("count", 0)
    if level != "none" and level not in {item.value for item in ConsensusLevel}:
        raise InputError(source, "/gate/level", f"unknown consensus level {shown(level)}")
    if not isinstance(failed, bool):
        raise InputError(source, "/gate/failed", "expected true or false")
    if isinstance(count, bool) or not isinstance(count, int):
        raise InputError(source, "/gate/count", "expected a whole number")
    return Gate(str(level), failed, count, _by_level(root.get("gate_findings_by_level"), source))


def _by_level(value: object, source: str) -> Mapping[str, int] | None:
    if value is None:
        return None
    counts = _mapping(value, source, "/gate_findings_by_level")
    known = {item.value for item in ConsensusLevel}
    for name, count in counts.items():
        pointer = f"/gate_findings_by_level/{name}"
        if name not in known:
            raise InputError(source, pointer, f"unknown consensus level {shown(name)}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(source, pointer, "expected a whole number >= 0")
    return dict(counts)


def _mapping(value: object, source: str, pointer: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, pointer or "/", "expected a JSON object")
    return value


def _text(value: object, source: str, pointer: str) -> str:
    if not isinstance(value, str):
        raise InputError(source, pointer, "expected a string")
    return value
