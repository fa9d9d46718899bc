"""Azure DevOps pieces on their own: the pull request named by a pipeline's variables, who
is a service identity, the changed files read page by page, and a deleted file that no
thread can sit on."""

from __future__ import annotations

import httpx
import orjson
import pytest

from azure_devops.ado_support import PATH, PULL, QUORUM, TOKEN, new_fake, over_http
from azure_devops.test_ado_posting import POST, ours, summaries
from gitlab.gitlab_support import BOT_NOTES
from review_quorum.azure_devops.client import AzureDevOpsClient
from review_quorum.azure_devops.snapshot import read_changes
from review_quorum.azure_devops.target import (
    AzurePullRequest,
    organization_from,
    resolve_pull_request,
)
from review_quorum.cli import main
from review_quorum.errors import ConfigError
from review_quorum.ingest.azure_devops_threads import (
    conversation,
    is_service_identity,
    read_threads,
)


@pytest.mark.parametrize(
    ("uri", "organization"),
    [
        ("https://dev.azure.com/contoso/", "contoso"),
        ("https://contoso.visualstudio.com/", "contoso"),
        ("https://tfs.example.com/tfs/DefaultCollection/", "DefaultCollection"),
        ("https://dev.azure.com/", None),
        ("not a url at all", None),
    ],
)
def test_the_organisation_comes_from_the_collection_uri(uri: str, organization: str | None) -> None:
    assert organization_from(uri) == organization


def test_flags_win_over_the_pipeline_and_bad_names_are_refused() -> None:
    env = {
        "SYSTEM_COLLECTIONURI": "https://dev.azure.com/contoso/",
        "SYSTEM_TEAMPROJECT": "Stock Room",
        "BUILD_REPOSITORY_NAME": "stockroom",
        "SYSTEM_PULLREQUEST_PULLREQUESTID": "7",
    }
    assert resolve_pull_request(None, None, None, None, env) == AzurePullRequest(
        "contoso", "Stock Room", "stockroom", 7
    )
    assert resolve_pull_request("fabrikam", None, "web", 9, env).path == (
        "/fabrikam/Stock%20Room/_apis/git/repositories/web/pullRequests/9"
    )
    with pytest.raises(ConfigError, match="--repo: not an Azure DevOps name"):
        resolve_pull_request(None, None, "../other", None, env)


def test_service_identities_are_told_from_people() -> None:
    assert is_service_identity({"descriptor": "svc.Yzk3", "displayName": "Kodus"})
    assert is_service_identity({"uniqueName": "Build\\1234", "displayName": "x"})
    assert is_service_identity({"displayName": "Stock Room Build Service (contoso)"})
    assert not is_service_identity({"descriptor": "aad.Yzk3", "displayName": "Dana Builder"})


def test_the_changed_files_are_read_page_by_page() -> None:
    fake = new_fake()
    fake.push("e" * 40, {f"src/file{n}.py": 10 for n in range(7)})
    fake.page_cap = 3
    http = httpx.Client(transport=httpx.MockTransport(fake.handle))
    client = AzureDevOpsClient(http, token=TOKEN, api_url=fake.api_url)
    target = AzurePullRequest("contoso", "Stock Room", "stockroom", 7)
    files = read_changes(client, target, 2)
    assert sorted(files) == [f"/src/file{n}.py" for n in range(7)]
    assert [entry[1].endswith("/changes") for entry in fake.log].count(True) == 3


def test_a_finding_on_a_deleted_file_goes_in_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        fake.push("e" * 40, {PATH: 40}, deleted=("src/gone.py",))
        fake.add_thread(BOT_NOTES[0][1], BOT_NOTES[0][3], path=PATH, line=12)
        fake.threads[-1]["threadContext"]["filePath"] = "/src/gone.py"
        assert main(POST) == 1
        assert errors == []
    assert ours(fake) == []
    assert "`src/gone.py` line 12" in summaries(fake)[0]["comments"][0]["content"]
    assert "refused" not in capsys.readouterr().err  # not even tried


def test_the_marker_alone_or_the_identity_alone_makes_nothing_ours(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        fake.add_thread(BOT_NOTES[0][1], BOT_NOTES[0][3], path=PATH, line=12)
        assert main(POST) == 1
        [thread] = ours(fake)
        planted = dict(thread, id=9999, comments=[dict(thread["comments"][0])])
        planted["comments"][0]["author"] = fake.identity("Mallory")
        fake.threads.append(planted)  # someone else's copy of our thread, marker and all
        thread["comments"][0]["content"] = "an edit that dropped the marker"
        assert main(POST) == 1
        assert errors == []
    assert len(ours(fake)) == 2  # ours again (the unmarked one is no longer ours)
    assert planted["comments"][0]["content"].startswith("<!-- review-quorum:finding")
    assert len(summaries(fake)) == 1 and PULL[1] == "contoso" and QUORUM


def test_our_identity_quoting_a_marker_inside_a_comment_is_not_ours(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    quoted = "A person on the shared account quotes:\n<!-- review-quorum:finding 0123abcd -->"
    with over_http(monkeypatch) as (fake, errors):
        fake.add_thread(QUORUM, quoted, path=PATH, line=20)
        assert main(POST) == 0  # no findings; --resolve-fixed has nothing of ours to fix
        assert errors == []
    [thread] = [t for t in fake.threads if t["comments"][0]["content"] == quoted]
    assert thread["status"] == "active"


def test_a_replied_thread_left_behind_by_a_push_stays(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with over_http(monkeypatch) as (fake, errors):
        bot = fake.add_thread(BOT_NOTES[0][1], BOT_NOTES[0][3], path=PATH, line=12)
        assert main(POST) == 1
        [old] = ours(fake)
        fake.reply(old, "Dana Reviewer", "Looking into it.")
        fake.push("e" * 40, {PATH: 45}, lambda p, n: None if n == 12 else n)
        bot["threadContext"]["rightFileStart"]["line"] = 30  # the bot moved its finding
        bot["threadContext"]["rightFileEnd"]["line"] = 30
        assert main(POST) == 1
        assert errors == []
    assert sorted(t["threadContext"]["rightFileEnd"]["line"] for t in ours(fake)) == [12, 30]
    assert not old["isDeleted"] and len(old["comments"]) == 2
    assert not old["comments"][0]["isDeleted"]  # our comment in it is kept too


def test_a_range_thread_reads_as_a_range() -> None:
    author = {"id": "x", "displayName": "coderabbitai", "uniqueName": "coderabbitai"}
    context = {
        "filePath": "/a.py",
        "rightFileStart": {"line": 5, "offset": 1},
        "rightFileEnd": {"line": 8, "offset": 1},
    }
    comment = {"id": 1, "author": author, "content": BOT_NOTES[0][3], "commentType": "text"}
    threads = [{"id": 3, "threadContext": context, "comments": [comment]}]
    [finding] = read_threads(conversation(threads, head_sha="h")).findings
    assert (finding.evidence.line, finding.evidence.end_line) == (5, 8)


def test_our_build_service_threads_are_never_read_back_as_findings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    service = "Stock Room Build Service (contoso)"
    with over_http(monkeypatch) as (fake, errors):
        fake.add_identity("system-token-0123456789", service, service=True, bearer=True)
        fake.add_thread(BOT_NOTES[0][1], BOT_NOTES[0][3], path=PATH, line=12)
        monkeypatch.delenv("AZURE_DEVOPS_TOKEN")
        monkeypatch.setenv("SYSTEM_ACCESSTOKEN", "system-token-0123456789")
        assert main(POST) == 1
        capsys.readouterr()
        assert main(["review", "--azure-devops", *PULL, "--format", "json"]) == 0
        assert errors == []
    report = orjson.loads(capsys.readouterr().out)
    assert [m["bot"] for f in report["findings"] for m in f["members"]] == ["coderabbit"]
