"""The rules of the GitLab, Azure DevOps and Bitbucket history readers, one table each:
states, who triages (stable ids, never bots), what GitLab's note tracking says of lines,
and the names a repository gets in the history."""

from __future__ import annotations

from typing import Any

import pytest

from review_quorum.cli.history_platforms import gitlab_name
from review_quorum.cli.record import _full
from review_quorum.errors import ConfigError
from review_quorum.history import azure_devops_reads, bitbucket_reads, gitlab_reads
from review_quorum.history.pulls import BotComment
from review_quorum.history.triage import Actor, Decision, Screened, by_triagers, commands

FINGERPRINT = "0123456789abcdef01234567"


def decision(via: str, actor: str = "erin", action: str = "ack") -> Decision:
    return Decision(FINGERPRINT, action, actor, "2026-01-01T00:00:00Z", "", via)


@pytest.mark.parametrize(
    ("actor", "triagers", "kept"),
    [
        (Actor(("erin", "17")), ["erin"], True),
        (Actor(("erin", "17")), ["ERIN"], True),  # unique names compare without case
        (Actor(("erin", "17")), ["17"], True),  # or by the account's id
        (Actor(("erin", "17")), ["mallory"], False),
        (Actor(("erin", "17")), [], False),  # nobody triages without the list
        (Actor(("erin", "17"), bot=True), ["erin"], False),  # a bot never, even listed
        (Actor(("", "")), [""], False),  # an account with no id matches nothing
    ],
)
def test_only_listed_people_triage(actor: Actor, triagers: list[str], kept: bool) -> None:
    screened = by_triagers([decision("issue_comment:5")], {"issue_comment:5": actor}, triagers, "x")
    assert (len(screened.kept), len(screened.refused)) == ((1, 0) if kept else (0, 1))


def test_a_refused_decision_is_a_counted_record_saying_why() -> None:
    accounts = {"issue_comment:5": Actor(("bot",), bot=True), "reaction:9": Actor(("m",))}
    found = [decision("issue_comment:5", "bot\nname"), decision("reaction:9", "m", "thumbs-down")]
    screened = by_triagers(found, accounts, ["erin"], "acme/stockroom!7")
    assert [(s.source, s.position, s.reason, s.not_a_finding) for s in screened.refused] == [
        (
            "acme/stockroom!7",
            "issue_comment:5",
            "triage ignored (/quorum ack by bot name): a bot's triage is not a person's decision",
            True,
        ),
        (
            "acme/stockroom!7",
            "reaction:9",
            "triage ignored (thumbs-down reaction by m): not from an account the "
            "configuration's triagers list",
            True,
        ),
    ]


def test_an_unknown_account_counts_as_a_bot() -> None:
    screened = by_triagers([decision("issue_comment:5")], {}, ["erin"], "x")
    assert "a bot's triage" in screened.refused[0].reason


def test_commands_read_a_bots_only_when_asked_and_replies_by_integer_id() -> None:
    ours = {10: FINGERPRINT}
    bot = {
        "id": 1,
        "body": "/quorum ack",
        "user": {"login": "b", "type": "Bot"},
        "in_reply_to_id": 10,
    }
    odd = {"id": 2, "body": "/quorum ack", "user": {"login": "p"}, "in_reply_to_id": "parent"}
    said = [("review_comment", bot), ("review_comment", odd)]
    assert commands(said, ours) == []  # a bot's is skipped; a reply to no integer id is no one's
    assert [d.actor for d in commands(said, ours, bots=True)] == ["b"]


@pytest.mark.parametrize(
    ("state", "expected"),
    [("opened", "open"), ("merged", "merged"), ("closed", "closed"), ("locked", "closed"),
     ("weird", "open")],
)  # fmt: skip
def test_gitlab_states(state: str, expected: str) -> None:
    info = gitlab_reads.pull_info({"state": state, "author": {"username": "dana"}}, 7)
    assert (info.state, info.author, info.number) == (expected, "dana", 7)


@pytest.mark.parametrize(
    ("status", "expected"),
    [("active", "open"), ("completed", "merged"), ("abandoned", "closed")],
)
def test_azure_devops_states(status: str, expected: str) -> None:
    pull = {"status": status, "creationDate": "c", "closedDate": "z", "createdBy": {"id": "1"}}
    info = azure_devops_reads.pull_info(pull, 7)
    assert info.state == expected
    assert info.updated_at == "z"  # a closed (or any) pull request is stored per closing date
    assert info.merged_at == ("z" if expected == "merged" else None)


def test_an_open_azure_devops_pull_request_is_dated_by_its_creation() -> None:
    info = azure_devops_reads.pull_info({"status": "active", "creationDate": "c"}, 7)
    assert (info.updated_at, info.closed_at) == ("c", None)


@pytest.mark.parametrize(
    ("state", "expected"),
    [("OPEN", "open"), ("MERGED", "merged"), ("DECLINED", "closed"), ("SUPERSEDED", "closed")],
)
def test_bitbucket_states(state: str, expected: str) -> None:
    info = bitbucket_reads.pull_info({"state": state, "updated_on": "u", "created_on": "c"}, 7)
    assert info.state == expected
    assert info.closed_at == (None if expected == "open" else "u")
    assert info.merged_at == ("u" if expected == "merged" else None)


def inline(sha: str, line: int | None = 12, kind: str = "review_comment") -> BotComment:
    record: dict[str, Any] = {"id": 1, "commit_id": sha, "line": line}
    return BotComment(f"{kind}:1", record, "coderabbit", ())


VERSIONS = [{"id": 2, "head_commit_sha": "b"}, {"id": 1, "head_commit_sha": "a"}]


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        (inline("b"), (0, "")),  # carried to the newest version: its lines did not change
        (inline("a"), (1, "b")),  # left on version 1: the push of version 2 changed them
        (inline("z"), None),  # a version GitLab no longer lists: unknown
        (inline("a", None), None),  # a note on a removed line: unknown
        (inline("a", kind="issue_comment"), None),  # not a diff note: unknown
    ],
)
def test_gitlab_tracks_a_diff_notes_lines(
    comment: BotComment, expected: tuple[int, str] | None
) -> None:
    assert gitlab_reads.tracked([comment], VERSIONS).get(comment.key) == expected


def test_gitlab_discussions_resolved_and_by_whom() -> None:
    def discussion(**note: Any) -> dict[str, Any]:
        return {"resolved": note.pop("done", False), "notes": [{"id": note.pop("id"), **note}]}

    found = gitlab_reads._threads(
        [
            discussion(id=1, resolvable=True, resolved=True, resolved_by={"username": "erin"}),
            discussion(id=2, resolvable=True, done=True),
            discussion(id=3, resolvable=True, resolved_by={"username": "erin"}),
            discussion(id=4, resolvable=False, resolved=True),
        ]
    )
    assert {key: (t.resolved, t.resolved_by) for key, t in found.items()} == {
        1: (True, "erin"),
        2: (True, ""),
        3: (False, ""),  # unresolved: no one resolved it
    }


@pytest.mark.parametrize(
    ("username", "logins", "bot"),
    [("erin", {}, False), ("project_42_bot_ab12", {}, True), ("acme-ci", {"acme-ci": "x"}, True)],
)
def test_gitlab_emoji_and_triage_accounts_tell_bots(
    username: str, logins: dict[str, str], bot: bool
) -> None:
    user = {"username": username, "id": 17}
    assert gitlab_reads._user(user, logins)["type"] == ("Bot" if bot else "User")
    assert gitlab_reads._account(user, logins) == Actor((username, "17"), bot=bot)


def test_azure_devops_and_bitbucket_triage_accounts_use_stable_ids() -> None:
    person = {"uniqueName": "erin@contoso.com", "id": "g-1", "displayName": "Erin"}
    assert azure_devops_reads._account(person, {}) == Actor(("erin@contoso.com", "g-1"))
    service = {**person, "descriptor": "svc.1"}
    assert azure_devops_reads._account(service, {}).bot
    user = {"uuid": "{u-1}", "account_id": "5f1", "nickname": "Erin", "type": "user"}
    assert bitbucket_reads._account(user, {}) == Actor(("{u-1}", "5f1"))
    assert bitbucket_reads._account({**user, "type": "app_user"}, {}).bot
    assert bitbucket_reads._account({**user}, {"Erin": "x"}).bot
    assert bitbucket_reads._account(None, {}).bot


@pytest.mark.parametrize(
    ("project", "env", "expected"),
    [
        ("acme/stockroom", {}, ("gitlab:acme", "stockroom")),
        ("acme/tools/stockroom", {}, ("gitlab:acme", "tools/stockroom")),
        ("42", {"CI_PROJECT_ID": "42", "CI_PROJECT_PATH": "acme/x"}, ("gitlab:acme", "x")),
    ],
)
def test_gitlab_projects_are_named_by_path(
    project: str, env: dict[str, str], expected: tuple[str, str]
) -> None:
    assert gitlab_name(project, env) == expected


@pytest.mark.parametrize(
    "env", [{}, {"CI_PROJECT_ID": "41", "CI_PROJECT_PATH": "acme/x"}, {"CI_PROJECT_ID": "42"}]
)
def test_a_numbered_project_without_its_path_is_refused(env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="pass --project GROUP/PROJECT"):
        gitlab_name("42", env)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("A" * 40, "a" * 40), ("a" * 64, "a" * 64), ("a" * 39, None), ("g" * 40, None), ("", None)],
)
def test_a_pipelines_head_commit_must_be_a_full_sha(text: str, expected: str | None) -> None:
    assert _full(text) == expected


def test_a_reply_to_an_id_that_is_no_integer_is_no_ones() -> None:
    record = {"id": 2, "body": "/quorum ack", "user": {"login": "p"}, "in_reply_to_id": [10]}
    assert commands([("review_comment", record)], {10: FINGERPRINT}) == []


def test_only_our_own_accounts_marked_notes_are_ours_on_gitlab() -> None:
    """A look-alike's note carrying our marker is not ours: a reply to it triages nothing."""
    from review_quorum.gitlab.snapshot import DiffRefs, MergeRequestSnapshot
    from review_quorum.gitlab.target import MergeRequest
    from review_quorum.markup.markers import FINDING, marker

    def note(number: int, username: str, body: str) -> dict[str, Any]:
        return {"id": number, "author": {"username": username, "id": number}, "body": body}

    fake_ours = note(1, "quorum-look-alike", f"{marker(FINDING, FINGERPRINT)}\nA finding")
    reply = note(2, "erin", "/quorum false-positive")
    snapshot = MergeRequestSnapshot(
        MergeRequest("acme/stockroom", 7),
        DiffRefs("a" * 40, "a" * 40, "c" * 40),
        discussions=({"id": "d1", "notes": [fake_ours, reply]},),
    )
    screened = gitlab_reads.read_decisions(None, snapshot, "quorum-bot", ["erin"])  # type: ignore[arg-type]
    assert screened == Screened()


def test_the_triagers_key_must_be_a_list(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from review_quorum.cli import main

    config = tmp_path / "quorum.toml"
    config.write_text('triagers = "erin"\n')
    assert main(["history", "rule", "--config", str(config)]) == 2
    assert "expected a list of the accounts that may triage" in capsys.readouterr().err
