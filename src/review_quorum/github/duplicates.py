"""Which bot comments to hide as duplicates, and which of them to bring back: `decide_hiding`.

Pure decisions, no I/O. A finding quorum reports (inline or in the summary) that was read
from comments of two or more bots makes those comments duplicates: quorum's own comment or
summary entry says it once. In link mode the comment the summary links to stays visible.
A comment is hidden only when every finding read from it is such a duplicate (a digest of
several findings stays while one of them is said only there), when GitHub marks its author
as a bot (never a human, never ourselves), when no human replied after it in its thread,
and when nobody has minimized it already. Given what the poster read from GitHub (`read`:
each comment's findings as the bot-comment readers make them now), a comment is hidden
only when every finding read from it is one the plan names exactly and calls a duplicate,
and only members that match count as bots agreeing; a member that matches nothing is
one of `mismatches`, and its comment stays.

GitHub does not say who minimized a comment, so quorum keeps its own record, by comment
(``kind:rest_id``), in hidden markers of its sticky summary: ``hiding`` (about to be hidden:
written before the mutation, so that an interrupted run still knows), ``hidden`` (hidden by
quorum) and ``unhidden`` (hidden by quorum, then shown again by a person: left visible
while it stays a duplicate). A recorded comment whose finding disappeared or split is
restored, but only while it is still minimized as a duplicate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import msgspec

from review_quorum.comment_links import comment_key
from review_quorum.delivery.draft import DraftFinding
from review_quorum.markup.markers import find_markers, marker

HIDDEN = "hidden"
HIDING = "hiding"
UNHIDDEN = "unhidden"
RECORD_KINDS = (HIDDEN, HIDING, UNHIDDEN)
DUPLICATE = "duplicate"  # GitHub's minimizedReason for the DUPLICATE classifier


class PostedComment(msgspec.Struct, frozen=True):
    """What GitHub says about one comment: author, replies, and whether it is minimized."""

    key: str
    node_id: str
    author: str
    bot: bool
    human_reply: bool = False
    minimized: str | None = None  # GitHub's minimizedReason; None while visible
    can_minimize: bool = True


class HidingDecision(msgspec.Struct, frozen=True):
    """One run's changes: what to hide and restore, and the record to claim first."""

    hide: tuple[PostedComment, ...]
    restore: tuple[PostedComment, ...]
    record: Mapping[str, str]
    spared: int = 0  # duplicates left visible because a human replied to them
    refused: bool = False  # the token may not hide these comments

    def settle(self, hidden: Iterable[str], restored: Iterable[str]) -> dict[str, str]:
        """The record once the mutations ran: claims that failed are dropped."""
        done, back = set(hidden), set(restored)
        settled: dict[str, str] = {}
        for key, state in self.record.items():
            if state == HIDING:
                if key in done:
                    settled[key] = HIDDEN
            elif key not in back:
                settled[key] = state
        return settled


Read = Mapping[str, frozenset[bytes]]  # comment key -> its findings, as GitHub shows it


def find_duplicates(
    findings: Sequence[DraftFinding], mode: str, read: Read | None = None
) -> set[str]:
    """The comments every finding read from them calls duplicates (by ``kind:rest_id``)."""
    verdict: dict[str, bool] = {}
    covered: dict[str, set[bytes]] = {}
    for finding in findings:
        claims = [(bot, comment_key(source)) for bot, source in finding.comments]
        matched = [_matches(read, key, finding, index) for index, (_, key) in enumerate(claims)]
        agreeing = {bot for (bot, _), ok in zip(claims, matched, strict=True) if ok}
        duplicated = finding.reported and len(agreeing) >= 2
        linked = comment_key(finding.link) if mode == "link" and finding.link else None
        for index, (_, key) in enumerate(claims):
            ok = matched[index]
            verdict[key] = verdict.get(key, True) and duplicated and ok and key != linked
            if ok and read is not None:
                covered.setdefault(key, set()).add(finding.identities[index])
    hide = {key for key, hidden in verdict.items() if hidden}
    if read is None:
        return hide
    return {key for key in hide if read.get(key, frozenset()) <= covered.get(key, set())}


def mismatches(findings: Sequence[DraftFinding], read: Read) -> list[str]:
    """The comments a finding names whose member GitHub's current comment does not bear out."""
    return sorted(
        {
            comment_key(source)
            for finding in findings
            for index, (_, source) in enumerate(finding.comments)
            if not _matches(read, comment_key(source), finding, index)
        }
    )


def _matches(read: Read | None, key: str, finding: DraftFinding, index: int) -> bool:
    if read is None:
        return True
    return index < len(finding.identities) and finding.identities[index] in read.get(key, ())


def decide_hiding(
    findings: Sequence[DraftFinding],
    mode: str,
    comments: Mapping[str, PostedComment],
    record: Mapping[str, str],
    login: str,
    read: Read | None = None,
) -> HidingDecision:
    """What to hide and restore this run, given GitHub's state and quorum's record."""
    ours = login.casefold()
    eligible: dict[str, PostedComment] = {}
    spared = 0
    for key in sorted(find_duplicates(findings, mode, read)):
        comment = comments.get(key)
        if comment is None or not comment.bot or comment.author.casefold() == ours:
            continue
        if comment.human_reply:
            spared += 1
        else:
            eligible[key] = comment
    claimed, hide = _keep_hidden(eligible, record)
    restore = [
        comments[key]
        for key, state in sorted(record.items())
        if key not in eligible and state != UNHIDDEN and _ours_hidden(comments.get(key))
    ]
    refused = bool(hide or restore) and not any(c.can_minimize for c in (*hide, *restore))
    hide = [comment for comment in hide if comment.can_minimize]
    claimed |= {comment.key: HIDING for comment in hide}
    # Ours (it is minimized as a duplicate) until it is back, even if this token cannot.
    claimed |= {comment.key: HIDDEN for comment in restore}
    restore = [comment for comment in restore if comment.can_minimize]
    return HidingDecision(tuple(hide), tuple(restore), claimed, spared, refused)


def _keep_hidden(
    eligible: Mapping[str, PostedComment], record: Mapping[str, str]
) -> tuple[dict[str, str], list[PostedComment]]:
    """The record of eligible comments already settled, and those still to hide."""
    claimed: dict[str, str] = {}
    hide: list[PostedComment] = []
    for key, comment in eligible.items():
        state = record.get(key)
        if state == UNHIDDEN or (state == HIDDEN and comment.minimized is None):
            claimed[key] = UNHIDDEN  # a person showed it again: leave it be
        elif comment.minimized is None:
            hide.append(comment)
        elif comment.minimized == DUPLICATE and state in (HIDDEN, HIDING):
            claimed[key] = HIDDEN
        # else: minimized by someone else, for their own reason; not ours to touch
    return claimed, hide


def _ours_hidden(comment: PostedComment | None) -> bool:
    return comment is not None and comment.minimized == DUPLICATE


def read_record(body: str) -> dict[str, str]:
    """The record in our sticky summary's markers (the last word on a key wins)."""
    return {payload: kind for kind, payload in find_markers(body) if kind in RECORD_KINDS}


def record_markers(record: Mapping[str, str]) -> list[str]:
    """The record as marker lines, in a stable order."""
    return [marker(record[key], key) for key in sorted(record)]
