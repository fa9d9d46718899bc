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

from collections.abc import Mapping, Sequence
from typing import Any

from review_quorum.delivery.bodies import unchecked_body
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fixing import judge_gone, line_at, path_at
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import ThreadWork, normal
from review_quorum.delivery.threads import Ours, WritesThrough, post_threads
from review_quorum.errors import GitLabError
from review_quorum.gitlab.client import TOKEN_HELP, GitLabClient
from review_quorum.gitlab.positions import addressable, anchored_at, position_for
from review_quorum.gitlab.reconcile import FindingThread, find_ours, find_thread
from review_quorum.gitlab.snapshot import DiffRefs, read_merge_request
from review_quorum.gitlab.target import MergeRequest
from review_quorum.markup import dialects

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
    draft = draft.with_bodies(dialects.gitlab)
    platform = _GitLab(client, target, draft, dry_run=dry_run or client.dry_run, env=env or {})
    return post_threads(
        platform, draft, GitLabPostResult, resolve_fixed=resolve_fixed, status_name=status_name
    )


class _GitLab(WritesThrough[GitLabClient]):
    """GitLab as `delivery.threads` drives it (`ThreadPlatform`): its own planning, for
    GitLab carries a thread to a new version only when its line is unchanged, and says so
    (`position.head_sha`)."""

    name = "GitLab"
    error = GitLabError
    cannot_write = "this token may not write notes on"
    token_help = TOKEN_HELP
    not_in_diff = NOT_IN_DIFF
    fit_summary = False

    def __init__(
        self,
        client: GitLabClient,
        target: MergeRequest,
        draft: ReviewDraft,
        *,
        dry_run: bool,
        env: Mapping[str, str],
    ) -> None:
        self.client, self.pull, self.draft, self.dry_run = client, target, draft, dry_run
        self.target = str(target)
        user = client.current_user()
        self.username = user.username if user is not None else ""
        self.snapshot = None if client.offline else read_merge_request(client, target, diff=True)
        self.refs = self.snapshot.refs if self.snapshot else _offline_refs(env)
        self.files = None
        if self.snapshot is not None and self.snapshot.diffs is not None:
            self.files = addressable(self.snapshot.diffs)

    @property
    def head(self) -> str | None:
        return self.refs.head_sha or None

    def ours(self) -> Ours[FindingThread, int]:
        discussions = self.snapshot.discussions if self.snapshot is not None else ()
        return find_ours(self.username, discussions)

    def plan(
        self, live: Mapping[str, Sequence[FindingThread]], *, resolve_fixed: bool
    ) -> ThreadWork[FindingThread]:
        work: ThreadWork[FindingThread] = ThreadWork()
        reported = self.draft.fingerprints()
        # Our threads whose identity this run does not report, by the line GitLab shows
        # them on now: an earlier version's identity, or one that follows line numbers.
        orphans = {
            (path_at(where, "new_path"), line): thread
            for fingerprint, threads in live.items()
            if fingerprint not in reported
            for thread in threads
            for where in [thread.position or {}]
            for line in [line_at(where, "new_line")]
            if line is not None
        }
        mapped: set[str] = set()
        for comment in self.draft.comments:
            threads: Sequence[FindingThread] = live.get(comment.fingerprint, [])
            if not threads:
                thread = orphans.pop((comment.path, comment.line), None)
                if thread is not None:
                    threads = [thread]
                    mapped.add(thread.discussion)
            position = self._position(comment)
            placed = [t for t in threads if anchored_at(t.position, comment, self.refs.head_sha)]
            if placed:
                work.skipped += 1
                work.update += [(t, comment.body) for t in placed if _stale(t, comment.body)]
                work.replace += [t for t in threads if t not in placed and not t.replied]
            elif position is None:
                work.moved.append(comment)
            else:
                work.create.append(comment)
                work.replace += [thread for thread in threads if not thread.replied]
        for fingerprint, threads in live.items():
            if fingerprint in reported or not resolve_fixed:
                continue
            for thread in threads:
                if thread.discussion in mapped:
                    continue
                if thread.replied:
                    work.kept += 1
                    continue
                where = thread.position or {}
                carried = where.get("head_sha") == self.refs.head_sha  # to the newest version
                path, line = str(where.get("new_path") or ""), line_at(where, "new_line")
                verdict = judge_gone(
                    self.draft, thread.body, path, line if carried else None, outdated=not carried
                )
                if not verdict.fixed:  # its bots did not report, or its lines did not change
                    missing, compared = verdict.missing, verdict.compared
                    body = unchecked_body(thread.body, self.head, missing, compared=compared)
                    if _stale(thread, body):
                        work.update.append((thread, body))
                    work.unchecked += 1
                else:
                    work.fixed.append((thread, fingerprint))
        return work

    def _position(self, comment: DraftComment) -> dict[str, Any] | None:
        return position_for(comment, self.refs, self.files)

    def body(self, thread: FindingThread) -> str:
        return thread.body

    def create_summary(self, text: str) -> int | None:
        def applied() -> object | None:
            sticky = find_ours(self.username, self._discussions()).sticky
            return {"id": sticky} if sticky is not None else None

        created = self._create_once(f"{self.pull.path}/notes", {"body": text}, applied)
        note_id = created.get("id") if isinstance(created, dict) else None
        return note_id if isinstance(note_id, int) else None

    def update_summary(self, sticky: int, text: str) -> None:
        self._write("PUT", f"{self.pull.path}/notes/{sticky}", {"body": text})

    def create_thread(self, comment: DraftComment) -> bool:
        position = self._position(comment)
        if position is None:  # it had a position when planned: the reading does not change
            return False

        def applied() -> object | None:
            discussions = self._discussions()
            return find_thread(self.username, discussions, comment.fingerprint, position)

        body = {"body": comment.body, "position": position}
        self._create_once(f"{self.pull.path}/discussions", body, applied)
        return True

    def delete(self, thread: FindingThread) -> None:
        self._delete(self._first_note(thread))

    def edit(self, thread: FindingThread, body: str) -> None:
        self._write("PUT", self._first_note(thread), {"body": body})

    def _first_note(self, thread: FindingThread) -> str:
        return f"{self.pull.path}/discussions/{thread.discussion}/notes/{thread.note}"

    def resolve(self, thread: FindingThread) -> None:
        if not thread.resolved:
            self._write(
                "PUT", f"{self.pull.path}/discussions/{thread.discussion}", {"resolved": True}
            )

    def set_status(self, name: str, sticky: int | None) -> str:
        gate = self.draft.gate
        if gate is None:
            return "not set (the plan has no gate)"
        state = "failed" if gate.failed else "success"
        body: dict[str, Any] = {"state": state, "name": name, "description": gate.describe()}
        web_url = self.snapshot.web_url if self.snapshot else ""
        if web_url and sticky is not None:
            body["target_url"] = f"{web_url}#note_{sticky}"
        path = f"{self.pull.project_path}/statuses/{self.refs.head_sha}"
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

    def _discussions(self) -> Sequence[Mapping[str, Any]]:
        return tuple(self.client.paginate(f"{self.pull.path}/discussions"))


def _stale(thread: FindingThread, body: str) -> bool:
    return not thread.replied and normal(thread.body) != normal(body)


def _offline_refs(env: Mapping[str, str]) -> DiffRefs:
    """The SHAs a merge request pipeline names, for an offline dry run."""
    base = env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA", "") or "BASE_SHA"
    head = env.get("CI_COMMIT_SHA", "") or "HEAD_SHA"
    return DiffRefs(base, base, head)
