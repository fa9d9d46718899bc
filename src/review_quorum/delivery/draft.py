"""The review to post, as `quorum review` planned it: the contract between planner and poster.

`ReviewDraft.from_plan(plan)` makes it straight from a `ReviewPlan`, every body rendered
(and escaped) from the plan's findings by the renderers that write ``github_review`` and
``summary_markdown`` in `quorum review --format json`: the review body (also the sticky
summary, which carries ``marker("summary")``), one `DraftComment` per inline finding that
can anchor (its body carries ``marker("finding", fingerprint)``; a span becomes a
multi-line comment), the gate (`plan.Gate`), which findings are still reported (a finding
in the summary is not "fixed" just because it is no longer inline), and per finding the bot
comments its members came from (`DraftFinding`), which hiding duplicates acts on. An
inline finding that cannot be a comment (no path, a line out of range, the fingerprint of
a comment already in the draft) becomes a `Skipped` record named by its place in
``github_review.comments``, never a silent loss. A saved plan is read back into a
`ReviewPlan` by `review_quorum.saved_plan`, the one reader of plan JSON; nothing here reads
JSON, and no body is ever taken from a file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from review_quorum.checked_plan import identity
from review_quorum.errors import Skipped, shown
from review_quorum.identity import CodeLines
from review_quorum.markup.markers import (
    FINDING,
    SUMMARY,
    bot_key,
    find_markers,
    marked_bots,
    marker,
)
from review_quorum.model import MAX_LINE, CommentSource
from review_quorum.plan import Gate, InlineMode, PlannedFinding, ReviewPlan, demoted
from review_quorum.render.review import anchored, inline_comment
from review_quorum.render.review import render as render_body
from review_quorum.scoring.confidence import Disposition

REPORTED = (Disposition.INLINE, Disposition.SUMMARY)


class DraftComment(msgspec.Struct, frozen=True):
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


class DraftFinding(msgspec.Struct, frozen=True):
    """One finding of the plan: where it goes and the bot comments it was read from.

    `identities` holds every field of each of those members, serialised as
    `checked_plan.identity` does, so that the poster can compare it with the finding it
    reads from that comment on GitHub before anything is hidden.
    """

    fingerprint: str
    disposition: Disposition
    comments: tuple[tuple[str, CommentSource], ...] = ()  # (bot, comment) per member
    link: CommentSource | None = None
    identities: tuple[bytes, ...] = ()  # each of those members' fields, as serialised

    @classmethod
    def from_planned(cls, item: PlannedFinding) -> DraftFinding:
        """The finding as the poster needs it, with every member that names its comment."""
        comments: list[tuple[str, CommentSource]] = []
        identities: list[bytes] = []
        for member in item.finding.members:
            if member.source is not None:
                comments.append((member.bot, member.source))
                identities.append(identity(member))
        return cls(
            item.fingerprint, item.disposition, tuple(comments), item.link, tuple(identities)
        )

    @property
    def reported(self) -> bool:
        """Listed by quorum, inline or in the summary (not dropped, not only audited)."""
        return self.disposition in REPORTED

    @property
    def bots(self) -> frozenset[str]:
        """The bots whose comments this finding was read from."""
        return frozenset(bot for bot, _ in self.comments)


class ReviewDraft(msgspec.Struct, frozen=True):
    """One review (body plus inline comments) and the sticky summary comment."""

    body: str
    comments: tuple[DraftComment, ...]
    summary: str
    event: str = "COMMENT"
    commit_id: str | None = None
    gate: Gate | None = None
    skipped: tuple[Skipped, ...] = ()
    reported: frozenset[str] = frozenset()
    findings: tuple[DraftFinding, ...] = ()
    inline_mode: InlineMode = "post"
    # Members of a saved plan that GitHub's comments did not bear out (`checked_plan`):
    # the draft was rebuilt from GitHub's comments, and no comment is hidden or restored.
    mismatched: int = 0
    # The bots that reported on the head this run (`markers.bot_key`), None when unknown:
    # a gone finding is fixed only when every bot that reported it is among them.
    ran: frozenset[str] | None = None
    # The head's code (the checkout, else the diff's lines), None when not at hand: a gone
    # finding is fixed only when its flagged line changed or is gone (`delivery.fixing`).
    lines: CodeLines | None = None

    @classmethod
    def from_plan(
        cls,
        plan: ReviewPlan,
        *,
        source: str = "<plan>",
        event: str = "COMMENT",
        mismatched: int = 0,
        lines: CodeLines | None = None,
    ) -> ReviewDraft:
        """The draft of a plan, every body rendered (and escaped) from its findings;
        `source` names the plan in the `Skipped` record of a finding that cannot be posted;
        `lines` is the head's code, for telling whether a gone finding's code changed."""
        comments, skipped, reasons = _comments(plan, source)
        plan = demoted(plan, reasons)  # what cannot be a comment is listed in the summary
        body = render_body(plan)
        return cls(
            body=body,
            comments=comments,
            summary=with_summary_marker(body),
            event=event,
            commit_id=plan.commit_id or None,
            gate=plan.gate,
            skipped=skipped,
            reported=frozenset(
                item.fingerprint
                for item in plan.findings
                if item.disposition is not Disposition.DROPPED
            ),
            findings=tuple(DraftFinding.from_planned(item) for item in plan.findings),
            inline_mode=plan.settings.inline_mode,
            mismatched=mismatched,
            ran=bots_that_ran(plan),
            lines=lines,
        )

    def with_bodies(self, convert: Callable[[str], str]) -> ReviewDraft:
        """The draft with every body passed through `convert` (a platform's dialect)."""
        comments = tuple(msgspec.structs.replace(c, body=convert(c.body)) for c in self.comments)
        return msgspec.structs.replace(
            self, body=convert(self.body), summary=convert(self.summary), comments=comments
        )

    def fingerprints(self) -> frozenset[str]:
        """Every finding this draft still reports: inline, in the review body or summary."""
        inline = {comment.fingerprint for comment in self.comments}
        listed = find_markers(self.body) + find_markers(self.summary)
        marked = {payload for kind, payload in listed if kind == FINDING}
        return frozenset(inline | marked | self.reported)


def bots_that_ran(plan: ReviewPlan) -> frozenset[str]:
    """The bots that reported on the head in `plan` (keys as `BY` markers hold them):
    every bot with a finding, kept or dropped, the awaited bots that reviewed it, and the
    expected ones the history's coverage shows reviewing it."""
    names = {member.bot for item in plan.findings for member in item.finding.members}
    names.update(plan.reviewed)
    if plan.awaited is not None:
        names.update(plan.awaited.reported)
    return frozenset(map(bot_key, names))


def not_rechecked(draft: ReviewDraft, body: str) -> tuple[str, ...]:
    """The bots named in our comment `body` that did not report on this run's head: its
    finding's absence proves nothing until they do (nothing when `body` names none)."""
    bots = marked_bots(body)
    if bots is None or draft.ran is None:
        return ()
    return tuple(sorted(bots - draft.ran))


def with_summary_marker(summary: str) -> str:
    """`summary` with the sticky marker on its first line, unless it already has one."""
    if (SUMMARY, "") in find_markers(summary):
        return summary
    return f"{marker(SUMMARY)}\n{summary}"


def _comments(
    plan: ReviewPlan, source: str
) -> tuple[tuple[DraftComment, ...], tuple[Skipped, ...], dict[str, str]]:
    """The plan's inline findings that can anchor, as comments (none in link mode); and
    why each one that cannot be a comment is not (by identity), also a `Skipped` record."""
    comments: list[DraftComment] = []
    skipped: list[Skipped] = []
    reasons: dict[str, str] = {}
    seen: set[str] = set()
    linking = plan.settings.inline_mode == "link"
    for index, item in enumerate(() if linking else anchored(plan)):
        position = f"/github_review/comments/{index}"
        try:
            comment = _comment(item)
        except ValueError as err:
            skipped.append(Skipped(source, position, str(err)))
            reasons[item.fingerprint] = f"not posted inline: {err}"
            continue
        if comment.fingerprint in seen:  # a hand-made plan: `assemble` keeps them distinct
            reason = f"duplicate finding fingerprint {comment.fingerprint}"
            skipped.append(Skipped(source, position, f"{reason}: listed in the summary"))
            reasons[item.fingerprint] = f"not posted inline: {reason}"
            continue
        seen.add(comment.fingerprint)
        comments.append(comment)
    return tuple(comments), tuple(skipped), reasons


def _comment(item: PlannedFinding) -> DraftComment:
    """One inline comment: a span (`span_end`) becomes `start_line`..`line`."""
    finding = item.finding
    if not finding.file.strip():
        raise ValueError("comment has no path")
    start_line, line = None, finding.line
    if item.span_end is not None and finding.line is not None:
        start_line, line = finding.line, item.span_end
    line = _line(line, "line")
    if start_line is not None and start_line >= line:
        raise ValueError(f"start_line {start_line} must be before line {line}")
    return DraftComment(
        path=finding.file,
        line=line,
        body=inline_comment(item),
        fingerprint=item.fingerprint,
        start_line=start_line,
        start_side=None if start_line is None else "RIGHT",
    )


def _line(value: int | None, name: str) -> int:
    if value is None or not 1 <= value <= MAX_LINE:
        raise ValueError(
            f"comment {name} must be a line number from 1 to {MAX_LINE}, not {shown(value)}"
        )
    return value
