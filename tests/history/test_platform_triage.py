"""`/quorum false-positive|wont-fix|ack` on GitLab, Azure DevOps and Bitbucket, end to end
against their stand-ins: `quorum review --<platform> --reporter ... --db` posts, a
configured triager answers one of our comments, the next run honours it (not posted again,
out of the gate, listed as acknowledged); a bot's, a look-alike's and an unlisted person's
commands do nothing and are counted as skipped records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab import gitlab_support
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.history import open_history
from review_quorum.history.triage import decisions_for

HEAD = "c" * 40
STRICT = [
    "--inline-level", "unverified", "--threshold", "30", "--gate-level", "unverified",
    "--line-window", "0", "--head-sha", HEAD, "--format", "json",
]  # fmt: skip
_, CODERABBIT, LINE, BODY = BOT_NOTES[0]


def run(tmp_path: Path, args: list[str], db: str, triagers: list[str]) -> tuple[int, Any]:
    config = tmp_path / "quorum.toml"
    config.write_text(f"triagers = {json.dumps(triagers)}\n")
    out = tmp_path / "plan.json"
    status = main([*args, *STRICT, "--db", db, "--config", str(config), "-o", str(out)])
    return status, json.loads(out.read_text())


def refused(report: dict[str, Any]) -> list[str]:
    return sorted(s["reason"] for s in report["skipped"] if "triage ignored" in s["reason"])


def check_honoured(
    db: str, owner: str, repo: str, first: dict[str, Any], second: dict[str, Any], said: str
) -> None:
    [finding] = first["findings"]
    assert finding["disposition"] == "inline"
    [again] = second["findings"]
    assert again["disposition"] == "audit"
    assert "false positive by " in again["reason"]
    assert (second["gate"]["failed"], second["gate"]["count"]) == (False, 0)
    assert "**Acknowledged** (not posted again, not gating)" in said  # in the summary
    database = open_history(db)
    try:
        decisions = decisions_for(database, owner, repo, 7)
    finally:
        database.close()
    assert [(d.action, d.reason) for d in decisions] == [("false-positive", "not reachable")]


def test_gitlab_triage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "h.db")
    post = ["review", "--gitlab", *gitlab_support.MR, "--reporter", "gitlab-mr"]
    with gitlab_support.over_http(monkeypatch) as (fake, errors):
        fake.add_note(CODERABBIT, BODY, position=fake.position(gitlab_support.PATH, LINE))
        status, first = run(tmp_path, post, db, ["erin"])
        [ours] = [d for d in fake.threads_by(gitlab_support.QUORUM) if not d["individual_note"]]
        fake.add_note("mallory", "/quorum ack", reply_to=ours)
        fake.add_note("project_4242_bot_0a0b0c", "/quorum wont-fix", reply_to=ours)
        fake.add_note("erin", "/quorum false-positive not reachable", reply_to=ours)
        fake.award(ours["notes"][0], "mallory", "thumbsdown")
        again, second = run(tmp_path, post, db, ["erin"])
    assert errors == []
    assert (status, again) == (1, 0)
    said = "".join(n["body"] for d in fake.threads_by(gitlab_support.QUORUM) for n in d["notes"])
    check_honoured(db, "gitlab:acme", "stockroom", first, second, said)
    assert refused(second) == [
        "triage ignored (/quorum ack by mallory): not from an account the configuration's "
        "triagers list",
        "triage ignored (/quorum wont-fix by project_4242_bot_0a0b0c): a bot's triage is not "
        "a person's decision",
        "triage ignored (thumbs-down reaction by mallory): not from an account the "
        "configuration's triagers list",
    ]
    assert [d for d in fake.threads_by(gitlab_support.QUORUM) if not d["individual_note"]] == [
        ours
    ]  # not posted again


def test_azure_devops_triage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "h.db")
    post = ["review", "--azure-devops", *ado_support.PULL, "--reporter", "azure-devops-pr"]
    with ado_support.over_http(monkeypatch) as (fake, errors):
        fake.add_thread(CODERABBIT, BODY, path=ado_support.PATH, line=LINE)
        status, first = run(tmp_path, post, db, ["erin@contoso.com"])
        [ours] = [t for t in fake.threads_by(ado_support.QUORUM) if "threadContext" in t]
        fake.identity("Erin")["uniqueName"] = "erin@contoso.com"
        fake.reply(ours, "Mallory", "/quorum ack")
        look_alike = fake.add_identity(None, "Erin (look-alike)")
        look_alike["uniqueName"] = "erin@contoso.example"
        fake.reply(ours, "Erin (look-alike)", "/quorum wont-fix")
        fake.reply(ours, "Erin", "/quorum false-positive not reachable")
        again, second = run(tmp_path, post, db, ["erin@contoso.com"])
    assert errors == []
    assert (status, again) == (1, 0)
    said = "".join(c["content"] for t in fake.threads_by(ado_support.QUORUM) for c in t["comments"])
    check_honoured(db, "azure-devops:contoso", "Stock Room/stockroom", first, second, said)
    assert refused(second) == [
        "triage ignored (/quorum ack by Mallory): not from an account the configuration's "
        "triagers list",
        "triage ignored (/quorum wont-fix by erin@contoso.example): not from an account the "
        "configuration's triagers list",
    ]


def test_bitbucket_triage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "h.db")
    post = ["review", "--bitbucket", *bitbucket_support.PULL, "--reporter", "bitbucket-pr"]
    with bitbucket_support.over_http(monkeypatch) as (fake, errors):
        monkeypatch.setenv("BITBUCKET_COMMIT", HEAD)
        fake.add_comment(CODERABBIT, BODY, path=bitbucket_support.PATH, line=LINE)
        erin = fake.account("Erin")
        status, first = run(tmp_path, post, db, [erin["uuid"]])
        [ours] = [c for c in fake.comments_by(bitbucket_support.QUORUM) if "inline" in c]
        twin = fake.add_account(None, "Erin twin")
        twin["nickname"] = "Erin"  # a look-alike: same nickname, another account
        asked = fake.add_comment("Erin twin", "/quorum wont-fix", parent=ours)
        # the triager answers the look-alike's reply: Bitbucket names that reply as parent
        fake.add_comment("Erin", "/quorum false-positive not reachable", parent=asked)
        fake.add_comment("project_4242_bot_0a0b0c", "/quorum ack", parent=ours, app=True)
        again, second = run(tmp_path, post, db, [erin["uuid"]])
    assert errors == []
    assert (status, again) == (1, 0)
    said = "".join(c["content"]["raw"] for c in fake.comments_by(bitbucket_support.QUORUM))
    check_honoured(db, "bitbucket:acme", "stockroom", first, second, said)
    assert refused(second) == [
        "triage ignored (/quorum ack by project_4242_bot_0a0b0c): a bot's triage is not a "
        "person's decision",
        "triage ignored (/quorum wont-fix by Erin): not from an account the configuration's "
        "triagers list",
    ]
