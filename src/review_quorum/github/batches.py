"""The review bodies GitHub's poster writes, and how it splits inline comments into reviews.

Besides the shared markers (`delivery.bodies`), GitHub's poster writes ``probe`` (a
pending review used to find a refused anchor, deleted right after), and every review it
creates carries a ``batch`` marker (`review_body`). A review carries at most
`MAX_COMMENTS_PER_REVIEW` inline comments; the rest go into further reviews, each opening
with a continuation line.
"""

from __future__ import annotations

from collections.abc import Sequence

from review_quorum.delivery.bodies import BATCH, moved_section
from review_quorum.delivery.draft import DraftComment
from review_quorum.delivery.fitting import fit_body
from review_quorum.markup.markers import marker, opens_with_marker

PROBE = "probe"

# Not a documented limit: a review with many comments is slow to create and notifies once
# per review, so batches stay small enough to succeed yet few enough to read.
MAX_COMMENTS_PER_REVIEW = 30

REFUSED = "GitHub refused the line anchors of these findings, so they are listed here."

PROBE_BODY = (
    f"{marker(PROBE)}\nreview-quorum is checking which line anchors GitHub accepts; "
    "this pending review is deleted right away."
)


def review_body(base: str, batch: str, moved: Sequence[DraftComment] = ()) -> str:
    """The planner's review body, the refused findings, and the batch marker.

    The batch marker goes last, unless the body would not open with a marker otherwise.
    """
    parts = [base.rstrip()] if base.strip() else []
    if moved:
        parts.append(moved_section(moved, REFUSED))
    if opens_with_marker(base):
        parts.append(marker(BATCH, batch))
    else:
        parts.insert(0, marker(BATCH, batch))
    return fit_body("\n\n".join(parts))


def continuation_body(first: int, last: int, total: int) -> str:
    return f"review-quorum: inline comments {first}–{last} of {total}, continued."
