"""What the thread platforms' reporters share (`gitlab-mr`, `azure-devops-pr`,
`bitbucket-pr`, `bitbucket-insights`): what GitHub alone has refused, a platform client
connected for one delivery, the plan they post (a saved plan rebuilt from the platform's
own read) and the draft of it.

`refuse_github_only` refuses ``--hide-duplicates`` (only GitHub can minimize a comment)
and ``--inline-mode link`` (the plan's links point at GitHub comments) before any request.
`connected` makes the client from the environment on the delivery's HTTP client (or one
of its own, closed afterwards) with the command line's clock, sleeper and progress notes,
and says what it is posting to while it does. `checked_plan` is the plan to post: with
`Delivery.rebuild` (a saved plan, which may come from a fork: `quorum post`) the plan as
rebuilt from the bots' comments the platform serves now, read on that client (SPEC section
8), else the plan as given. `thread_draft` renders its bodies afresh into a `ReviewDraft`
and warns about every comment it cannot post.
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
from review_quorum.ingest.base import ReadOptions
from review_quorum.plan import ReviewPlan

if TYPE_CHECKING:
    import httpx

    from review_quorum.checked_plan import Fresh
    from review_quorum.retrying import RetryingClient

C = TypeVar("C", bound="RetryingClient")


def refuse_github_only(delivery: Delivery, platform: str, comments: str) -> None:
    """Refuse what only GitHub has for `platform`, whose `comments` (as a user names them)
    cannot be minimized, and whose comments a plan's links do not point at."""
    if delivery.options.hide_duplicates:
        raise ConfigError(f"--hide-duplicates: {comments} cannot be minimized (GitHub only)")
    planned = delivery.plan.settings.inline_mode
    if "link" in (planned, delivery.options.inline_mode):  # the plan's, or the flag
        raise ConfigError(f"--inline-mode link links to GitHub comments: use post on {platform}")


def checked_plan(delivery: Delivery, read: Callable[[ReadOptions], Fresh]) -> ReviewPlan:
    """The plan to post: a saved plan (`Delivery.rebuild` given) rebuilt from what `read`
    makes of the bots' comments on the platform now, with the delivery's way of reading
    them; else (`quorum review`'s own plan) the plan as given."""
    if delivery.rebuild is None:
        return delivery.plan
    return delivery.rebuild(read(delivery.reading or ReadOptions())).plan


def thread_draft(delivery: Delivery, plan: ReviewPlan) -> ReviewDraft:
    """The draft of `plan`, with the head's code the delivery has (`Delivery.lines`)."""
    draft = ReviewDraft.from_plan(plan, source=delivery.source, lines=delivery.lines)
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
