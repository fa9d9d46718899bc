"""What every poster decides alike about what is already there, whatever the platform.

Pure functions, no I/O. A comment is ours only when its author is our login (compared
case-insensitively; without a login nothing is ours) AND its body carries our marker: a
marker quoted or planted by anyone else is inert. One of our finding comments is live
until it says its finding is fixed. A comment whose text differs from the draft's only in
line endings or surrounding blank space is not stale. When a finding is no longer
reported, its live comments are marked fixed when `delivery.fixing` says so (else kept
open with a note saying why), except those someone else answered: a replied thread is
never edited or deleted again, only counted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Generic, TypeVar

import msgspec

from review_quorum.delivery.bodies import FIXED, headline, unchecked_body, without_markers
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fixing import judge_gone
from review_quorum.markup.markers import FINDING, find_markers

Posted = TypeVar("Posted")


def is_ours(author: str, login: str) -> bool:
    """Whether `author` is our `login` (platforms compare logins case-insensitively)."""
    ours = login.casefold()
    return bool(ours) and author.casefold() == ours


def has_marker(body: str, kind: str) -> bool:
    """Whether `body` carries one of our markers of `kind`."""
    return any(found == kind for found, _ in find_markers(body))


def live_fingerprint(body: str) -> str | None:
    """The finding a comment of ours is about, unless it already says the finding is fixed."""
    markers = find_markers(body)
    fingerprint = next((payload for kind, payload in markers if kind == FINDING), None)
    if fingerprint and not any(kind == FIXED for kind, _ in markers):
        return fingerprint
    return None


def normal(body: str) -> str:
    """`body` as compared with the draft: Windows line endings and outer space ignored."""
    return body.replace("\r\n", "\n").strip()


def adopted(
    draft: ReviewDraft,
    live: Mapping[str, Sequence[Posted]],
    stands_at: Callable[[Posted, DraftComment], bool],
    said: Callable[[Posted], tuple[str, str]],
) -> dict[str, Posted]:
    """Our live threads whose identity this run does not report, each mapped onto this
    run's comment that has no thread yet and either stands where the thread now stands or,
    in the same file, says what the thread says (`said`: its file and body; compared by
    headline: severity, category and title): the
    same finding under an identity an earlier version wrote, or one that follows the line
    number (no code to read) after lines moved. Such a thread is taken over (updated or
    re-anchored), not marked fixed nor posted twice. A text two threads share maps none."""
    reported = draft.fingerprints()
    orphans = [t for fingerprint, ts in live.items() if fingerprint not in reported for t in ts]
    mapped: dict[str, Posted] = {}
    waiting = [c for c in draft.comments if not live.get(c.fingerprint)]
    for comment in waiting:
        for index, thread in enumerate(orphans):
            if comment.fingerprint not in mapped and stands_at(thread, comment):
                mapped[comment.fingerprint] = orphans.pop(index)
                break
    texts: dict[tuple[str, str], list[Posted]] = {}
    for thread in orphans:
        path, body = said(thread)
        texts.setdefault((path, _text(body)), []).append(thread)
    wanted: dict[tuple[str, str], list[DraftComment]] = {}
    for comment in waiting:
        if comment.fingerprint not in mapped:
            wanted.setdefault((comment.path, _text(comment.body)), []).append(comment)
    for key, comments in wanted.items():
        threads = texts.get(key, [])
        if len(comments) == 1 and len(threads) == 1:
            mapped[comments[0].fingerprint] = threads[0]
    return mapped


def _text(body: str) -> str:
    """What a finding's comment says, without what changes when lines move or a bot comments
    again (markers, links to the bots' comments): its headline."""
    return headline(without_markers(body))


def gone(
    draft: ReviewDraft,
    live: Mapping[str, Sequence[Posted]],
    replied: Callable[[Posted], bool],
    taken: Collection[Posted] = (),
) -> tuple[tuple[tuple[Posted, str], ...], int]:
    """The live comments whose finding `draft` no longer reports (and that no comment of
    this run `taken` over, `adopted`), each with its fingerprint, to be marked fixed; and
    how many more are left alone (someone replied)."""
    reported = draft.fingerprints()
    kept = {id(thread) for thread in taken}
    found = [
        (thread, fingerprint)
        for fingerprint, threads in live.items()
        if fingerprint not in reported
        for thread in threads
        if id(thread) not in kept
    ]
    fixed = tuple(item for item in found if not replied(item[0]))
    return fixed, len(found) - len(fixed)


class ThreadWork(msgspec.Struct, Generic[Posted]):
    """What a run does to one platform's threads: the comments to create, those listed in
    the summary instead, the threads to edit, to re-anchor (delete, the comment being
    created again where its finding now stands) and to mark fixed (with the fingerprint),
    and how many were left alone because someone replied or decided."""

    create: list[DraftComment] = msgspec.field(default_factory=list)
    moved: list[DraftComment] = msgspec.field(default_factory=list)
    skipped: int = 0
    update: list[tuple[Posted, str]] = msgspec.field(default_factory=list)
    replace: list[Posted] = msgspec.field(default_factory=list)
    fixed: list[tuple[Posted, str]] = msgspec.field(default_factory=list)
    kept: int = 0
    # Gone findings' threads kept open (`delivery.fixing`): a bot that reported them did
    # not report on this head, or their code did not change or could not be compared.
    unchecked: int = 0


def reconcile_threads(
    draft: ReviewDraft,
    live: Mapping[str, Sequence[Posted]],
    *,
    stands_at: Callable[[Posted, DraftComment], bool],
    said: Callable[[Posted], tuple[str, str]],
    postable: Callable[[DraftComment], bool],
    left_alone: Callable[[Posted], bool],
    resolve_fixed: bool,
    now: Callable[[Posted], int | None] = lambda _: None,
    head: str | None = None,
) -> ThreadWork[Posted]:
    """The run on a platform whose threads are our comments (`live`, by fingerprint; each
    thread's anchor `stands_at` a comment, `said` gives its file and body): a comment whose
    thread stands where it does is kept (edited when its text changed), one whose thread
    stands elsewhere is created anew there and the old thread re-anchored, one that cannot
    be placed (`postable` says no) goes to the summary; with `resolve_fixed`, threads of
    findings no longer reported are marked fixed when `delivery.fixing` says they are (the
    thread's head line `now`, as the platform tracks it), else kept open with a note on
    `head` saying why. A thread `left_alone` (someone replied or decided) is never edited,
    deleted nor marked fixed."""
    mapped = adopted(draft, live, stands_at, said)
    work: ThreadWork[Posted] = ThreadWork()
    for comment in draft.comments:
        threads = list(live.get(comment.fingerprint, ()))
        if not threads and comment.fingerprint in mapped:
            threads = [mapped[comment.fingerprint]]
        placed = [t for t in threads if stands_at(t, comment)]
        if placed:
            work.skipped += 1
            work.update += [
                (t, comment.body)
                for t in placed
                if not left_alone(t) and normal(said(t)[1]) != normal(comment.body)
            ]
            work.replace += [t for t in threads if t not in placed and not left_alone(t)]
        elif not postable(comment):
            work.moved.append(comment)
        else:
            work.create.append(comment)
            work.replace += [t for t in threads if not left_alone(t)]
    if resolve_fixed:
        fixed, work.kept = gone(draft, live, left_alone, mapped.values())
        for thread, fingerprint in fixed:
            path, body = said(thread)
            verdict = judge_gone(draft, body, path, now(thread), outdated=None)
            if verdict.fixed:
                work.fixed.append((thread, fingerprint))
                continue
            work.unchecked += 1
            note = unchecked_body(body, head, verdict.missing, compared=verdict.compared)
            if normal(note) != normal(body):
                work.update.append((thread, note))
    return work
