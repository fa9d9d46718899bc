"""What the thread platforms' reporters share (`gitlab-mr`, `azure-devops-pr`,
`bitbucket-pr`, `bitbucket-insights`): the draft they post, with what GitHub alone has
refused, and a platform client connected for one delivery.

`thread_draft` renders the plan's bodies afresh into a `ReviewDraft`, refuses
``--hide-duplicates`` (only GitHub can minimize a comment) and ``--inline-mode link`` (the
plan's links point at GitHub comments), and warns about every comment it cannot post.
`connected` makes the client from the environment on the delivery's HTTP client (or one
of its own, closed afterwards) with the command line's clock, sleeper and progress notes,
and says what it is posting to while it does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from review_quorum.cli import github_input, posting, progress
from review_quorum.cli.common import warn
from review_quorum.cli.reporters.base import Delivery
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.errors import ConfigError

if TYPE_CHECKING:
    import httpx

    from review_quorum.retrying import RetryingClient

C = TypeVar("C", bound="RetryingClient")


def thread_draft(delivery: Delivery, platform: str, comments: str) -> ReviewDraft:
    """The draft of `delivery`'s plan for `platform`, whose `comments` (as a user names
    them) cannot be minimized, with the head's code the delivery has (`Delivery.lines`)."""
    if delivery.options.hide_duplicates:
        raise ConfigError(f"--hide-duplicates: {comments} cannot be minimized (GitHub only)")
    draft = ReviewDraft.from_plan(delivery.plan, source=delivery.source, lines=delivery.lines)
    if "link" in (draft.inline_mode, delivery.options.inline_mode):  # the plan's, or the flag
        raise ConfigError(f"--inline-mode link links to GitHub comments: use post on {platform}")
    for skipped in draft.skipped:
        warn(f"not posted: {skipped.describe()}")
    return draft


@contextmanager
def connected(
    delivery: Delivery,
    make: Callable[..., C],
    target: object,
    doing: str = "posting to",
) -> Iterator[C]:
    """A client `make` (a client's `from_env`) returns for the delivery, while the run
    says it is `doing` `target` (nothing is said offline)."""
    http: httpx.Client = posting.make_http_client() if delivery.http is None else delivery.http
    try:
        timing = github_input.TIMING  # the CLI's clock and sleeper, which tests replace
        options: Mapping[str, Any] = {
            "dry_run": delivery.options.dry_run,
            "on_wait": progress.note,
            "sleep": timing.sleep,
            "clock": timing.clock,
        }
        client = make(http, delivery.env, **options)
        with nullcontext() if client.offline else progress.stage(f"{doing} {target}"):
            yield client
    finally:
        if delivery.http is None:
            http.close()
