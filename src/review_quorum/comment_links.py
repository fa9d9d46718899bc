"""The existing bot comment a finding links to when quorum links instead of commenting.

With `--inline-mode link` quorum posts no inline comments of its own: the summary links
each finding to the best comment a bot already left for it, which stays visible while its
duplicates are hidden. The best is an inline review comment (it sits on the code) before
an issue comment before a review body; then the comment that carries the fewest findings
(it is about this one, not a digest of many); then the oldest. Only a plain https:// URL
is ever linked, so that a crafted URL cannot break the markdown it stands in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from review_quorum.comment_kinds import CommentKind
from review_quorum.model import CommentSource, ConsensusFinding

KIND_RANK = {
    kind.source_kind: rank
    for rank, kind in enumerate((CommentKind.INLINE, CommentKind.ISSUE, CommentKind.REVIEW))
}
_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/%#=&+:-]*)?")


def web_url(text: str) -> str | None:
    """`text` when it is a plain https:// URL safe to put in a markdown link, else None."""
    return text if _URL.fullmatch(text) else None


def comment_key(source: CommentSource) -> str:
    """The comment's identity across runs and in hidden markers: ``kind:rest_id``."""
    return f"{source.kind}:{source.rest_id}"


def link_targets(findings: Sequence[ConsensusFinding]) -> list[CommentSource | None]:
    """For each finding, the comment it links to (None when no member came from one)."""
    carried = Counter(
        comment_key(member.source)
        for finding in findings
        for member in finding.members
        if member.source is not None
    )
    if not carried:
        return [None] * len(findings)
    return [_best(finding, carried) for finding in findings]


def _best(finding: ConsensusFinding, carried: Counter[str]) -> CommentSource | None:
    candidates = [
        member.source
        for member in finding.members
        if member.source is not None and web_url(member.source.html_url)
    ]
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda source: (KIND_RANK[source.kind], carried[comment_key(source)], source.rest_id),
    )
