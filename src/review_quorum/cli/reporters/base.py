"""What every reporter shares: the `Delivery` it is handed and the `Reporter` protocol.

A reporter takes one planned review somewhere: standard output, a GitHub review, a GitHub
check run, a GitLab merge request. It is called at the CLI edge, after the review is
planned, with the posting options of the command that called it (`quorum review` or
`quorum post`, read once into `cli.posting.PostingOptions`), the environment and, in
tests, an injected HTTP client. It returns the command's exit status for the delivery
(`ExitCode.OK` when it delivered; the gate's own exit status stays the command's business)
and raises `QuorumError`s for what went wrong.
Every reporter is idempotent: running it again on the same plan changes nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

import msgspec

from review_quorum.plan import ReviewPlan

if TYPE_CHECKING:
    import httpx

    from review_quorum.checked_plan import CheckedPlan, Fresh
    from review_quorum.cli.posting import PostingOptions
    from review_quorum.identity import CodeLines
    from review_quorum.ingest.base import ReadOptions


class Delivery(msgspec.Struct, frozen=True):
    """One review to deliver: the plan, a name for where it came from (for messages), the
    command's posting options, the environment, and an HTTP client when one is injected.

    `reading` is how a poster reads the pull request's comments itself; `rebuild`, given
    for a saved plan (which may come from a fork), checks the plan against that reading
    so that what is hidden or attributed to a bot is what the platform shows (`checked_plan`).
    """

    plan: ReviewPlan
    source: str
    options: PostingOptions
    env: Mapping[str, str]
    http: httpx.Client | None = None
    reading: ReadOptions | None = None
    rebuild: Callable[[Fresh], CheckedPlan] | None = None
    lines: CodeLines | None = None  # the head's code: is a gone finding's line changed?


class Reporter(Protocol):
    """Delivers one review; returns the exit status of the delivery."""

    def __call__(self, delivery: Delivery, /) -> int: ...
