"""Hiding duplicate bot comments and resolving fixed threads, end to end against the fake.

Findings are built as the bot-comment readers build them (each with the `CommentSource` of
the comment it was read from), planned by `review`, written to a plan document and posted
with `post_review`, exactly as `quorum review` then `quorum post` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from github.fake import FakeGitHub
from github.github_support import BOT, TARGET, TOKEN, new_fake
from review_quorum.github import PostResult, ReviewDraft, post_review
from review_quorum.model import CommentSource, NormalizedFinding
from review_quorum.plan import Settings, review
from review_quorum.render.json_report import report_data
from review_quorum.render.markers import find_markers

RABBIT, PILOT, GEMINI = "coderabbitai[bot]", "copilot-reviewer[bot]", "gemini-code-assist[bot]"
BOTS = {RABBIT: "coderabbit", PILOT: "copilot", GEMINI: "gemini"}
DIFF = {"src/db.py": range(1, 80), "src/app.py": range(1, 80)}


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff(DIFF)
    return fake


def said(fake: FakeGitHub, login: str, path: str, line: int, text: str) -> dict[str, Any]:
    """A bot's (or person's) inline review comment, as GitHub stores it."""
    fake.add_review(login, "", [{"path": path, "line": line, "body": text}])
    return fake.review_comments[-1]


def finding(
    comment: dict[str, Any], title: str, severity: str = "high", category: str = "security"
) -> NormalizedFinding:
    """What a reader makes of `comment`: one finding with the comment as its source."""
    login = comment["user"]["login"]
    kind = "issue_comment" if "issue_url" in comment else "review_comment"
    return NormalizedFinding.create(
        bot=BOTS.get(login, login),
        finding_id=str(comment["id"]),
        severity=severity,
        category=category,
        title=title,
        file=comment.get("path", ""),
        line=comment.get("line"),
        source=CommentSource(kind, comment["id"], comment["node_id"], comment["html_url"], login),
    )


def post(fake: FakeGitHub, findings: Sequence[NormalizedFinding], **options: Any) -> PostResult:
    mode = options.pop("inline_mode", "post")
    plan = review(findings, settings=Settings(bots_ran=3, inline_mode=mode))
    draft = ReviewDraft.from_plan_json(report_data(plan))
    client = fake.client(options.pop("token", TOKEN))
    return post_review(client, TARGET, draft, env={}, **options)


def hidden(fake: FakeGitHub) -> dict[str, str]:
    return dict(fake.graphql.state.minimized)


def record(fake: FakeGitHub) -> list[tuple[str, str]]:
    [sticky] = fake.issue_comments_by(BOT)
    return [
        (k, p) for k, p in find_markers(sticky["body"]) if k in ("hidden", "hiding", "unhidden")
    ]


@pytest.fixture
def scene(fake: FakeGitHub) -> dict[str, dict[str, Any]]:
    """Three bots agree on an SQL injection, two on a leak; one bot alone on a nit."""
    return {
        "sql_rabbit": said(fake, RABBIT, "src/db.py", 20, "SQL injection in the query builder"),
        "sql_pilot": said(fake, PILOT, "src/db.py", 21, "Possible SQL injection here"),
        "sql_gemini": said(fake, GEMINI, "src/db.py", 19, "Unsanitised SQL query"),
        "leak_rabbit": said(fake, RABBIT, "src/app.py", 40, "Token written to the log"),
        "leak_pilot": said(fake, PILOT, "src/app.py", 41, "Secret leaks into logs"),
        "nit_gemini": said(fake, GEMINI, "src/app.py", 70, "Hard-coded timeout"),
    }


def findings_of(scene: dict[str, dict[str, Any]], *names: str) -> list[NormalizedFinding]:
    titles = {
        "sql_rabbit": "SQL injection in the query builder",
        "sql_pilot": "Possible SQL injection here",
        "sql_gemini": "Unsanitised SQL query",
        "leak_rabbit": "Token written to the log",
        "leak_pilot": "Secret leaks into logs",
        "nit_gemini": "Hard-coded timeout",
    }
    return [
        finding(scene[name], titles[name], *(("low", "maintainability") if "nit" in name else ()))
        for name in names or list(titles)
    ]


def test_one_run_hides_every_duplicate_and_a_second_changes_nothing(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    first = post(fake, findings_of(scene), hide_duplicates=True)
    duplicated = [scene[name] for name in scene if name != "nit_gemini"]
    assert hidden(fake) == {c["node_id"]: "DUPLICATE" for c in duplicated}
    assert (first.quiet.hidden, first.quiet.restored, first.quiet.total) == (5, 0, 5)
    # One visible comment per finding: ours for the two agreed ones, the bot's own nit.
    ours = fake.comments_by(BOT)
    assert sorted((c["path"], c["line"]) for c in ours) == [("src/app.py", 40), ("src/db.py", 19)]
    assert scene["nit_gemini"]["node_id"] not in hidden(fake)
    assert record(fake) == sorted(("hidden", f"review_comment:{c['id']}") for c in duplicated)
    assert first.describe().endswith("; 5 duplicate bot comment(s) hidden, 0 restored")
    fake.log.clear()
    second = post(fake, findings_of(scene), hide_duplicates=True)
    [sticky] = fake.issue_comments_by(BOT)
    assert fake.writes() == [
        ("PATCH", f"/repos/octo-org/widgets/issues/comments/{sticky['id']}", 200)
    ]
    assert (second.quiet.hidden, second.quiet.restored, second.quiet.total) == (0, 0, 5)
    assert len(hidden(fake)) == 5
