"""`quorum review --azure-devops` reads a pull request's threads over HTTP from the stand-in:
the ten bots' findings, people and system comments left out, our own marked comments never
read, the target named by the pipeline's variables."""

from __future__ import annotations

import orjson
import pytest

from azure_devops.ado_support import PATH, PULL, QUORUM, over_http, seed_bot_threads
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.cli import main
from review_quorum.ingest.azure_devops_threads import conversation, read_threads
from review_quorum.markup.markers import marker

READ = ["review", "--azure-devops", "--format", "json", "--gate-level", "none"]


def findings(out: str) -> list[tuple[str, str, int]]:
    report = orjson.loads(out)
    return sorted(
        (member["bot"], member["evidence"]["file"], member["evidence"]["line"])
        for item in report["findings"]
        for member in item["members"]
    )


def test_reads_every_bot_and_no_person(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        assert main([*READ, *PULL]) == 0
    assert errors == []
    got = findings(capsys.readouterr().out)
    assert got == sorted((bot, PATH, line) for bot, _, line, _ in BOT_NOTES)
    assert ("GET", "/contoso/_apis/connectionData", 200) in fake.log


def test_the_pipeline_variables_name_the_pull_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        seed_bot_threads(fake)
        monkeypatch.setenv("SYSTEM_COLLECTIONURI", "https://dev.azure.com/contoso/")
        monkeypatch.setenv("SYSTEM_TEAMPROJECT", "Stock Room")
        monkeypatch.setenv("BUILD_REPOSITORY_NAME", "stockroom")
        monkeypatch.setenv("SYSTEM_PULLREQUEST_PULLREQUESTID", "7")
        assert main(READ) == 0
    assert errors == []
    assert len(findings(capsys.readouterr().out)) == len(BOT_NOTES)


def test_without_a_pull_request_the_error_names_what_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch):
        assert main([*READ, "--organization", "contoso", "--pr", "7"]) == 2
    err = capsys.readouterr().err
    assert "--project, --repo missing" in err and "Traceback" not in err


def test_our_own_marked_thread_is_never_read_but_a_quoted_marker_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = f"{marker('finding', 'abc123')}\n{BOT_NOTES[0][3]}"
    with over_http(monkeypatch) as (fake, errors):
        fake.add_thread(QUORUM, body, path=PATH, line=12)
        # a bot quoting our marker is read as usual: only our identity's marked comments
        quoted = f"{BOT_NOTES[0][3]}\n\n{marker('finding', 'abc123')}"
        fake.add_thread("coderabbitai", quoted, path=PATH, line=14)
        assert main([*READ, *PULL]) == 0
    assert errors == []
    assert [line for _, _, line in findings(capsys.readouterr().out)] == [14]


def test_a_service_identity_is_read_under_the_bot_its_signature_names() -> None:
    service = {"id": "s-1", "displayName": "Contoso Build Service (contoso)", "descriptor": "svc.1"}
    person = {"id": "p-1", "displayName": "Dana", "uniqueName": "dana@contoso.com"}
    body = "<!-- CODOKI_INLINE -->\n⚠️ **High**: The SKU is logged with the customer's address."
    threads = [
        {
            "id": number,
            "threadContext": {"filePath": "/a.py", "rightFileEnd": {"line": 3, "offset": 1}},
            "comments": [{"id": 1, "author": author, "content": body, "commentType": "text"}],
        }
        for number, author in ((1, service), (2, person))
    ]
    batch = read_threads(conversation(threads, head_sha="h"))
    assert [(f.bot, f.file, f.line) for f in batch.findings] == [("codoki", "a.py", 3)]
    assert any("human" in s.reason for s in batch.skipped)


def test_system_and_deleted_comments_are_counted_as_skipped() -> None:
    author = {"id": "x", "displayName": "coderabbitai", "uniqueName": "coderabbitai"}
    threads = [
        {
            "id": 1,
            "comments": [{"id": 1, "author": author, "content": "x", "commentType": "system"}],
        },
        {"id": 2, "comments": [{"id": 1, "author": author, "content": "y", "isDeleted": True}]},
    ]
    batch = read_threads(conversation(threads, head_sha="h"))
    assert batch.findings == []
    assert sorted(s.reason for s in batch.skipped) == [
        "Azure DevOps system comment (activity log), not a comment",
        "deleted comment",
    ]
