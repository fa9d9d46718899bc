"""Whether the thread of a finding this run no longer reports is fixed: one rule for every
platform's poster (GitHub, GitLab, Azure DevOps, Bitbucket).

A finding's absence makes its thread "fixed" only when both hold:

1. every bot that reported it (the ``by`` marker of our comment) reported on this run's
   head. Otherwise its absence proves nothing: the thread stays open with the note "not
   re-checked on <sha>: <bot> did not report";
2. its flagged code changed or is gone. Our comment records the flagged line's text,
   hashed (the ``code`` marker, `identity.code_hash`). With the head's code at hand
   (`ReviewDraft.lines`: the checkout, else the diff's hunk lines) that text is looked
   for in the thread's file: still there (on any line: code that only moved is not a
   fix), the thread stays open ("no longer reported, but its lines did not change"); the
   file gone, or read whole without it, or (the diff alone) the line the thread stands on
   now holding other text, it is fixed. When the code cannot tell (no checkout and the
   line outside the diff, or a comment written without the ``code`` marker), the
   platform's own word decides: GitHub shows the comment outdated, GitLab could not carry
   the thread to the new version. A platform that says nothing of it (Azure DevOps,
   Bitbucket) keeps the thread open, noting that its code could not be compared.

A draft that does not say which bots ran (`ReviewDraft.ran` None: made by hand, not from
a plan) is taken at its word: what it does not report is fixed.
"""

from __future__ import annotations

import msgspec

from review_quorum.delivery.draft import ReviewDraft, not_rechecked
from review_quorum.identity import CodeLines
from review_quorum.markup.markers import marked_code


class Gone(msgspec.Struct, frozen=True):
    """What becomes of one thread whose finding this run does not report: `fixed`, or
    kept open because `missing` bots did not report on this head, or (no bot missing)
    because its code did not change (`compared`) or could not be compared."""

    fixed: bool
    missing: tuple[str, ...] = ()
    compared: bool = True


def still_there(
    lines: CodeLines | None, recorded: str | None, path: str, line: int | None
) -> bool | None:
    """Whether the head still holds the flagged line whose hash is `recorded`, in the
    thread's file `path` (standing on `line` now, when the platform says): True, False
    (changed or gone), or None when `lines` cannot tell."""
    if lines is None or not recorded or not path:
        return None
    if lines.gone(path):
        return False
    known = lines.hashes(path)
    if known is None:
        return None
    if recorded in known:
        return True
    if lines.has_file(path):
        return False  # the whole file was read: that text is nowhere in it
    return False if line is not None and lines.line(path, line) is not None else None


def judge_gone(
    draft: ReviewDraft, body: str, path: str, line: int | None, *, outdated: bool | None
) -> Gone:
    """The rule (module docstring) for our thread whose first comment is `body`, on
    `path` at head `line` (None: the platform does not place it on the head); `outdated`
    is the platform's word on whether the code under it changed (None: it says nothing)."""
    missing = not_rechecked(draft, body)
    if missing:
        return Gone(fixed=False, missing=missing)
    if draft.ran is None:
        return Gone(fixed=True)
    there = still_there(draft.lines, marked_code(body), path, line)
    if there is None:
        if outdated is None:
            return Gone(fixed=False, compared=False)
        there = not outdated
    return Gone(fixed=not there)


def line_at(anchor: object, key: str = "line") -> int | None:
    """The line number a platform's position object `anchor` holds under `key`."""
    value = anchor.get(key) if isinstance(anchor, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def path_at(anchor: object, key: str) -> str:
    """The file path a platform's position object `anchor` holds under `key` ("" if none)."""
    value = anchor.get(key) if isinstance(anchor, dict) else None
    return value if isinstance(value, str) else ""
