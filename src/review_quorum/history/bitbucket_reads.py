"""Reading a Bitbucket Cloud pull request's history: its bot comments' outcomes, and triage.

The history source for Bitbucket, in the shape of `github_reads`: `read_pull_history`
labels one pull request read by `bitbucket.snapshot.read_pull_request` (the pull request
and every comment, page by page) with `pulls.label`:

- an inline comment whose thread someone resolved (``resolution``, and by whom) is the
  thread resolved;
- the pull request author's replies to a bot's comment are the author's reply;
- the pull request's state: ``OPEN`` is open, ``MERGED`` merged, ``DECLINED`` and
  ``SUPERSEDED`` closed.

Bitbucket's comments carry no reactions, and the endpoints quorum reads do not say
whether a push changed a comment's lines: both signals are left unknown here.
`read_decisions` reads ``/quorum`` commands; the configured triagers alone decide (by
account uuid or account id, never by a nickname or display name anyone can choose), and
every refused command is a counted record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from review_quorum.bitbucket.client import BitbucketClient
from review_quorum.bitbucket.snapshot import BitbucketPullSnapshot, read_pull_request
from review_quorum.bitbucket.target import BitbucketPullRequest
from review_quorum.errors import BitbucketError
from review_quorum.history.pulls import (
    PullHistory,
    PullInfo,
    PullReading,
    ThreadState,
    bot_comments,
    label,
    reading_as,
)
from review_quorum.history.triage import Actor, Screened, by_triagers, commands, spoken
from review_quorum.ingest.azure_devops_threads import signed_accounts
from review_quorum.ingest.base import ReadOptions, signed
from review_quorum.ingest.bitbucket_comments import (
    APP_ACCOUNT,
    BitbucketConversation,
    conversation,
    login_of,
)

STATES = {"OPEN": "open", "MERGED": "merged", "DECLINED": "closed", "SUPERSEDED": "closed"}


def pull_info(pull: Mapping[str, Any], number: int, own_uuid: str = "") -> PullInfo:
    """The pull request as the history stores one."""
    state = STATES.get(str(pull.get("state") or "OPEN"), "open")
    updated = str(pull.get("updated_on") or pull.get("created_on") or "")
    return PullInfo(
        number=number,
        title=str(pull.get("title") or ""),
        author=login_of(pull.get("author"), own_uuid),
        state=state,
        created_at=str(pull.get("created_on") or ""),
        updated_at=updated,
        closed_at=updated if state != "open" else None,
        merged_at=updated if state == "merged" else None,
    )


def talk_of(snapshot: BitbucketPullSnapshot, own_uuid: str = "") -> BitbucketConversation:
    return conversation(snapshot.comments, head_sha=snapshot.head_sha, own_uuid=own_uuid)


def read_pull_history(
    snapshot: BitbucketPullSnapshot, options: ReadOptions | None = None, own_uuid: str = ""
) -> PullHistory:
    """One pull request read from Bitbucket, labelled (no further request is needed)."""
    options = options or ReadOptions()
    talk = talk_of(snapshot, own_uuid)
    options = signed(options, signed_accounts(talk.comments))
    info = pull_info(snapshot.pull, snapshot.target.pull_id, own_uuid)
    comments = bot_comments(talk.comments, f"{snapshot.target} (Bitbucket comments)", options)
    raw = {c.get("id"): c for c in snapshot.comments}
    threads: dict[int, ThreadState] = {}
    for comment in comments:
        resolution = raw.get(comment.rest_id, {}).get("resolution")
        if isinstance(resolution, Mapping):
            threads[comment.rest_id] = ThreadState(True, login_of(resolution.get("user")))
        else:
            threads[comment.rest_id] = ThreadState(False)
    records = rooted([c.record for c in talk.comments if isinstance(c.record, Mapping)])
    reading = PullReading(info=info, records=tuple(records), threads=threads, tracked={})
    return label(reading, comments)


def read_decisions(
    snapshot: BitbucketPullSnapshot,
    own_uuid: str,
    triagers: Sequence[str],
    bot_logins: Mapping[str, str] | None = None,
) -> Screened:
    """The configured triagers' ``/quorum`` commands on the pull request (a reply to our
    inline comment needs no fingerprint)."""
    talk = talk_of(snapshot, own_uuid)
    bot_logins = {**signed_accounts(talk.comments), **(bot_logins or {})}
    ours, kinds = spoken(talk.comments, own_uuid)
    said = list(zip([kind for kind, _ in kinds], rooted([r for _, r in kinds]), strict=True))
    users = {c.get("id"): c.get("user") for c in snapshot.comments}
    accounts = {
        f"{kind}:{record.get('id')}": _account(users.get(record.get("id")), bot_logins)
        for kind, record in said
    }
    return by_triagers(commands(said, ours, bots=True), accounts, triagers, str(snapshot.target))


def rooted(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """`records` with each reply answering its thread's first comment: Bitbucket names the
    comment replied to, which may itself be a reply."""
    parents = {
        r.get("id"): r.get("in_reply_to_id") for r in records if isinstance(r.get("id"), int)
    }
    result: list[Mapping[str, Any]] = []
    for record in records:
        parent, seen = record.get("in_reply_to_id"), set()
        while (
            isinstance(parent, int) and isinstance(parents.get(parent), int) and parent not in seen
        ):
            seen.add(parent)
            parent = parents[parent]
        result.append({**record, "in_reply_to_id": parent} if parent is not None else record)
    return result


def _account(user: object, bot_logins: Mapping[str, str]) -> Actor:
    if not isinstance(user, Mapping):
        return Actor((), bot=True)
    ids = tuple(str(user.get(key) or "") for key in ("uuid", "account_id"))
    bot = user.get("type") == APP_ACCOUNT or login_of(user) in bot_logins
    return Actor(ids, bot=bot)


class BitbucketSource:
    """`history.sync.sync_pulls`' source for one Bitbucket repository (`owner`/`repo`: its
    name in the history)."""

    def __init__(
        self,
        client: BitbucketClient,
        where: BitbucketPullRequest,
        owner: str,
        repo: str,
        own_uuid: str = "",
    ) -> None:
        self.client, self.where, self.owner, self.repo = client, where, owner, repo
        self.own_uuid = own_uuid

    def _target(self, number: int) -> BitbucketPullRequest:
        return BitbucketPullRequest.create(self.where.workspace, self.where.repo_slug, number)

    def info(self, number: int) -> PullInfo:
        target = self._target(number)
        pull = self.client.get(target.path)
        if not isinstance(pull, Mapping):
            raise BitbucketError(f"Bitbucket API GET {target.path} returned no pull request")
        return pull_info(pull, number, self.own_uuid)

    def history(self, number: int, options: ReadOptions | None) -> PullHistory:
        snapshot = read_pull_request(self.client, self._target(number))
        return read_pull_history(snapshot, reading_as(options, self.own_uuid), self.own_uuid)
