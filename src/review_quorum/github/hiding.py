"""One run's hiding of duplicate bot comments: read, decide, claim, act, settle: `Hiding`.

`prepare` reads what the decision needs: quorum's record in its sticky summary, and for
every comment a finding names or the record holds, its author (REST `user.type` says
whether GitHub counts it as a bot), whether a human replied after it in its thread, and
its minimized state (GraphQL). A comment the plan attributes to another author than
GitHub does is left alone: a plan is untrusted input. `sticky_body` is the summary with
the note and the record; the poster writes it before any mutation, so claims come first.
`run` then hides and restores (after quorum's own review is up, so that no finding is
hidden before quorum says it) and reports whether the sticky must be written again with
the settled record. With hiding off, the record is carried forward unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from review_quorum.checked_plan import Fresh, identity
from review_quorum.comment_kinds import CommentKind
from review_quorum.comment_links import comment_key
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.delivery.fitting import fit_body
from review_quorum.github import moderation
from review_quorum.github.client import GitHubClient
from review_quorum.github.duplicates import (
    HIDDEN,
    HIDING,
    RECORD_KINDS,
    HidingDecision,
    PostedComment,
    Read,
    decide_hiding,
    find_duplicates,
    mismatches,
    read_record,
    record_markers,
)
from review_quorum.github.remote import RemoteComment, RemoteIssueComment, RemoteReview
from review_quorum.markup.markers import find_markers, marker

REFUSED_NOTE = (
    "_Duplicate bot comments were not hidden: this token may not hide comments "
    "(a pull request from a fork gets a read-only token)._"
)


class HidingResult(msgspec.Struct, frozen=True):
    """What hiding did this run, and how many comments quorum keeps hidden in all."""

    enabled: bool = False
    hidden: int = 0
    restored: int = 0
    total: int = 0
    spared: int = 0
    refused: bool = False
    mismatched: int = 0  # comments the plan names that GitHub shows otherwise: left alone

    def describe(self) -> str:
        if not self.enabled:
            return ""
        if self.refused:
            return "duplicates not hidden: the token may not hide comments"
        text = f"{self.hidden} duplicate bot comment(s) hidden, {self.restored} restored"
        text += f", {self.spared} left visible (a human replied)" if self.spared else ""
        if self.mismatched:
            text += f", {self.mismatched} not hidden (the plan does not match them on GitHub)"
        return text


class Hiding:
    """Hiding duplicates (`--hide-duplicates`) in one run of the poster: `prepare` after its
    reads, `sticky_body` for the summary it writes, `run` once its own review is up."""

    def __init__(
        self, client: GitHubClient, draft: ReviewDraft, login: str, *, enabled: bool, dry_run: bool
    ) -> None:
        self.client = client
        self.draft = draft
        self.login = login
        self.enabled = enabled
        self.dry_run = dry_run
        self.record: dict[str, str] = {}
        self.decision = HidingDecision((), (), {})
        self.warnings: list[str] = []
        self.mismatched: list[str] = []
        self.suspended = False  # the plan does not match GitHub: hide and restore nothing
        self._done: tuple[int, int] = (0, 0)

    def prepare(
        self,
        reviews: Sequence[RemoteReview],
        comments: Sequence[RemoteComment],
        issue_comments: Sequence[RemoteIssueComment],
        sticky_body: str | None,
        fresh: Fresh | None = None,
    ) -> None:
        """Read the record and the state of every comment it or the plan names; decide.

        `fresh` is what the bot-comment readers make of the comments just read: hiding is
        decided from it, and a plan member it does not bear out is reported, not hidden.
        """
        self.record = read_record(sticky_body or "")
        # The caller that rebuilt the draft says so; here it only stops hiding and restoring.
        self.suspended = self.enabled and self.draft.mismatched > 0
        if not self.enabled or self.suspended:
            return
        read = None if fresh is None or self.client.offline else _by_comment(fresh)
        if read is not None:
            self.mismatched = mismatches(self.draft.findings, read)
        if self.mismatched:
            self.warnings.append(
                f"{len(self.mismatched)} bot comment(s) the plan names do not match them as "
                f"GitHub shows them now, so they were not hidden: {', '.join(self.mismatched)}"
            )
        known = _catalogue(reviews, comments, issue_comments)
        named = {
            comment_key(source): source.author
            for finding in self.draft.findings
            for _, source in finding.comments
        }
        wanted = find_duplicates(self.draft.findings, self.draft.inline_mode, read) | set(
            self.record
        )
        found = {
            key: known[key]
            for key in sorted(wanted)
            if key in known and _same_author(named.get(key, ""), known[key].author)
        }
        states = moderation.comment_states(
            self.client, [comment.node_id for comment in found.values() if comment.node_id]
        )
        looked_up = {
            key: _with_state(comment, states.get(comment.node_id))
            for key, comment in found.items()
            if comment.node_id in states or self.client.offline
        }
        self.decision = decide_hiding(
            self.draft.findings, self.draft.inline_mode, looked_up, self.record, self.login, read
        )
        self.record = dict(self.decision.record)

    def sticky_body(self, summary: str) -> str:
        """The summary, a note on what is hidden, and the record, within GitHub's limit."""
        text = without_record(summary)
        note, markers = self._note(), record_markers(self.record)
        if note or markers:
            tail = "\n".join(markers)
            text = "\n\n".join(part for part in (text.rstrip("\n"), note, tail) if part) + "\n"
        return fit_body(text)

    def run(self) -> bool:
        """Hide and restore; True when the record changed and the sticky must say so."""
        if not self.enabled or self.suspended or self.decision.refused:
            return False
        hide = [comment.node_id for comment in self.decision.hide]
        restore = [comment.node_id for comment in self.decision.restore]
        hidden = moderation.minimize(self.client, hide, dry_run=self.dry_run)
        restored = moderation.unminimize(self.client, restore, dry_run=self.dry_run)
        self._warn("hide", hidden, self.decision.hide)
        self._warn("restore", restored, self.decision.restore)
        by_node = {c.node_id: c.key for c in (*self.decision.hide, *self.decision.restore)}
        settled = self.decision.settle(
            (by_node[node] for node in hidden.done), (by_node[node] for node in restored.done)
        )
        refused = hidden.refused or restored.refused
        if refused and not hidden.done:
            self.decision = HidingDecision((), (), settled, self.decision.spared, refused=True)
        self._done = (len(hidden.done), len(restored.done))
        changed = settled != self.record or refused
        self.record = settled
        return changed

    def result(self) -> HidingResult:
        return HidingResult(
            enabled=self.enabled,
            hidden=self._done[0],
            restored=self._done[1],
            total=sum(1 for state in self.record.values() if state in (HIDDEN, HIDING)),
            spared=self.decision.spared,
            refused=self.decision.refused,
            mismatched=self.draft.mismatched if self.suspended else len(self.mismatched),
        )

    def _note(self) -> str:
        if not self.enabled:
            return ""
        if self.decision.refused:
            return REFUSED_NOTE
        count = sum(1 for state in self.record.values() if state in (HIDDEN, HIDING))
        notes = []
        if count:
            notes.append(
                f"_review-quorum hid {count} bot comment(s) repeating findings listed here, "
                "as duplicates; it shows them again when their finding changes._"
            )
        if self.suspended:
            notes.append(
                f"_{self.draft.mismatched} finding(s) of the plan did not match the bots' "
                "comments as GitHub shows them, so they were left out and no comment was "
                "hidden or shown again this run._"
            )
        elif self.mismatched:
            notes.append(
                f"_{len(self.mismatched)} bot comment(s) named by the plan do not match them "
                "as GitHub shows them now; review-quorum did not hide them._"
            )
        return "\n\n".join(notes)

    def _warn(
        self, verb: str, outcome: moderation.MutationResult, comments: Iterable[PostedComment]
    ) -> None:
        keys = {comment.node_id: comment.key for comment in comments}
        for node, why in outcome.failed:
            self.warnings.append(f"could not {verb} comment {keys.get(node, node)}: {why}")


def without_record(body: str) -> str:
    """`body` minus any record marker lines (a plan's summary must not forge them)."""
    kinds = set(RECORD_KINDS)
    lines = {marker(kind, payload) for kind, payload in find_markers(body) if kind in kinds}
    return "\n".join(line for line in body.split("\n") if line not in lines)


def _by_comment(fresh: Fresh) -> Read:
    """Each comment's findings as just read, serialised (`checked_plan.identity`)."""
    read: dict[str, set[bytes]] = {}
    for finding in (*fresh.findings, *fresh.alone):
        if finding.source is not None:
            read.setdefault(comment_key(finding.source), set()).add(identity(finding))
    return {key: frozenset(found) for key, found in read.items()}


def _catalogue(
    reviews: Sequence[RemoteReview],
    comments: Sequence[RemoteComment],
    issue_comments: Sequence[RemoteIssueComment],
) -> dict[str, PostedComment]:
    replied = human_replied(comments)
    inline, issue, review = (
        kind.source_kind for kind in (CommentKind.INLINE, CommentKind.ISSUE, CommentKind.REVIEW)
    )  # the keys are `comment_links.comment_key`s
    known = {
        f"{inline}:{c.id}": PostedComment(
            f"{inline}:{c.id}", c.node_id, c.author, c.bot, c.id in replied
        )
        for c in comments
    }
    known |= {
        f"{issue}:{c.id}": PostedComment(f"{issue}:{c.id}", c.node_id, c.author, c.bot)
        for c in issue_comments
    }
    known |= {
        f"{review}:{r.id}": PostedComment(f"{review}:{r.id}", r.node_id, r.author, r.bot)
        for r in reviews
    }
    return known


def human_replied(comments: Sequence[RemoteComment]) -> set[int]:
    """Review comments after which a human (not a bot) wrote in the same thread."""
    last_human: dict[int, int] = {}
    for comment in comments:
        if not comment.bot:
            thread = comment.in_reply_to or comment.id
            last_human[thread] = max(last_human.get(thread, 0), comment.id)
    return {
        comment.id
        for comment in comments
        if last_human.get(comment.in_reply_to or comment.id, 0) > comment.id
    }


def _same_author(named: str, actual: str) -> bool:
    return not named or named.casefold() == actual.casefold()


def _with_state(comment: PostedComment, state: moderation.CommentState | None) -> PostedComment:
    if state is None:
        return comment
    return PostedComment(
        comment.key,
        comment.node_id,
        comment.author,
        comment.bot,
        comment.human_reply,
        state.minimized,
        state.can_minimize,
    )
