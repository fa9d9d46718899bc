"""What every poster decides alike about what is already there, whatever the platform.

Pure functions, no I/O. A comment is ours only when its author is our login (compared
case-insensitively; without a login nothing is ours) AND its body carries our marker: a
marker quoted or planted by anyone else is inert. One of our finding comments is live
until it says its finding is fixed. A comment whose text differs from the draft's only in
line endings or surrounding blank space is not stale. When a finding is no longer
reported, its live comments are marked fixed, except those someone else answered: a
replied thread is never edited or deleted again, only counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from review_quorum.delivery.bodies import FIXED
from review_quorum.delivery.draft import ReviewDraft
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


def gone(
    draft: ReviewDraft,
    live: Mapping[str, Sequence[Posted]],
    replied: Callable[[Posted], bool],
) -> tuple[tuple[tuple[Posted, str], ...], int]:
    """The live comments whose finding `draft` no longer reports, each with its
    fingerprint, to be marked fixed; and how many more are left alone (someone replied)."""
    reported = draft.fingerprints()
    found = [
        (thread, fingerprint)
        for fingerprint, threads in live.items()
        if fingerprint not in reported
        for thread in threads
    ]
    fixed = tuple(item for item in found if not replied(item[0]))
    return fixed, len(found) - len(fixed)
