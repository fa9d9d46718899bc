"""`quorum history sync --azure-devops` and `--bitbucket` end to end against their
stand-ins (every request validated against ../shared), on SQLite and PostgreSQL: what
happened to each bot thread or comment becomes the same outcomes GitHub's sync gives."""

from __future__ import annotations

import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.history import finding_outcomes, open_history
from review_quorum.history.outcomes import DEFAULT_RULE
from review_quorum.history.show import FindingOutcome

NOTES = {bot: (username, line, body) for bot, username, line, body in BOT_NOTES}
ADO_SYNC = [
    "history", "sync", "--azure-devops", "--organization", "contoso", "--project", "Stock Room",
    "--repo", "stockroom",
]  # fmt: skip
BITBUCKET_SYNC = ["history", "sync", "--bitbucket", "--repo", "acme/stockroom"]


def outcomes(target: str) -> dict[str, FindingOutcome]:
    database = open_history(target)
    try:
        return {row.bot: row for row in finding_outcomes(database, DEFAULT_RULE)}
    finally:
        database.close()


def decided(rows: dict[str, FindingOutcome]) -> dict[str, tuple[str, str]]:
    return {bot: (row.outcome.value, row.reason) for bot, row in rows.items()}


def test_azure_devops_threads_get_their_outcomes(
    db_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with ado_support.over_http(monkeypatch) as (fake, errors):

        def thread(bot: str):  # type: ignore[no-untyped-def]
            username, line, body = NOTES[bot]
            return fake.add_thread(username, body, path=ado_support.PATH, line=line)

        thread("coderabbit")["status"] = "fixed"
        thread("gemini")["status"] = "wontFix"
        replied = thread("sourcery")
        fake.reply(replied, "Dana", "Good catch, fixed.")
        liked = thread("greptile")
        fake.like(liked["comments"][0], "Erin")
        fake.like(liked["comments"][0], "Dana")
        thread("codex")
        thread("cubic")["status"] = "closed"
        fake.status = "completed"
        status = main([*ADO_SYNC, "--pr", "7", "--db", db_target])
        again = main([*ADO_SYNC, "--db", db_target])
    assert errors == []
    assert (status, again) == (0, 0)
    said = capsys.readouterr().err
    assert "1 pull request(s) listed, 1 read, 0 already up to date; 6 bot comment(s)" in said
    assert "1 pull request(s) listed, 0 read, 1 already up to date" in said
    rows = outcomes(db_target)
    assert decided(rows) == {
        "coderabbit": ("addressed", "clause 6: resolved -> addressed"),
        "cubic": ("addressed", "clause 6: resolved -> addressed"),
        "gemini": ("dismissed", "clause 4: closed_as_declined -> dismissed"),
        "sourcery": ("addressed", "clause 8: author_agreed -> addressed"),
        "greptile": ("addressed", "clause 9: thumbs_up -> addressed"),
        "codex": ("dismissed", "clause 10: merged -> dismissed"),
    }
    assert "reactions +2/-0" in rows["greptile"].signals
    assert "thread closed as wont-fix" in rows["gemini"].signals
    assert rows["codex"].repository == "azure-devops:contoso/Stock Room/stockroom"
    database = open_history(db_target)
    try:  # Azure DevOps does not say whether a push changed the lines: unknown, not "no"
        assert database.rows("SELECT DISTINCT lines_changed FROM comment_findings") == [(None,)]
    finally:
        database.close()


def test_a_service_identitys_like_is_no_reaction(
    db_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ado_support.over_http(monkeypatch) as (fake, errors):
        username, line, body = NOTES["greptile"]
        liked = fake.add_thread(username, body, path=ado_support.PATH, line=line)
        fake.add_identity(None, "Stock Room Build Service (contoso)", service=True)
        fake.like(liked["comments"][0], "Stock Room Build Service (contoso)")
        assert main([*ADO_SYNC, "--pr", "7", "--db", db_target]) == 0
    assert errors == []
    row = outcomes(db_target)["greptile"]
    assert (row.outcome.value, row.signals) == ("unknown", ("pull request open",))


def test_bitbucket_comments_get_their_outcomes(
    db_target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with bitbucket_support.over_http(monkeypatch) as (fake, errors):

        def comment(bot: str):  # type: ignore[no-untyped-def]
            username, line, body = NOTES[bot]
            return fake.add_comment(username, body, path=bitbucket_support.PATH, line=line)

        fake.resolve(comment("coderabbit"), "Erin")
        declined = comment("gemini")
        asked = fake.add_comment("Erin", "Is it?", parent=declined)
        fake.add_comment("Dana", "That is by design.", parent=asked)  # a reply to a reply
        comment("codex")
        fake.page_cap = 2  # six comments: three pages
        fake.state = "MERGED"
        status = main([*BITBUCKET_SYNC, "--pr", "7", "--db", db_target])
        again = main([*BITBUCKET_SYNC, "--db", db_target])
    assert errors == []
    assert (status, again) == (0, 0)
    said = capsys.readouterr().err
    assert "1 pull request(s) listed, 1 read, 0 already up to date; 3 bot comment(s)" in said
    assert "0 read, 1 already up to date" in said
    rows = outcomes(db_target)
    assert decided(rows) == {
        "coderabbit": ("addressed", "clause 6: resolved -> addressed"),
        "gemini": ("dismissed", "clause 1: author_declined -> dismissed"),
        "codex": ("dismissed", "clause 10: merged -> dismissed"),
    }
    assert "thread resolved by Erin" in rows["coderabbit"].signals
    assert rows["codex"].repository == "bitbucket:acme/stockroom"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([*BITBUCKET_SYNC], "nothing to read for bitbucket:acme/stockroom: name pull requests"),
        ([*BITBUCKET_SYNC, "--pr", "7", "--last", "3"], "--since and --last choose among"),
        ([*BITBUCKET_SYNC, "--gitlab", "--pr", "7"], "--gitlab and --bitbucket name different"),
        (["history", "sync"], "history sync needs --repo OWNER/NAME"),
    ],
)
def test_sync_says_what_is_missing(
    args: list[str], said: str, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "--db", f"{tmp_path}/h.db"]) == 2
    assert said in capsys.readouterr().err
