"""One run of a thread platform's poster (GitLab, Azure DevOps, Bitbucket), whatever the
platform: `post_threads` drives a `ThreadPlatform`, which holds only its HTTP calls and
its quirks.

The run, in this order: what is already ours is read (`ThreadPlatform.ours`) and what this
run changes is planned (`ThreadPlatform.plan`, `delivery.reconcile`); the one summary is
written first, created or updated in place, so that a token that cannot write is found out
before anything else (401 or 403: nothing was posted, and the error says so); each inline
finding becomes a thread, and one the platform cannot place (its file or line not in what
the platform shows, or its anchor refused with 400) is listed in the summary instead,
which is written again when a refusal added to that list; re-anchored threads are deleted,
stale texts refreshed; the threads of findings no longer reported that `delivery.fixing`
says are fixed get the platform's fixed status first, then their text says so (so an
interrupted run still finishes the thread); last, the gate becomes the platform's status.
Every count goes into the platform's `ThreadPostResult`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from review_quorum.delivery.bodies import fixed_body, moved_section
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import fit_body
from review_quorum.delivery.outcome import ThreadPostResult
from review_quorum.delivery.reconcile import ThreadWork
from review_quorum.errors import ServiceError
from review_quorum.retrying import JsonRetryingClient, create_once, unless_done

Posted = TypeVar("Posted")
Sticky = TypeVar("Sticky")
Result = TypeVar("Result", bound=ThreadPostResult)
Client = TypeVar("Client", bound=JsonRetryingClient)


class Ours(msgspec.Struct, Generic[Posted, Sticky], frozen=True):
    """What is already ours on a pull request: the summary (the platform's ids for it)
    and our live finding threads, by fingerprint."""

    sticky: Sticky | None = None
    live: Mapping[str, Sequence[Posted]] = msgspec.field(default_factory=dict)


class ThreadPlatform(Protocol[Posted, Sticky]):
    """What `post_threads` asks of one platform: its words, and one call each for reading,
    planning and writing. Every write honours the run's dry run."""

    @property
    def name(self) -> str:
        """The platform's name in a warning: "GitLab refused the anchor ..."."""
        ...

    @property
    def error(self) -> type[ServiceError]:
        """What its client raises."""
        ...

    @property
    def cannot_write(self) -> str:
        """Why nothing was posted: "this token may not write notes on" (the target follows)."""
        ...

    @property
    def token_help(self) -> str:
        """What to do about a token that cannot write."""
        ...

    @property
    def not_in_diff(self) -> str:
        """The sentence over the findings listed in the summary instead of on a line."""
        ...

    @property
    def fit_summary(self) -> bool:
        """Whether the summary is cut to the body limit (`delivery.fitting`)."""
        ...

    @property
    def target(self) -> str:
        """The pull request, as the log line names it."""
        ...

    @property
    def dry_run(self) -> bool: ...

    @property
    def head(self) -> str | None:
        """The head commit a fixed thread's note names (None: not known)."""
        ...

    def ours(self) -> Ours[Posted, Sticky]:
        """Our summary and live finding threads as the platform shows them now."""
        ...

    def plan(
        self, live: Mapping[str, Sequence[Posted]], *, resolve_fixed: bool
    ) -> ThreadWork[Posted]:
        """What this run changes (`delivery.reconcile`, with the platform's anchors)."""
        ...

    def body(self, thread: Posted) -> str:
        """The text of `thread`'s first comment (ours)."""
        ...

    def create_summary(self, text: str) -> Sticky | None:
        """Create the summary; its ids (None in a dry run)."""
        ...

    def update_summary(self, sticky: Sticky, text: str) -> None: ...

    def create_thread(self, comment: DraftComment) -> bool:
        """Open `comment`'s thread; False when the platform cannot place it (raises the
        platform's error, 400, when it refuses the anchor)."""
        ...

    def delete(self, thread: Posted) -> None:
        """Delete a re-anchored thread (one already gone is not an error)."""
        ...

    def edit(self, thread: Posted, body: str) -> None: ...

    def resolve(self, thread: Posted) -> None:
        """Give `thread` the platform's fixed status, unless it already has it."""
        ...

    def set_status(self, name: str, sticky: Sticky | None) -> str:
        """The gate as the platform's status named `name`, linking to the summary; what
        it was set to, in the platform's words."""
        ...


def post_threads(
    platform: ThreadPlatform[Posted, Sticky],
    draft: ReviewDraft,
    result: type[Result],
    *,
    resolve_fixed: bool,
    status_name: str,
) -> Result:
    """Post `draft` through `platform` (module docstring), completing, never repeating,
    any earlier run; `result` is the platform's `ThreadPostResult`."""
    run = _Run(platform, draft)
    ours = platform.ours()
    work = platform.plan(ours.live, resolve_fixed=resolve_fixed)
    planned_moves = len(work.moved)
    sticky, sticky_id = run.sticky(ours.sticky, work.moved)
    created = run.create(work)
    if len(work.moved) > planned_moves and sticky_id is not None:
        platform.update_summary(sticky_id, run.summary(work.moved))
    for thread in work.replace:
        platform.delete(thread)
    for thread, body in work.update:
        platform.edit(thread, body)
    head = platform.head
    for thread, fingerprint in work.fixed:
        platform.resolve(thread)
        platform.edit(thread, fixed_body(platform.body(thread), fingerprint, head))
    status = platform.set_status(status_name, sticky_id)
    return result(
        target=platform.target,
        created=created,
        skipped_existing=work.skipped,
        moved_to_summary=len(work.moved),
        reanchored=len(work.replace),
        updated=len(work.update),
        resolved=len(work.fixed),
        kept_replied=work.kept,
        unchecked=work.unchecked,
        sticky=sticky,
        status=status,
        dry_run=platform.dry_run,
        warnings=tuple(run.warnings),
    )


class _Run(Generic[Posted, Sticky]):
    def __init__(self, platform: ThreadPlatform[Posted, Sticky], draft: ReviewDraft) -> None:
        self.platform, self.draft = platform, draft
        self.warnings: list[str] = []

    def summary(self, moved: Sequence[DraftComment]) -> str:
        """The draft's summary, with the findings that could not be placed listed."""
        if not moved:
            return self.draft.summary
        section = moved_section(moved, self.platform.not_in_diff)
        text = "\n\n".join([self.draft.summary.rstrip(), section])
        return fit_body(text) if self.platform.fit_summary else text

    def sticky(
        self, sticky: Sticky | None, moved: Sequence[DraftComment]
    ) -> tuple[str, Sticky | None]:
        """Write the summary first: a token that cannot write is found out at once."""
        platform = self.platform
        try:
            if sticky is not None:
                platform.update_summary(sticky, self.summary(moved))
                return "updated", sticky
            return "created", platform.create_summary(self.summary(moved))
        except platform.error as err:
            if err.status not in (401, 403):
                raise
            raise platform.error(
                f"{err}: {platform.cannot_write} {platform.target}, so nothing was posted; "
                f"{platform.token_help}",
                status=err.status,
            ) from err

    def create(self, work: ThreadWork[Posted]) -> int:
        """Open each planned thread; one that cannot be placed goes to the summary."""
        created = 0
        for comment in work.create:
            try:
                if not self.platform.create_thread(comment):
                    work.moved.append(comment)
                    continue
            except self.platform.error as err:
                if err.status != 400:
                    raise
                name = self.platform.name
                self.warnings.append(f"{name} refused the anchor {comment.anchor}: {err}")
                work.moved.append(comment)
                continue
            created += 1
        return created


class WritesThrough(Generic[Client]):
    """What a `ThreadPlatform` writes through: its client, in the run's dry run; a create
    that fails in a way that may have been applied asks `applied` before it is resent."""

    client: Client
    dry_run: bool

    def _create_once(
        self, path: str, body: Mapping[str, Any], applied: Callable[[], object | None]
    ) -> Any:
        """POST `body`; after a failure that may have been applied, ask `applied`."""
        return create_once(self._write, self.client.wait_before_retry, path, body, applied)

    def _write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self.client.write(method, path, body, dry_run=self.dry_run)

    def _delete(self, path: str) -> None:
        """DELETE `path`; one already gone (404: an earlier, interrupted run) is done."""
        unless_done(partial(self._write, "DELETE", path), 404)
