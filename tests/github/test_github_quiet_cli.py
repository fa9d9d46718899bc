"""`quorum review --github --post --hide-duplicates` and `quorum post`: the whole path.

The bots' comments are served by the fake and read by the bot-comment readers, which give
each finding the comment it came from; the plan carries those comments; posting hides the
duplicates. Nothing here builds a finding by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from github.fake import FakeGitHub
from github.github_reading import TARGET, connect, review_json
from github.github_support import new_fake
from github.pull_scene import BotNote, add_bot_review
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers

OURS = "quorum-bot"
SQL = (
    BotNote(
        "coderabbitai[bot]",
        "src/shop/search.py",
        31,
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**SQL injection: the search term is "
        "concatenated into the query.** Use a bound parameter.",
    ),
    BotNote(
        "sourcery-ai[bot]",
        "src/shop/search.py",
        32,
        "**issue (security):** SQL injection through the search term concatenated into the query.",
    ),
    BotNote(
        "cursor[bot]",
        "src/shop/search.py",
        30,
        "### SQL injection in the search query\n\n**High Severity**\n\nThe search term is "
        "concatenated into the SQL string.",
    ),
)
TAX = BotNote(
    "gemini-code-assist[bot]",
    "src/shop/tax.py",
    9,
    "![medium](https://www.gstatic.com/codereviewagent/medium-priority.svg)\n\nThe rate "
    "lookup falls back to zero for unknown regions.",
)
DIFF = {"src/shop/search.py": range(1, 60), "src/shop/tax.py": range(1, 30)}
POST = ["--post", "--hide-duplicates", "--resolve-fixed", "--bot-login", OURS]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    fake = new_fake()
    fake.set_diff(DIFF)
    for note in (*SQL, TAX):
        add_bot_review(fake, note)
    connect(fake, monkeypatch)
    return fake


def sql_comments(fake: FakeGitHub) -> list[str]:
    return [
        c["node_id"]
        for c in fake.review_comments
        if c["path"] == "src/shop/search.py" and c["user"]["login"] != OURS
    ]


def test_review_then_post_hides_the_duplicates_once(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", "--github", *TARGET, *POST, "-o", str(tmp_path / "out.md")]) == 1
    assert set(fake.graphql.state.minimized) == set(sql_comments(fake))
    tax = next(c for c in fake.review_comments if c["path"] == "src/shop/tax.py")
    assert tax["node_id"] not in fake.graphql.state.minimized  # one bot alone: not a duplicate
    [ours] = [c for c in fake.review_comments if c["user"]["login"] == OURS]
    assert ours["path"] == "src/shop/search.py"
    err = capsys.readouterr().err
    assert err.rstrip().endswith("; 3 duplicate bot comment(s) hidden, 0 restored")
    fake.log.clear()
    assert main(["review", "--github", *TARGET, *POST, "-o", str(tmp_path / "out.md")]) == 1
    assert [entry[0] for entry in fake.writes()] == ["PATCH"]  # the sticky, and nothing else
    assert (
        capsys.readouterr().err.rstrip().endswith("; 0 duplicate bot comment(s) hidden, 0 restored")
    )


def test_a_push_whose_bots_took_their_comments_back_restores_but_does_not_resolve(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    main(["review", "--github", *TARGET, *POST, "-o", str(tmp_path / "out.md")])
    [ours] = [c for c in fake.review_comments if c["user"]["login"] == OURS]
    # The fix: the bots take their comments back; the search code no longer has the issue.
    fake.review_comments = [
        c for c in fake.review_comments if c["path"] != "src/shop/search.py" or c is ours
    ]
    fake.push("f" * 40, DIFF, lambda path, line: line)
    # Gemini's finding is now the only one, by the only bot: confirmed, so the gate fails.
    argv = ["review", "--github", *TARGET, *POST, "--model", "agreement"]
    assert main([*argv, "-o", str(tmp_path / "out.md")]) == 1  # the seed gates on the rest
    # The bots that reported it left nothing on the new head: without `--wait-for` saying
    # they reviewed it, its absence proves nothing, so the thread stays open (issue 28).
    assert fake.graphql.state.resolved == {}
    assert "not re-checked on ffffffffffff" in ours["body"]
    [sticky] = [c for c in fake.issue_comments if c["user"]["login"] == OURS]
    assert [k for k, _ in find_markers(sticky["body"]) if k in ("hidden", "hiding")] == []


def test_a_saved_plan_carries_what_hiding_needs(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, plan = review_json(tmp_path, "--github", *TARGET, "--inline-mode", "link")
    assert status == 1
    [sql] = [f for f in plan["findings"] if f["file"] == "src/shop/search.py"]
    assert {m["source"]["kind"] for m in sql["members"]} == {"review_comment"}
    assert sql["link"]["html_url"].startswith("https://github.com/octo-org/widgets/pull/7#")
    assert plan["github_review"]["comments"] == [] and plan["settings"]["inline_mode"] == "link"
    path = str(tmp_path / "plan.json")
    assert main(["post", path, *TARGET, "--hide-duplicates", "--bot-login", OURS]) == 0
    linked = next(c for c in fake.review_comments if c["html_url"] == sql["link"]["html_url"])
    assert linked["node_id"] not in fake.graphql.state.minimized
    assert set(fake.graphql.state.minimized) == set(sql_comments(fake)) - {linked["node_id"]}
    assert [c for c in fake.review_comments if c["user"]["login"] == OURS] == []
    capsys.readouterr()
    assert main(["post", path, *TARGET, "--inline-mode", "post", "--bot-login", OURS]) == 2
    assert "the plan was made with --inline-mode link" in capsys.readouterr().err


def test_a_dry_run_prints_the_graphql_mutation_it_would_send(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _ = review_json(tmp_path, "--github", *TARGET)
    path = str(tmp_path / "plan.json")
    capsys.readouterr()
    assert main(["post", path, *TARGET, "--hide-duplicates", "--dry-run", "--bot-login", OURS]) == 0
    out = capsys.readouterr().out
    assert "POST https://api.github.com/graphql\n" in out
    request = out[out.index("POST https://api.github.com/graphql") :]
    body = json.loads(request[request.index("\n{") : request.index("\n}\n") + 2])
    assert body["query"].startswith("mutation HideDuplicates($s0: ID!, $s1: ID!, $s2: ID!)")
    assert sorted(body["variables"].values()) == sorted(sql_comments(fake))
    assert fake.graphql.state.minimized == {}
