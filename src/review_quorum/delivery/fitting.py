"""The size limit every body is fitted to, and fitting a body into it without losing its
hidden markers.

GitHub rejects a comment or review body longer than 65,536 characters, the smallest limit
of the platforms quorum posts to, so every poster fits its bodies to it. A body that is too
long is cut at a line boundary, keeps every one of our marker lines (they are what makes
re-runs idempotent), closes a code fence left open by the cut, and says how much was left
out.
"""

from __future__ import annotations

import re

MAX_BODY = 65_536

_MARKER_LINE = re.compile(r"^<!-- review-quorum:[a-z]+(?: [A-Za-z0-9_.:-]+)? -->$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def fit_body(body: str, limit: int = MAX_BODY) -> str:
    """`body` unchanged when it fits, else cut to `limit` characters keeping its markers."""
    if len(body) <= limit:
        return body
    lines = body.split("\n")
    markers = [line for line in lines if _MARKER_LINE.match(line)]
    content = [line for line in lines if not _MARKER_LINE.match(line)]
    head = "".join(f"{line}\n" for line in markers)
    budget = limit - len(head) - len(_note(len(body)))
    kept = _cut(content, budget - 8)  # room for a closing fence
    fence = "```\n" if _open_fence(kept) else ""
    text = "".join(line + "\n" for line in kept)
    omitted = len(body) - len(head) - len(text)
    return f"{head}{text}{fence}{_note(omitted)}"


def _cut(lines: list[str], budget: int) -> list[str]:
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            room = budget - used - 1
            if room > 0 and not kept:
                kept.append(line[:room])
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def _open_fence(lines: list[str]) -> bool:
    fences = sum(1 for line in lines if _FENCE.match(line))
    return fences % 2 == 1


def _note(omitted: int) -> str:
    return f"\n_… {omitted:,} characters omitted: GitHub limits a body to {MAX_BODY:,}._"
