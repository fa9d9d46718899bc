"""Posting a `ReviewDraft` to a GitLab merge request, idempotently: `post_merge_request`.

One run reads the merge request (its diff refs and newest version's diff) and every
discussion, and finds what is ours: notes whose author is the token's account AND whose
body carries our marker (a marker quoted by anyone else is inert). Then, in this order:
the one sticky summary note is created or updated in place (first, so that a token that
cannot write is found out before anything else); each inline finding becomes one diff
discussion anchored with a ``position`` on the newest version, unless one of ours already
sits on that line (GitLab traces notes through pushes); a finding whose line is not in the
diff, or whose anchor GitLab refuses (400), is listed in the summary note instead; a
thread of ours left on an old line by a push is re-anchored (a new thread on the new
line, the old note deleted unless someone replied to it); the text of a still-reported
finding's thread is refreshed; with `resolve_fixed`, the threads of findings no longer
reported are resolved, then marked fixed; and the gate is set as a commit status on the
head commit. A create that fails in a way that may have been applied (5xx, lost
connection) re-reads before retrying, so a retry never duplicates. Threads someone else
replied to are never edited or deleted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import msgspec

from review_quorum.delivery.bodies import (
    fixed_body,
    moved_section,
    unchecked_body,
)
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fixing import judge_gone, line_at
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import normal
from review_quorum.errors import GitLabError
from review_quorum.gitlab.client import TOKEN_HELP, GitLabClient
from review_quorum.gitlab.positions import addressable, anchored_at, position_for
from review_quorum.gitlab.reconcile import FindingThread, Ours, find_ours, find_thread
from review_quorum.gitlab.snapshot import DiffRefs, MergeRequestSnapshot, read_merge_request
from review_quorum.gitlab.target import MergeRequest
from review_quorum.retrying import create_once, unless_done

STATUS_NAME = "review-quorum"
NOT_IN_DIFF = (
    "These findings are on lines the merge request's diff does not show, so they are listed here."
)


class GitLabPostResult(ThreadPostResult, frozen=True):
    """What one run did on GitLab (`ThreadPostResult`)."""

    words = Words(
        "new diff discussion(s)",
        "resolved as fixed",
        "someone replied",
        "summary note",
        "commit status",
    )


class _Work(msgspec.Struct):
    create: list[tuple[DraftComment, dict[str, Any]]] = msgspec.field(default_factory=list)
    moved: list[DraftComment] = msgspec.field(default_factory=list)
    skipped: int = 0
    update: list[tuple[FindingThread, str]] = msgspec.field(default_factory=list)
    replace: list[FindingThread] = msgspec.field(default_factory=list)
    fixed: list[tuple[FindingThread, str]] = msgspec.field(default_factory=list)
    kept_replied: int = 0
    unchecked: int = 0


def post_merge_request(
    client: GitLabClient,
    target: MergeRequest,
    draft: ReviewDraft,
    *,
    resolve_fixed: bool = False,
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
    status_name: str = STATUS_NAME,
) -> GitLabPostResult:
    """Post `draft` to `target`, completing (never repeating) any earlier run."""
    run = _Run(client, target, draft, dry_run=dry_run or client.dry_run, env=env or {})
    return run.post(resolve_fixed=resolve_fixed, status_name=status_name)


class _Run:
    def __init__(
        self,
        client: GitLabClient,
        target: MergeRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
        env: Mapping[str, str],
    ) -> None:
        self.client, self.target, self.draft, self.dry_run = client, target, draft, dry_run
        user = client.current_user()
        self.username = user.username if user is not None else ""
        self.snapshot = None if client.offline else read_merge_request(client, target, diff=True)
        self.refs = self.snapshot.refs if self.snapshot else _offline_refs(env)
        self.files = None
        if self.snapshot is not None and self.snapshot.diffs is not None:
            self.files = addressable(self.snapshot.diffs)
        self.warnings: list[str] = []
        self._moved_at_start: list[DraftComment] = []

    def post(self, *, resolve_fixed: bool, status_name: str) -> GitLabPostResult:
        ours = self._ours(self.snapshot)
        work = self._plan(ours, resolve_fixed=resolve_fixed)
        sticky, sticky_id = self._sticky(ours, work.moved)
        created = self._create(work)
        if len(work.moved) > len(self._moved_at_start):
            self._write_sticky(sticky_id, work.moved)
        replaced = self._delete(work.replace)
        for thread, body in work.update:
            self._edit(thread, body)
        resolved = self._resolve(work.fixed)
        status = self._status(status_name, sticky_id)
        return GitLabPostResult(
            target=str(self.target),
            created=created,
            skipped_existing=work.skipped,
            moved_to_summary=len(work.moved),
            reanchored=replaced,
            updated=len(work.update),
            resolved=resolved,
            kept_replied=work.kept_replied,
            unchecked=work.unchecked,
            sticky=sticky,
            status=status,
            dry_run=self.dry_run,
            warnings=tuple(self.warnings),
        )

    def _ours(self, snapshot: MergeRequestSnapshot | None) -> Ours:
        discussions = snapshot.discussions if snapshot is not None else ()
        return find_ours(self.username, discussions)

    def _plan(self, ours: Ours, *, resolve_fixed: bool) -> _Work:
        work = _Work()
        reported = self.draft.fingerprints()
        # Our threads whose identity this run does not report, by the line GitLab shows
        # them on now: an earlier version's identity, or one that follows line numbers.
        orphans = {
            (where.get("new_path"), where.get("new_line")): thread
            for fingerprint, threads in ours.live.items()
            if fingerprint not in reported
            for thread in threads
            for where in [thread.position or {}]
            if where.get("new_line") is not None
        }
        mapped: set[str] = set()
        for comment in self.draft.comments:
            threads = ours.live.get(comment.fingerprint, [])
            if not threads:
                thread = orphans.pop((comment.path, comment.line), None)
                if thread is not None:
                    threads = [thread]
                    mapped.add(thread.discussion)
            position = position_for(comment, self.refs, self.files)
            placed = [t for t in threads if anchored_at(t.position, comment, self.refs.head_sha)]
            if placed:
                work.skipped += 1
                work.update += [(t, comment.body) for t in placed if _stale(t, comment.body)]
                work.replace += [t for t in threads if t not in placed and not t.replied]
            elif position is None:
                work.moved.append(comment)
            else:
                work.create.append((comment, position))
                work.replace += [thread for thread in threads if not thread.replied]
        for fingerprint, threads in ours.live.items():
            if fingerprint in reported or not resolve_fixed:
                continue
            for thread in threads:
                if thread.discussion in mapped:
                    continue
                if thread.replied:
                    work.kept_replied += 1
                    continue
                where = thread.position or {}
                carried = where.get("head_sha") == self.refs.head_sha  # to the newest version
                path, line = str(where.get("new_path") or ""), line_at(where, "new_line")
                verdict = judge_gone(
                    self.draft, thread.body, path, line if carried else None, outdated=not carried
                )
                if not verdict.fixed:  # its bots did not report, or its lines did not change
                    missing, compared = verdict.missing, verdict.compared
                    body = unchecked_body(thread.body, self._head(), missing, compared=compared)
                    if _stale(thread, body):
                        work.update.append((thread, body))
                    work.unchecked += 1
                else:
                    work.fixed.append((thread, fixed_body(thread.body, fingerprint, self._head())))
        self._moved_at_start = list(work.moved)
        return work

    def _sticky(self, ours: Ours, moved: Sequence[DraftComment]) -> tuple[str, int | None]:
        """Write the summary note first: a token that cannot write is found out at once."""
        try:
            if ours.sticky is not None:
                self._write_sticky(ours.sticky, moved)
                return "updated", ours.sticky
            created = self._create_note({"body": self._summary(moved)})
        except GitLabError as err:
            if err.status not in (401, 403):
                raise
            raise GitLabError(
                f"{err}: this token may not write notes on {self.target}, so nothing was "
                f"posted; {TOKEN_HELP}",
                status=err.status,
            ) from err
        note_id = created.get("id") if isinstance(created, dict) else None
        return "created", note_id if isinstance(note_id, int) else None

    def _create_note(self, body: Mapping[str, Any]) -> Any:
        def applied() -> object | None:
            sticky = find_ours(self.username, self._discussions()).sticky
            return {"id": sticky} if sticky is not None else None

        return self._create_once(f"{self.target.path}/notes", body, applied)

    def _write_sticky(self, note_id: int | None, moved: Sequence[DraftComment]) -> None:
        if note_id is not None:
            path = f"{self.target.path}/notes/{note_id}"
            self._write("PUT", path, {"body": self._summary(moved)})

    def _summary(self, moved: Sequence[DraftComment]) -> str:
        if not moved:
            return self.draft.summary
        return "\n\n".join([self.draft.summary.rstrip(), moved_section(moved, NOT_IN_DIFF)])

    def _create(self, work: _Work) -> int:
        created = 0
        for comment, position in work.create:
            try:
                self._create_thread(comment, position)
                created += 1
            except GitLabError as err:
                if err.status != 400:
                    raise
                self.warnings.append(f"GitLab refused the anchor {comment.anchor}: {err}")
                work.moved.append(comment)
        return created

    def _create_thread(self, comment: DraftComment, position: Mapping[str, Any]) -> None:
        def applied() -> object | None:
            discussions = self._discussions()
            return find_thread(self.username, discussions, comment.fingerprint, position)

        body = {"body": comment.body, "position": position}
        self._create_once(f"{self.target.path}/discussions", body, applied)

    def _delete(self, threads: Sequence[FindingThread]) -> int:
        for thread in threads:
            path = f"{self.target.path}/discussions/{thread.discussion}/notes/{thread.note}"
            unless_done(partial(self._write, "DELETE", path), 404)
        return len(threads)

    def _edit(self, thread: FindingThread, body: str) -> None:
        path = f"{self.target.path}/discussions/{thread.discussion}/notes/{thread.note}"
        self._write("PUT", path, {"body": body})

    def _resolve(self, fixed: Sequence[tuple[FindingThread, str]]) -> int:
        """Resolve first, then rewrite: an interrupted run still finishes the thread."""
        for thread, body in fixed:
            if not thread.resolved:
                path = f"{self.target.path}/discussions/{thread.discussion}"
                self._write("PUT", path, {"resolved": True})
            self._edit(thread, body)
        return len(fixed)

    def _status(self, name: str, sticky_id: int | None) -> str:
        gate = self.draft.gate
        if gate is None:
            return "not set (the plan has no gate)"
        state = "failed" if gate.failed else "success"
        body: dict[str, Any] = {"state": state, "name": name, "description": gate.describe()}
        web_url = self.snapshot.web_url if self.snapshot else ""
        if web_url and sticky_id is not None:
            body["target_url"] = f"{web_url}#note_{sticky_id}"
        path = f"{self.target.project_path}/statuses/{self.refs.head_sha}"
        attempt = 0
        while True:
            try:
                self._write("POST", path, body)
                return state
            except GitLabError as err:
                if err.status != 409:  # another update of this status is under way
                    raise
                self.client.wait_before_retry(attempt, err)
                attempt += 1

    def _head(self) -> str | None:
        return self.refs.head_sha or None

    def _discussions(self) -> Sequence[Mapping[str, Any]]:
        return tuple(self.client.paginate(f"{self.target.path}/discussions"))

    def _create_once(
        self, path: str, body: Mapping[str, Any], applied: Callable[[], object | None]
    ) -> Any:
        """POST `body`; after a failure that may have been applied, ask `applied`."""
        return create_once(self._write, self.client.wait_before_retry, path, body, applied)

    def _write(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        return self.client.write(method, path, body, dry_run=self.dry_run)


def _stale(thread: FindingThread, body: str) -> bool:
    return not thread.replied and normal(thread.body) != normal(body)


def _offline_refs(env: Mapping[str, str]) -> DiffRefs:
    """The SHAs a merge request pipeline names, for an offline dry run."""
    base = env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", "") or "BASE_SHA"
    head = env.get("CI_COMMIT_SHA", "") or "HEAD_SHA"
    return DiffRefs(base, base, head)
