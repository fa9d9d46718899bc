"""Reading an Azure DevOps pull request's history: its bot threads' outcomes, and triage.

The history source for Azure DevOps, in the shape of `github_reads`: `read_pull_history`
labels one pull request read by `azure_devops.snapshot.read_pull_request` (the pull
request, its iterations and every thread) with `pulls.label`:

- a file thread whose status someone set to *Fixed* or *Closed* is the thread resolved;
- a thread closed as *Won't fix* or *By design* is a decline (``closed_as_declined``:
  stored as hidden with that reason, since Azure DevOps collapses closed threads);
- the pull request creator's replies in a bot's thread are the author's reply;
- people's likes on a bot's comment (``usersLiked``) are thumbs up; a service identity's
  like counts for nothing;
- the pull request's status: ``active`` is open, ``completed`` merged, ``abandoned`` closed.

Azure DevOps does not say whether a push changed a thread's lines through the endpoints
quorum reads, so that signal is unknown here (the successive runs `--db` records still
settle it from `git diff`). `read_decisions` reads ``/quorum`` commands and likes on our
own comments; the configured triagers alone decide, every refused one is a counted record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.snapshot import AzurePullSnapshot, read_pull_request
from review_quorum.azure_devops.target import AzurePullRequest
from review_quorum.errors import AzureDevOpsError
from review_quorum.history.pulls import (
    PullHistory,
    PullInfo,
    PullReading,
    ThreadState,
    bot_comments,
    label,
    reading_as,
)
from review_quorum.history.triage import (
    Actor,
    Decision,
    Screened,
    by_triagers,
    commands,
    spoken,
)
from review_quorum.ingest.azure_devops_threads import (
    AzureThreadsConversation,
    conversation,
    is_service_identity,
    login_of,
    signed_accounts,
)
from review_quorum.ingest.base import ReadOptions, signed

STATES = {"active": "open", "completed": "merged", "abandoned": "closed"}
RESOLVED = frozenset({"fixed", "closed"})
DECLINED = {"wontFix": "wont-fix", "byDesign": "by-design"}


def pull_info(pull: Mapping[str, Any], number: int, own_id: str = "") -> PullInfo:
    """The pull request as the history stores one. Azure DevOps names no update time: a
    closed pull request is stored once per closing date."""
    status = str(pull.get("status") or "active")
    state = STATES.get(status, "open")
    closed = _text(pull.get("closedDate"))
    created = str(pull.get("creationDate") or "")
    return PullInfo(
        number=number,
        title=str(pull.get("title") or ""),
        author=login_of(pull.get("createdBy"), own_id),
        state=state,
        created_at=created,
        updated_at=closed or created,
        closed_at=closed,
        merged_at=closed if state == "merged" else None,
    )


def talk_of(snapshot: AzurePullSnapshot, own_id: str = "") -> AzureThreadsConversation:
    return conversation(
        snapshot.threads, head_sha=snapshot.head_sha, web_url=snapshot.web_url, own_id=own_id
    )


def read_pull_history(
    snapshot: AzurePullSnapshot, options: ReadOptions | None = None, own_id: str = ""
) -> PullHistory:
    """One pull request read from Azure DevOps, labelled (no further request is needed)."""
    options = options or ReadOptions()
    talk = talk_of(snapshot, own_id)
    options = signed(options, signed_accounts(talk.comments))
    logins = options.bot_logins
    info = pull_info(snapshot.pull, snapshot.target.pull_id, own_id)
    comments = bot_comments(talk.comments, f"{snapshot.target} (Azure DevOps threads)", options)
    threads = {t["id"]: t for t in snapshot.threads if isinstance(t.get("id"), int)}
    reactions: dict[str, list[dict[str, Any]]] = {}
    states: dict[int, ThreadState] = {}
    declined: dict[str, str] = {}
    for comment in comments:
        thread = threads.get(comment.rest_id, {})
        status = str(thread.get("status") or "")
        states[comment.rest_id] = ThreadState(status in RESOLVED)
        if status in DECLINED:
            declined[comment.key] = DECLINED[status]
        reactions[comment.key] = [
            {"user": _user(person, own_id, logins), "content": "+1"}
            for person in _first(thread).get("usersLiked") or ()
        ]
    records = [c.record for c in talk.comments if isinstance(c.record, Mapping)]
    reading = PullReading(
        info=info,
        records=tuple(records),
        reactions=reactions,
        threads=states,
        minimized=declined,
        tracked={},
    )
    return label(reading, comments)


def read_decisions(
    snapshot: AzurePullSnapshot,
    own_id: str,
    triagers: Sequence[str],
    bot_logins: Mapping[str, str] | None = None,
) -> Screened:
    """The configured triagers' decisions on the pull request: ``/quorum`` commands (a
    reply in our thread needs no fingerprint) and likes on our comments (thumbs up)."""
    talk = talk_of(snapshot, own_id)
    bot_logins = {**signed_accounts(talk.comments), **(bot_logins or {})}
    ours, said = spoken(talk.comments, own_id)
    found: list[Decision] = commands(said, ours, bots=True)
    authors = _authors(snapshot)
    accounts = {
        f"{kind}:{record.get('id')}": _account(authors.get(str(record.get("id"))), bot_logins)
        for kind, record in said
    }
    threads = {t.get("id"): t for t in snapshot.threads}
    for thread_id, fingerprint in ours.items():
        for person in _first(threads.get(thread_id, {})).get("usersLiked") or ():
            if not isinstance(person, Mapping):
                continue
            via = f"reaction:{thread_id}/{person.get('id')}"
            accounts[via] = _account(person, bot_logins)
            who = login_of(person, own_id)
            found.append(Decision(fingerprint, "thumbs-up", who, "", "", via))
    return by_triagers(found, accounts, triagers, str(snapshot.target))


def _first(thread: Mapping[str, Any]) -> Mapping[str, Any]:
    comments = thread.get("comments")
    first = comments[0] if isinstance(comments, list) and comments else None
    return first if isinstance(first, Mapping) else {}


def _authors(snapshot: AzurePullSnapshot) -> dict[str, object]:
    """Each comment's author by the id its record carries (a thread's first comment by the
    thread's id, a reply by ``thread/comment``)."""
    found: dict[str, object] = {}
    for thread in snapshot.threads:
        comments = thread.get("comments")
        for index, comment in enumerate(comments if isinstance(comments, list) else ()):
            if isinstance(comment, Mapping):
                key = (
                    str(thread.get("id"))
                    if index == 0
                    else f"{thread.get('id')}/{comment.get('id')}"
                )
                found[key] = comment.get("author")
    return found


def _user(person: object, own_id: str, bot_logins: Mapping[str, str]) -> dict[str, str]:
    login = login_of(person, own_id)
    bot = is_service_identity(person) or login in bot_logins
    return {"login": login, "type": "Bot" if bot else "User"}


def _account(person: object, bot_logins: Mapping[str, str]) -> Actor:
    if not isinstance(person, Mapping):
        return Actor((), bot=True)
    ids = tuple(str(person.get(key) or "") for key in ("uniqueName", "id"))
    return Actor(ids, bot=is_service_identity(person) or login_of(person) in bot_logins)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class AzureDevOpsSource:
    """`history.sync.sync_pulls`' source for one Azure DevOps repository (`owner`/`repo`:
    its name in the history)."""

    def __init__(
        self,
        client: AzureDevOpsClient,
        where: AzurePullRequest,
        owner: str,
        repo: str,
        own_id: str = "",
    ) -> None:
        self.client, self.where, self.owner, self.repo = client, where, owner, repo
        self.own_id = own_id

    def _target(self, number: int) -> AzurePullRequest:
        return msgspec.structs.replace(self.where, pull_id=number)

    def info(self, number: int) -> PullInfo:
        target = self._target(number)
        pull = self.client.get(f"{target.repository_path}/pullrequests/{number}")
        if not isinstance(pull, Mapping):
            raise AzureDevOpsError(f"Azure DevOps API: no pull request {target}")
        return pull_info(pull, number, self.own_id)

    def history(self, number: int, options: ReadOptions | None) -> PullHistory:
        snapshot = read_pull_request(self.client, self._target(number), changes=False)
        return read_pull_history(snapshot, reading_as(options, self.own_id), self.own_id)
