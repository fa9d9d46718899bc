"""Explicit triage read from a pull request: reviewers' commands and reactions on our comments.

A person with write access (``admin``, ``maintain`` or ``write`` on the repository, as the
collaborators permission endpoint says; a fork author has ``read`` and cannot triage)
triages a finding with a line in a comment: ``/quorum false-positive``, ``/quorum
wont-fix`` or ``/quorum ack``, followed by the finding's fingerprint, or written as a reply
to our inline comment (whose marker names the fingerprint); anything after the
fingerprint is the reason. A thumbs-up or thumbs-down reaction by a writer on our inline
comment is triage too (``thumbs-up``, ``thumbs-down``); one on our summary is feedback on
the whole review (fingerprint ``*``). Each decision is stored with who, when, why and the
comment or reaction it came from (`store`), once; `triage_for` reads them back, with
where each one's finding was recorded, as an input to the next run's plan (`plan.Triage`:
the plan decides what a decision does). Comment text is untrusted: a fingerprint is only
ever the hex form our markers use, and a comment counts as ours when the account we post
as wrote it and it carries our marker (anyone can type a marker into a comment of their
own; markers in bot text are escaped when we render it); what a writer triages is the
writer's call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import msgspec

from review_quorum.comment_kinds import CommentKind
from review_quorum.errors import GitHubError, Skipped
from review_quorum.github.snapshot import PullSnapshot
from review_quorum.history.database import Database
from review_quorum.history.outcomes import is_bot
from review_quorum.history.recording import ensure_pull_request
from review_quorum.ingest.bots.authors import ACTIONS_LOGIN, normalise_login
from review_quorum.ingest.comments import PullComment
from review_quorum.markup.escape import one_line
from review_quorum.markup.markers import FINDING, SUMMARY, find_markers
from review_quorum.plan import Decision as Decision
from review_quorum.plan import Place, Triage

if TYPE_CHECKING:  # only reading decisions needs the HTTP client, and its caller has one
    from review_quorum.github.client import GitHubClient

ACTIONS = ("false-positive", "wont-fix", "ack")
WRITERS = frozenset({"admin", "maintain", "write"})
WHOLE_REVIEW = "*"
_COMMAND = re.compile(
    r"^[ \t]*/quorum[ \t]+(false-positive|wont-fix|ack)\b[ \t]*([0-9a-f]{24}\b)?[ \t]*(.*)$",
    re.MULTILINE,
)
_REACTIONS = {"+1": "thumbs-up", "-1": "thumbs-down"}
Permission = Callable[[str], str]


def our_comments(records: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """Comment id -> fingerprint of our inline comments (or `WHOLE_REVIEW` for the summary)."""
    ours: dict[int, str] = {}
    for record in records:
        body = record.get("body")
        if not isinstance(body, str) or not isinstance(record.get("id"), int):
            continue
        for kind, payload in find_markers(body):
            if kind == FINDING and payload:
                ours[int(record["id"])] = payload
            elif kind == SUMMARY:
                ours[int(record["id"])] = WHOLE_REVIEW
    return ours


def spoken(
    comments: Sequence[PullComment], own: str
) -> tuple[dict[int, str], list[tuple[str, Mapping[str, Any]]]]:
    """What a conversation holds for triage: our comments (`our_comments` of those the
    account `own` wrote; none without `own`) and every comment as `commands` reads it
    (its kind and record). GitLab, Azure DevOps and Bitbucket share this reading."""
    records = [c.record for c in comments if isinstance(c.record, dict)]
    ours = our_comments(r for r in records if own and _record_login(r) == own)
    said: list[tuple[str, Mapping[str, Any]]] = [
        (c.kind.source_kind, c.record)
        for c in comments
        if c.kind is not None and isinstance(c.record, Mapping)
    ]
    return ours, said


def _record_login(record: Mapping[str, Any]) -> str:
    user = record.get("user")
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) else ""


def commands(
    records: Iterable[tuple[str, Mapping[str, Any]]],
    ours: Mapping[int, str],
    *,
    bots: bool = False,
) -> list[Decision]:
    """Every ``/quorum`` command in (kind, comment) pairs, whoever wrote it (a bot's too
    with `bots`, for a reader that counts what it refuses)."""
    found: list[Decision] = []
    for kind, record in records:
        body, user = record.get("body"), record.get("user")
        if not isinstance(body, str) or not isinstance(user, Mapping):
            continue
        if is_bot(user) and not bots:
            continue
        parent = record.get("in_reply_to_id")
        replied = ours.get(parent, "") if isinstance(parent, int) else ""
        for action, fingerprint, reason in _COMMAND.findall(body):
            target = fingerprint or (replied if replied != WHOLE_REVIEW else "")
            if target:
                found.append(
                    Decision(
                        target,
                        action,
                        str(user.get("login") or ""),
                        str(record.get("created_at") or ""),
                        reason.strip()[:500],
                        f"{kind}:{record.get('id')}",
                    )
                )
    return found


def reactions(
    listed: Mapping[int, Sequence[Mapping[str, Any]]], ours: Mapping[int, str]
) -> list[Decision]:
    """Thumbs up and down by people on our comments, by comment id."""
    found: list[Decision] = []
    for comment_id, items in listed.items():
        for reaction in items:
            user = reaction.get("user")
            action = _REACTIONS.get(str(reaction.get("content")))
            if action is None or not isinstance(user, Mapping) or is_bot(user):
                continue
            found.append(
                Decision(
                    ours[comment_id],
                    action,
                    str(user.get("login") or ""),
                    str(reaction.get("created_at") or ""),
                    "",
                    f"reaction:{reaction.get('id')}",
                )
            )
    return found


def from_writers(decisions: Iterable[Decision], permission: Permission) -> list[Decision]:
    """The decisions whose author may write to the repository (asked once per person)."""
    return list(by_writers(decisions, permission).kept)


def by_writers(
    decisions: Iterable[Decision],
    permission: Permission,
    bots: Collection[str] = (),
    source: str = "",
) -> Screened:
    """The decisions made by someone who may write to the repository (GitHub: asked once
    per person); one whose `via` is in `bots` (a bot's comment) never counts. Each refused
    decision is a `Skipped` record saying whose it was and why, as `by_triagers` says it."""
    asked: dict[str, bool] = {}
    kept: list[Decision] = []
    refused: list[Skipped] = []
    for decision in decisions:
        if decision.via in bots:
            refused.append(_refused(decision, "a bot's triage is not a person's decision", source))
            continue
        if decision.actor not in asked:
            asked[decision.actor] = bool(decision.actor) and permission(decision.actor) in WRITERS
        if asked[decision.actor]:
            kept.append(decision)
        else:
            refused.append(_refused(decision, "no write access to the repository", source))
    return Screened(tuple(kept), tuple(refused))


class Screened(msgspec.Struct, frozen=True):
    """The decisions a platform's triage reader kept, and a counted record of each refused."""

    kept: tuple[Decision, ...] = ()
    refused: tuple[Skipped, ...] = ()


def by_triagers(
    decisions: Iterable[Decision],
    accounts: Mapping[str, Actor],
    triagers: Iterable[str],
    source: str,
) -> Screened:
    """The decisions made by a configured triager (GitLab, Azure DevOps, Bitbucket, whose
    APIs quorum reads have no permission endpoint): `accounts` maps each decision's `via`
    to the account behind it. A triager is named by a stable id (a GitLab username or user
    id, an Azure DevOps unique name or id, a Bitbucket uuid or account id), never by a
    display name anyone can choose; a bot never triages, even when listed. Each refused
    decision is a `Skipped` record saying whose it was and why."""
    allowed = {name.casefold() for name in triagers}
    kept: list[Decision] = []
    refused: list[Skipped] = []
    for decision in decisions:
        account = accounts.get(decision.via)
        if account is None or account.bot:
            why = "a bot's triage is not a person's decision"
        elif not any(key.casefold() in allowed for key in account.ids if key):
            why = "not from an account the configuration's triagers list"
        else:
            kept.append(decision)
            continue
        refused.append(_refused(decision, why, source))
    return Screened(tuple(kept), tuple(refused))


def _refused(decision: Decision, why: str, source: str) -> Skipped:
    said = f"/quorum {decision.action}" if decision.via.split(":")[0] != "reaction" else ""
    what = said or f"{decision.action} reaction"
    return Skipped(
        source,
        decision.via,
        f"triage ignored ({what} by {one_line(decision.actor)}): {why}",
        not_a_finding=True,
    )


class Actor(msgspec.Struct, frozen=True):
    """Who made a decision: the stable ids that name the account, and whether it is a bot."""

    ids: tuple[str, ...]
    bot: bool = False


def store(database: Database, owner: str, repo: str, number: int, found: list[Decision]) -> None:
    """Store `found` for the pull request; a decision already stored is not stored again."""
    with database.transaction():
        pull_id = ensure_pull_request(database, owner, repo, number)
        database.execute_many(
            "INSERT INTO triage (pull_request_id, fingerprint, action, actor, acted_at, reason,"
            " via) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (pull_request_id, via, fingerprint) DO NOTHING",
            [
                (pull_id, d.fingerprint, d.action, d.actor, d.acted_at, d.reason, d.via)
                for d in found
            ],
        )


def decisions_for(database: Database, owner: str, repo: str, number: int) -> list[Decision]:
    """Every stored decision on the pull request, oldest first."""
    rows = database.rows(
        "SELECT t.fingerprint, t.action, t.actor, t.acted_at, t.reason, t.via FROM triage t"
        " JOIN pull_requests p ON p.id = t.pull_request_id"
        " JOIN repositories r ON r.id = p.repository_id"
        " WHERE r.owner = ? AND r.name = ? AND p.number = ? ORDER BY t.acted_at, t.id",
        (owner, repo, number),
    )
    return [Decision(*row) for row in rows]


def places_of(
    database: Database, owner: str, repo: str, number: int, fingerprints: Iterable[str]
) -> dict[str, Place]:
    """Where the history last recorded the finding of each identity on the pull request:
    (file, category, line), for the identities it has recorded."""
    places: dict[str, Place] = {}
    for fingerprint in dict.fromkeys(fingerprints):
        if fingerprint == WHOLE_REVIEW:
            continue
        rows = database.rows(
            "SELECT f.file, f.category, f.line FROM findings f JOIN runs u ON u.id = f.run_id"
            " JOIN pull_requests p ON p.id = u.pull_request_id"
            " JOIN repositories r ON r.id = p.repository_id"
            " WHERE r.owner = ? AND r.name = ? AND p.number = ? AND f.fingerprint = ?"
            " ORDER BY u.id DESC LIMIT 1",
            (owner, repo, number, fingerprint),
        )
        if rows:
            places[fingerprint] = (str(rows[0][0]), str(rows[0][1]), rows[0][2])
    return places


def triage_for(database: Database, owner: str, repo: str, number: int) -> Triage:
    """The pull request's stored decisions, with where each one's finding was recorded:
    what planning needs to honour them (`plan.Triage`)."""
    decisions = decisions_for(database, owner, repo, number)
    places = places_of(database, owner, repo, number, (d.fingerprint for d in decisions))
    return Triage(tuple(decisions), places)


def read_decisions(
    client: GitHubClient, snapshot: PullSnapshot, own_login: str | None = None
) -> Screened:
    """The writers' triage on a pull request read from GitHub (reactions read only where
    any), and a counted record of each command refused (a bot's, or a reader's).

    Our comments are those the account we post as wrote (`own_login`, else the token's
    account, as posting finds it; the workflow token's `github-actions[bot]` always)."""
    target = snapshot.target
    everything = [*snapshot.review_comments, *snapshot.issue_comments]
    accounts = {normalise_login(ACTIONS_LOGIN)}
    login = own_login or client.user_login()
    if login:
        accounts.add(normalise_login(login))
    ours = our_comments(r for r in everything if normalise_login(_record_login(r)) in accounts)
    inline, issue = CommentKind.INLINE.source_kind, CommentKind.ISSUE.source_kind
    said = [(inline, r) for r in snapshot.review_comments]
    said += [(issue, r) for r in snapshot.issue_comments]
    listed: dict[int, list[Mapping[str, Any]]] = {}
    for kind, record in said:
        rollup = record.get("reactions")
        thumbs = isinstance(rollup, Mapping) and (rollup.get("+1") or rollup.get("-1"))
        if int(record.get("id") or 0) in ours and thumbs:
            where = "pulls" if kind == inline else "issues"
            path = f"{target.path}/{where}/comments/{record['id']}/reactions"
            listed[int(record["id"])] = [r for r in client.paginate(path) if isinstance(r, Mapping)]
    found = [*commands(said, ours, bots=True), *reactions(listed, ours)]
    bots = {f"{kind}:{r.get('id')}" for kind, r in said if is_bot(r.get("user") or {})}
    permission = partial(_permission, client, target.path)
    return by_writers(found, permission, bots, str(target))


def _permission(client: GitHubClient, repository_path: str, login: str) -> str:
    """The person's permission on the repository ("none" when GitHub does not say)."""
    try:
        answer = client.get(f"{repository_path}/collaborators/{quote(login, safe='')}/permission")
    except GitHubError:
        return "none"
    permission = answer.get("permission") if isinstance(answer, Mapping) else None
    return permission if isinstance(permission, str) else "none"
