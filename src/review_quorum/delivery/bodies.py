"""The texts every poster writes itself, each carrying the hidden markers re-runs look for.

Besides the planner's ``finding``, ``by`` and ``summary`` markers, the posters use four kinds:
``batch`` (a per-request id in what a poster creates, so that a request whose answer was
lost can be recognised as applied), ``moved`` (a finding listed in a review body or the
summary because the platform did not place its line anchor), ``fixed`` (an inline
comment whose finding is gone) and ``unchecked`` (the comment of a finding this run did
not report, kept open because a bot that reported it did not report on the new head);
GitHub's poster adds ``probe`` (`github.batches`).
Every body passes through `fit_body`, so none exceeds GitHub's size limit, and every body
opens with a marker: that (with the author) is how a later read knows the comment is ours.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

from review_quorum.delivery.draft import DraftComment
from review_quorum.delivery.fitting import MAX_BODY, fit_body
from review_quorum.markup import escape
from review_quorum.markup.escape import code
from review_quorum.markup.markers import (
    FINDING,
    PREFIX,
    find_markers,
    marker,
)

BATCH = "batch"
MOVED = "moved"
FIXED = "fixed"
UNCHECKED = "unchecked"  # a gone finding's comment kept open: its bots did not report

_BLOCK_PREFIX = re.compile(r"^(?:#{1,6}\s+|>\s*|[-+*]\s+)+")


def batch_id(commit: str | None, event: str, comments: Sequence[DraftComment], part: int) -> str:
    """A stable id for one create-review request: same inputs, same id."""
    text = "\n".join([commit or "", event, str(part), *(c.fingerprint for c in comments)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def moved_section(comments: Iterable[DraftComment], why: str) -> str:
    """The findings whose anchors were not placed, listed with their own markers; `why`
    says what kept them off the diff."""
    entries = [
        f"{marker(MOVED, comment.fingerprint)}\n**{code(comment.path)} line {comment.line}**\n\n"
        f"{without_markers(comment.body)}"
        for comment in comments
    ]
    heading = "### Not placed on the diff\n\n" + why
    return "\n\n".join([heading, *entries])


def fixed_body(original: str, fingerprint: str, sha: str | None) -> str:
    """An inline comment's body rewritten to say its finding is gone, keeping its marker."""
    # Room for the wrapper, so that the closing </details> survives a long original.
    content = fit_body(without_markers(original).strip(), MAX_BODY - 1024)
    title = headline(content)
    head = f"{marker(FINDING, fingerprint)}\n{marker(FIXED, sha or 'head')}"
    blocks = [f"~~{title}~~"] if title else []
    where = sha[:12] if sha else "the latest push"
    blocks.append(f"Fixed in {where}: review-quorum no longer reports this finding.")
    blocks.append(f"<details><summary>Original comment</summary>\n\n{content}\n\n</details>")
    return fit_body(head + "\n" + "\n\n".join(blocks))


def unchecked_body(
    original: str, sha: str | None, bots: Sequence[str], *, compared: bool = True
) -> str:
    """An inline comment's body with a note that its finding was not re-checked on `sha`
    because `bots` did not report there, or (no `bots`) that its lines did not change, or
    (not `compared`) that its code could not be compared (an earlier such note replaced)."""
    ours = marker(UNCHECKED, sha or "head")
    kept = original.split(f"\n<!-- {PREFIX}:{UNCHECKED} ", 1)[0].rstrip("\n")
    where = sha[:12] if sha else "the latest push"
    names = ", ".join(escape.inline(bot) for bot in bots)
    note = f"_Still open, not re-checked on {where}: {names} did not report._"
    if not bots and compared:
        note = (
            f"_Still open on {where}: no longer reported, but its lines did not change, "
            "so it is not marked fixed._"
        )
    elif not bots:
        note = (
            f"_Still open on {where}: no longer reported, but its code was not at hand to "
            "tell whether its lines changed (no checkout, or its line is outside the diff), "
            "so it is not marked fixed._"
        )
    return fit_body(f"{kept}\n{ours}\n{note}")


def without_markers(body: str) -> str:
    """`body` minus our marker lines, so that moved or quoted text carries no live marker."""
    lines = {marker(kind, payload) for kind, payload in find_markers(body)}
    return "\n".join(line for line in body.split("\n") if line not in lines).strip("\n")


def headline(content: str) -> str:
    """The first line of text of `content` (a finding's severity, category and title)."""
    for line in content.split("\n"):
        text = _BLOCK_PREFIX.sub("", line.strip()).strip()
        if text and not text.startswith(("<", "```", "~~~")):
            return text.replace("~~", "")
    return ""
