"""What is already ours on a merge request: the sticky summary note and our finding threads.

Pure functions over GitLab's discussion JSON, no I/O. A note is ours only when its author
is the token's account AND its body carries our marker: a marker quoted or planted by
anyone else is inert, and so is ours under another account. A finding thread is live until
its note says the finding is fixed; it is "replied" once someone other than us answered in
it (GitLab's system notes do not count), and then it is never edited or deleted again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.delivery.reconcile import is_ours, live_fingerprint
from review_quorum.delivery.threads import Ours
from review_quorum.markup.markers import SUMMARY, find_markers


class FindingThread(msgspec.Struct, frozen=True):
    """One of our finding threads: its discussion, its first note, and where it sits."""

    discussion: str
    note: int
    body: str
    position: Mapping[str, Any] | None
    resolved: bool
    replied: bool


def find_ours(username: str, discussions: Sequence[Mapping[str, Any]]) -> Ours[FindingThread, int]:
    """Our sticky note and live threads among `discussions`."""
    sticky: int | None = None
    live: dict[str, list[FindingThread]] = {}
    for discussion in discussions:
        notes = [note for note in _notes(discussion) if note.get("system") is not True]
        if not notes or not is_ours(_author(notes[0]), username):
            continue
        first, body = notes[0], _body(notes[0])
        if sticky is None and (SUMMARY, "") in find_markers(body) and _id(first) is not None:
            sticky = _id(first)
            continue
        fingerprint = live_fingerprint(body)
        if fingerprint is None:
            continue
        replied = any(not is_ours(_author(n), username) for n in notes[1:])
        thread = _thread(discussion, first, body, replied)
        if thread is not None:
            live.setdefault(fingerprint, []).append(thread)
    return Ours(sticky, live)


def find_thread(
    username: str,
    discussions: Sequence[Mapping[str, Any]],
    fingerprint: str,
    position: Mapping[str, Any],
) -> FindingThread | None:
    """Our live thread for `fingerprint` at `position`'s line, if one exists (a create that
    failed was applied after all)."""
    for thread in find_ours(username, discussions).live.get(fingerprint, []):
        where = thread.position or {}
        if all(where.get(key) == position.get(key) for key in ("new_path", "new_line", "head_sha")):
            return thread
    return None


def _thread(
    discussion: Mapping[str, Any], first: Mapping[str, Any], body: str, replied: bool
) -> FindingThread | None:
    key, note_id = discussion.get("id"), _id(first)
    if not isinstance(key, str) or note_id is None:
        return None
    position = first.get("position")
    return FindingThread(
        discussion=key,
        note=note_id,
        body=body,
        position=position if isinstance(position, dict) else None,
        resolved=first.get("resolved") is True,
        replied=replied,
    )


def _notes(discussion: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    notes = discussion.get("notes") if isinstance(discussion, dict) else None
    return [note for note in notes if isinstance(note, dict)] if isinstance(notes, list) else []


def _author(note: Mapping[str, Any]) -> str:
    author = note.get("author")
    username = author.get("username") if isinstance(author, dict) else None
    return username.casefold() if isinstance(username, str) else ""


def _body(note: Mapping[str, Any]) -> str:
    body = note.get("body")
    return body.replace("\r\n", "\n") if isinstance(body, str) else ""


def _id(note: Mapping[str, Any]) -> int | None:
    value = note.get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None
