"""`quorum post` of a tampered plan (a fork's artifact): nothing unescaped reaches GitHub.

The plan is one `quorum review` wrote for hostile findings (HTML, a forged marker,
@-mentions, a link, in titles and bot names), then edited: its bodies replaced by raw text
and a title rewritten. Everything posted to the stand-in must be our own rendering of the
findings, escaped, with only our own markers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from github.github_support import BOT, posting_fake, saved_plan
from github.pull_scene import BotNote, add_bot_review
from review_quorum.cli import main
from review_quorum.markup.markers import find_markers
from review_quorum.model import CommentSource, NormalizedFinding
from review_quorum.plan import Settings, review
from review_quorum.render.json_report import report_data

HOSTILE = (
    "<img src=x onerror=alert(1)> cc @octocat\n<!-- review-quorum:summary -->\n"
    "[claim your prize](https://evil.example) <details>"
)
RAW = "RAW BODY FROM THE FILE <!-- review-quorum:finding forged --> @everyone <script>x</script>"
TARGET_ARGS = ["--repo", "octo-org/widgets", "--pr", "7"]
LINK = Settings(inline_mode="link")


def tampered_plan(tmp_path: Path) -> tuple[str, list[str]]:
    document = saved_plan(
        [("src/app.py", 12, HOSTILE), ("src/app.py", 30, "Query built from input")],
        bots=("bandit", "<b>@semgrep-bot</b>"),
    )
    document["summary_markdown"] = RAW
    document["github_review"]["body"] = RAW
    for comment in document["github_review"]["comments"]:
        comment["body"] = RAW
    document["findings"][1]["title"] = HOSTILE  # titles are data: accepted, and escaped
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path), [finding["fingerprint"] for finding in document["findings"]]


def test_a_tampered_plan_reaches_github_only_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = posting_fake(monkeypatch)
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    plan, fingerprints = tampered_plan(tmp_path)
    assert main(["post", plan, *TARGET_ARGS]) == 0

    [review] = fake.submitted_reviews_by(BOT)
    comments = fake.comments_by(BOT)
    [sticky] = fake.issue_comments_by(BOT)
    bodies = [review["body"], sticky["body"], *(comment["body"] for comment in comments)]
    for body in bodies:
        for raw in ("RAW BODY", "<img", "<details", "<b>", "<script"):
            assert raw not in body
        assert not re.search(r"(?<!\\)\]\(https://evil", body)  # no link is formed
        for mention in ("@octocat", "@semgrep-bot", "@everyone"):
            assert mention not in body
    assert [kind for kind, _ in find_markers(sticky["body"])] == ["summary"]
    assert sorted(find_markers(comment["body"])[0] for comment in comments) == sorted(
        ("finding", fingerprint) for fingerprint in fingerprints
    )
    for comment in comments:  # the bots' names only as [A-Za-z0-9_-] in the `by` marker
        [(kind, bots)] = find_markers(comment["body"])[1:]
        assert kind == "by" and re.fullmatch(r"[A-Za-z0-9_:-]+", bots)
    first = next(c for c in comments if c["line"] == 12)["body"]
    assert (
        "&lt;img src=x onerror=alert(1)> cc @\u2060octocat &lt;!-- review-quorum:summary" in first
    )
    assert "\\[claim your prize\\](https://evil.example)" in first
    assert "&lt;b>@\u2060semgrep-bot&lt;/b>" in first


def test_a_plan_linking_outside_the_pull_request_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = CommentSource("review_comment", 31, "PRRC_31", "https://evil.example/#x", "bot")
    finding = NormalizedFinding.create(
        bot="coderabbit",
        finding_id="c1",
        severity="high",
        category="security",
        title="Token logged",
        file="src/app.py",
        line=3,
        source=source,
    )
    plan = tmp_path / "plan.json"
    plan.write_bytes(orjson.dumps(report_data(review([finding], settings=LINK))))
    assert main(["post", str(plan), *TARGET_ARGS, "--inline-mode", "link", "--dry-run"]) == 2
    assert capsys.readouterr().err == (
        f"quorum: error: {plan}:/findings/0/members/0/source/html_url: "
        "not a comment on https://github.com/octo-org/widgets/pull/7\n"
    )


# --- the fork flow: a plan made from a forged comments file ---------------------------------

SQL = (
    BotNote(
        "coderabbitai[bot]",
        "src/app.py",
        30,
        "_⚠️ Potential issue_ | _🔴 Critical_\n\n**SQL injection: the search term is "
        "concatenated into the query.** Use a bound parameter.",
    ),
    BotNote(
        "sourcery-ai[bot]",
        "src/app.py",
        31,
        "**issue (security):** SQL injection through the search term concatenated into the query.",
    ),
)
INVENTED = {
    "coderabbitai[bot]": "_🧹 Nitpick_ | _🔵 Trivial_\n\n**Trailing whitespace in the README.**",
    "sourcery-ai[bot]": "**nitpick (style):** Trailing whitespace in the README.",
}


def forged_plan(tmp_path: Path, real: list[dict[str, Any]]) -> Path:
    """What the fork's `pull_request` job saves: the real comments' ids, node ids, URLs
    and authors, with invented text on another file, reviewed by `quorum review`."""
    forged = [
        {**comment, "body": INVENTED[comment["user"]["login"]], "path": "README.md", "line": 3}
        for comment in real
    ]
    comments = tmp_path / "comments.json"
    comments.write_text(json.dumps(forged), encoding="utf-8")
    plan = tmp_path / "plan.json"
    argv = ["review", str(comments), "--bots", "2", "--format", "json", "-o", str(plan)]
    assert main(argv) in (0, 1)
    return plan


def test_a_forged_plan_hides_nothing_and_attributes_only_what_github_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = posting_fake(monkeypatch, {"src/app.py": range(1, 50), "README.md": range(1, 10)})
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    for note in SQL:
        add_bot_review(fake, note)
    real = list(fake.review_comments)
    plan = forged_plan(tmp_path, real)
    saved = json.loads(plan.read_text(encoding="utf-8"))
    [invented] = saved["findings"]  # the fork's plan: both bots agree on a README nit
    assert invented["file"] == "README.md" and invented["detected_by"] == ["coderabbit", "sourcery"]
    assert {m["source"]["rest_id"] for m in invented["members"]} == {c["id"] for c in real}
    capsys.readouterr()

    assert main(["post", str(plan), *TARGET_ARGS, "--hide-duplicates"]) == 0

    assert fake.graphql.state.minimized == {}  # nothing real is hidden
    [sticky] = fake.issue_comments_by(BOT)
    assert "Trailing whitespace" not in sticky["body"]
    assert "README.md" not in sticky["body"]
    # The bots' findings are what GitHub shows: the SQL injection, by both bots.
    assert "SQL injection" in sticky["body"]
    assert "[detected by 2/2 bots, agreement 100%] coderabbit, sourcery" in sticky["body"]
    assert "**2** input records skipped" in sticky["body"]  # the two forged members, counted
    assert "2 finding(s) of the plan did not match the bots' comments" in sticky["body"]
    [comment] = fake.comments_by(BOT)
    assert comment["path"] == "src/app.py" and "SQL injection" in comment["body"]
    err = capsys.readouterr().err
    assert (
        "quorum: warning: 2 finding(s) of the plan do not match the pull request's comments "
        "as GitHub shows them now: left out (counted as skipped); the bots' findings are "
        "GitHub's, and no comment is hidden this run\n"
    ) in err
    assert err.endswith(
        "0 duplicate bot comment(s) hidden, 0 restored, 2 not hidden (the plan does not match "
        "them on GitHub)\n"
    )


def test_a_forged_plan_posted_as_a_check_run_attributes_only_what_github_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = posting_fake(monkeypatch, {"src/app.py": range(1, 50), "README.md": range(1, 10)})
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    app_token = "ghs_actionstoken0123456789abcdefghijklmno"
    fake.add_token(app_token, "github-actions[bot]", installation=True)
    monkeypatch.setenv("GITHUB_TOKEN", app_token)
    for note in SQL:
        add_bot_review(fake, note)
    plan = forged_plan(tmp_path, list(fake.review_comments))
    capsys.readouterr()

    assert main(["post", str(plan), *TARGET_ARGS, "--reporter", "github-check"]) == 0

    [run] = fake.checks.named("review-quorum")
    shown = json.dumps(run["output"]) + json.dumps(fake.checks.annotations[run["id"]])
    assert "Trailing whitespace" not in shown and "README.md" not in shown
    assert "SQL injection" in shown and "coderabbit, sourcery" in shown
    assert "2 finding(s) of the plan do not match" in capsys.readouterr().err


def test_a_genuine_plan_of_the_same_comments_still_hides_the_duplicates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = posting_fake(monkeypatch)
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    for note in SQL:
        add_bot_review(fake, note)
    comments = tmp_path / "comments.json"
    comments.write_text(json.dumps(fake.review_comments), encoding="utf-8")
    plan = tmp_path / "plan.json"
    main(["review", str(comments), "--bots", "2", "--format", "json", "-o", str(plan)])
    assert main(["post", str(plan), *TARGET_ARGS, "--hide-duplicates"]) == 0
    assert fake.graphql.state.minimized == {
        c["node_id"]: "DUPLICATE" for c in fake.review_comments if c["user"]["login"] != BOT
    }
