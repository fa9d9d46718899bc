"""Reading a GitLab merge request's history: its bot notes' outcomes, and people's triage.

The history source for GitLab, in the shape of `github_reads`: `read_pull_history` reads
one merge request (``merge_requests/get``, its versions, every discussion page by page, and
the award emoji of each bot note) and labels it with `pulls.label`, so a GitLab team's
stats and calibration come from the same signals as a GitHub team's:

- a diff discussion resolved (and by whom) is the thread resolved;
- the merge request author's replies in a bot's discussion are the author's reply;
- people's award emoji on a bot note are its reactions (``thumbsup`` is +1, ``thumbsdown``
  -1, ``tada`` hooray; an access-token account's emoji count for nothing);
- whether a later push changed a diff note's lines is GitLab's own tracking: GitLab
  carries a note on an unchanged line to each new version (its position names the newest
  head) and leaves a note whose line changed on the version it was written on, so a note
  still on an older version had its lines changed by the next version's push;
- the merge request's state: ``opened`` is open, ``merged`` merged, ``closed`` and
  ``locked`` closed.

`read_decisions` reads the ``/quorum false-positive|wont-fix|ack`` commands and the
thumbs on our own notes; the configured triagers alone decide (GitLab's API as quorum
reads it has no permission endpoint), and every refused command is a counted record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import GitLabError
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.snapshot import MergeRequestSnapshot, read_merge_request
from review_quorum.gitlab.target import MergeRequest
from review_quorum.history.pulls import (
    BotComment,
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
from review_quorum.ingest.base import ReadOptions, signed
from review_quorum.ingest.gitlab_notes import (
    is_bot_account,
    signed_accounts,
)

STATES = {"opened": "open", "merged": "merged", "closed": "closed", "locked": "closed"}
EMOJI = {  # GitLab's award emoji names -> the reactions `outcomes.count_reactions` knows
    "thumbsup": "+1",
    "thumbsdown": "-1",
    "heart": "heart",
    "tada": "hooray",
    "rocket": "rocket",
    "confused": "confused",
}
INLINE = CommentKind.INLINE.source_kind
_TRIAGE_EMOJI = {"thumbsup": "thumbs-up", "thumbsdown": "thumbs-down"}


def pull_info(merge_request: Mapping[str, Any], iid: int) -> PullInfo:
    """The merge request as the history stores a pull request."""
    author = merge_request.get("author")
    state = str(merge_request.get("state") or "opened")
    return PullInfo(
        number=iid,
        title=str(merge_request.get("title") or ""),
        author=str(author.get("username") or "") if isinstance(author, Mapping) else "",
        state=STATES.get(state, "open"),
        created_at=str(merge_request.get("created_at") or ""),
        updated_at=str(merge_request.get("updated_at") or ""),
        closed_at=_text(merge_request.get("closed_at")),
        merged_at=_text(merge_request.get("merged_at")),
    )


def read_pull_history(
    client: GitLabClient, snapshot: MergeRequestSnapshot, options: ReadOptions | None = None
) -> PullHistory:
    """One merge request read from GitLab and labelled."""
    options = options or ReadOptions()
    talk = snapshot.conversation()
    options = signed(options, signed_accounts(talk.comments))
    logins = options.bot_logins
    info = pull_info(snapshot.merge_request, snapshot.target.iid)
    comments = bot_comments(talk.comments, f"{snapshot.target} (GitLab notes)", options)
    records = [c.record for c in talk.comments if isinstance(c.record, Mapping)]
    reading = PullReading(
        info=info,
        records=tuple(records),
        reactions={c.key: _reactions(client, snapshot, c, logins) for c in comments},
        threads=_threads(snapshot.discussions),
        tracked=tracked(comments, snapshot.versions),
    )
    return label(reading, comments)


def tracked(
    comments: Sequence[BotComment], versions: Sequence[Mapping[str, Any]]
) -> dict[str, tuple[int, str]]:
    """Per diff note: whether a later version changed its lines, as GitLab tracked them."""
    heads = [
        str(v.get("head_commit_sha") or "")
        for v in sorted(versions, key=lambda v: _number(v.get("id")))
    ]
    found: dict[str, tuple[int, str]] = {}
    for comment in comments:
        record = comment.record
        sha = record.get("commit_id")
        if comment.kind != CommentKind.INLINE.source_kind or not isinstance(
            record.get("line"), int
        ):
            continue
        if not heads or sha not in heads:
            continue  # written on a version GitLab no longer lists: unknown
        index = heads.index(sha)
        found[comment.key] = (0, "") if index == len(heads) - 1 else (1, heads[index + 1])
    return found


def _threads(discussions: Iterable[Mapping[str, Any]]) -> dict[int, ThreadState]:
    """Each resolvable discussion's state, by the id of its first note."""
    threads: dict[int, ThreadState] = {}
    for discussion in discussions:
        notes = discussion.get("notes")
        first = notes[0] if isinstance(notes, list) and notes else None
        if not isinstance(first, Mapping) or not isinstance(first.get("id"), int):
            continue
        if not first.get("resolvable"):
            continue
        resolved = bool(discussion.get("resolved") or first.get("resolved"))
        resolver = first.get("resolved_by")
        by = resolver.get("username") if isinstance(resolver, Mapping) else None
        threads[first["id"]] = ThreadState(resolved, str(by or "") if resolved else "")
    return threads


def _reactions(
    client: GitLabClient,
    snapshot: MergeRequestSnapshot,
    comment: BotComment,
    bot_logins: Mapping[str, str],
) -> list[dict[str, Any]]:
    """The note's award emoji as reactions (an access-token account's marked a bot's)."""
    return [
        {"user": _user(award.get("user"), bot_logins), "content": EMOJI.get(name, name)}
        for award in _awards(client, snapshot, comment.rest_id)
        if isinstance(name := award.get("name"), str)
    ]


def _awards(
    client: GitLabClient, snapshot: MergeRequestSnapshot, note_id: int
) -> list[Mapping[str, Any]]:
    items = client.paginate(f"{snapshot.target.path}/notes/{note_id}/award_emoji")
    return [item for item in items if isinstance(item, Mapping)]


def _user(user: object, bot_logins: Mapping[str, str]) -> dict[str, str]:
    name = user.get("username") if isinstance(user, Mapping) else None
    login = name if isinstance(name, str) else ""
    bot = is_bot_account(login) or login in bot_logins
    return {"login": login, "type": "Bot" if bot else "User"}


def read_decisions(
    client: GitLabClient,
    snapshot: MergeRequestSnapshot,
    own_login: str,
    triagers: Sequence[str],
    bot_logins: Mapping[str, str] | None = None,
) -> Screened:
    """The configured triagers' decisions on the merge request: ``/quorum`` commands in
    notes (a reply in our diff discussion needs no fingerprint) and thumbs on our notes."""
    talk = snapshot.conversation()
    bot_logins = {**signed_accounts(talk.comments), **(bot_logins or {})}
    ours, said = spoken(talk.comments, own_login)
    found: list[Decision] = commands(said, ours, bots=True)
    accounts = {
        f"{kind}:{record.get('id')}": _account(_author(snapshot, record.get("id")), bot_logins)
        for kind, record in said
    }
    for note_id, fingerprint in ours.items():
        for award in _awards(client, snapshot, note_id):
            action = _TRIAGE_EMOJI.get(str(award.get("name")))
            if action is None:
                continue
            via = f"reaction:{award.get('id')}"
            user = award.get("user")
            accounts[via] = _account(user, bot_logins)
            login = _user(user, bot_logins)["login"]
            found.append(
                Decision(fingerprint, action, login, str(award.get("created_at") or ""), "", via)
            )
    return by_triagers(found, accounts, triagers, str(snapshot.target))


def _author(snapshot: MergeRequestSnapshot, note_id: object) -> object:
    for discussion in snapshot.discussions:
        for note in discussion.get("notes") or ():
            if isinstance(note, Mapping) and note.get("id") == note_id:
                return note.get("author")
    return None


def _account(user: object, bot_logins: Mapping[str, str]) -> Actor:
    if not isinstance(user, Mapping):
        return Actor((), bot=True)
    name = user.get("username")
    login = name if isinstance(name, str) else ""
    ids = (login, str(user["id"]) if isinstance(user.get("id"), int) else "")
    return Actor(ids, bot=is_bot_account(login) or login in bot_logins)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class GitLabSource:
    """`history.sync.sync_pulls`' source for one GitLab project (`owner`/`repo`: its name
    in the history)."""

    def __init__(
        self, client: GitLabClient, project: str, owner: str, repo: str, own_login: str = ""
    ) -> None:
        self.client, self.project, self.owner, self.repo = client, project, owner, repo
        self.own_login = own_login

    def info(self, number: int) -> PullInfo:
        target = MergeRequest.create(self.project, number)
        merge_request = self.client.get(target.path)
        if not isinstance(merge_request, Mapping):
            raise GitLabError(f"GitLab API GET {target.path} returned no merge request")
        return pull_info(merge_request, number)

    def history(self, number: int, options: ReadOptions | None) -> PullHistory:
        snapshot = read_merge_request(self.client, MergeRequest.create(self.project, number))
        return read_pull_history(self.client, snapshot, reading_as(options, self.own_login))
