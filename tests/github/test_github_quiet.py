"""Hiding duplicate bot comments and resolving fixed threads, end to end against the fake.

Findings are built as the bot-comment readers build them (each with the `CommentSource` of
the comment it was read from), planned by `review`, written to a plan document and posted
with `post_review`, exactly as `quorum review` then `quorum post` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from github.fake import FakeGitHub, Interrupted
from github.github_support import BOT, TARGET, TOKEN, new_fake
from review_quorum.delivery.draft import ReviewDraft
from review_quorum.errors import GitHubError
from review_quorum.github import PostResult, post_review
from review_quorum.ingest.base import ReadOptions
from review_quorum.ingest.bots import CommentKind
from review_quorum.ingest.comments import PullComment, read_comments
from review_quorum.markup.markers import find_markers
from review_quorum.model import NormalizedFinding
from review_quorum.plan import Settings, review

RABBIT, PILOT, GEMINI = "coderabbitai[bot]", "copilot-reviewer[bot]", "gemini-code-assist[bot]"
BOTS = {RABBIT: "coderabbit", PILOT: "copilot", GEMINI: "gemini"}
DIFF = {"src/db.py": range(1, 80), "src/app.py": range(1, 80)}


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff(DIFF)
    return fake


def said(fake: FakeGitHub, login: str, path: str, line: int, text: str) -> dict[str, Any]:
    """A bot's (or person's) inline review comment, as GitHub stores it, in the markup its
    reader looks for."""
    body = {
        RABBIT: f"_⚠️ Potential issue_ | _🟠 Major_\n\n**{text}.**",
        GEMINI: f"![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n{text}",
    }.get(login, text)
    fake.add_review(login, "", [{"path": path, "line": line, "body": body}])
    return fake.review_comments[-1]


def finding(comment: dict[str, Any], *_: str) -> NormalizedFinding:
    """What the bot-comment readers make of `comment`, as GitHub serves it: the finding
    the poster checks a plan's claims against (people's comments read as well)."""
    kind = CommentKind.ISSUE if "issue_url" in comment else CommentKind.INLINE
    options = ReadOptions(include_humans=True)
    [read] = read_comments([PullComment(comment, kind)], options=options).findings
    return read


def post(fake: FakeGitHub, findings: Sequence[NormalizedFinding], **options: Any) -> PostResult:
    mode = options.pop("inline_mode", "post")
    plan = review(findings, settings=Settings(inline_mode=mode))
    draft = ReviewDraft.from_plan(plan)
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
    assert (first.hiding.hidden, first.hiding.restored, first.hiding.total) == (5, 0, 5)
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
    assert (second.hiding.hidden, second.hiding.restored, second.hiding.total) == (0, 0, 5)
    assert len(hidden(fake)) == 5


def test_a_fix_restores_the_hidden_comments_and_resolves_our_thread(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    post(fake, findings_of(scene), hide_duplicates=True, resolve_fixed=True)
    [leak] = [c for c in fake.comments_by(BOT) if c["path"] == "src/app.py"]
    # A push that fixes the leak: it rewrites the leak's line (GitHub shows our comment as
    # outdated) and no bot reports it any more.
    fake.push("f" * 40, DIFF, lambda path, line: None if path == "src/app.py" else line)
    remaining = findings_of(scene, "sql_rabbit", "sql_pilot", "sql_gemini", "nit_gemini")
    result = post(fake, remaining, hide_duplicates=True, resolve_fixed=True)
    assert (result.hiding.hidden, result.hiding.restored, result.hiding.total) == (0, 2, 3)
    assert scene["leak_rabbit"]["node_id"] not in hidden(fake)
    assert scene["leak_pilot"]["node_id"] not in hidden(fake)
    assert fake.graphql.state.resolved == {leak["id"]: BOT}
    assert result.threads_resolved == 1 and result.resolved == 1
    assert "Fixed in ffffffffffff" in leak["body"]
    assert [p for _, p in record(fake)] == sorted(
        f"review_comment:{scene[name]['id']}" for name in ("sql_rabbit", "sql_pilot", "sql_gemini")
    )
    fake.log.clear()
    post(fake, remaining, hide_duplicates=True, resolve_fixed=True)
    assert [entry for entry in fake.writes() if entry[0] != "PATCH"] == []


def test_a_finding_that_splits_brings_its_comments_back(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    post(fake, findings_of(scene), hide_duplicates=True)
    # Copilot now reports its leak far from CodeRabbit's: two findings of one bot each.
    moved = finding(scene["leak_pilot"], "Secret leaks into logs")
    moved = msgspec.structs.replace(
        moved, evidence=msgspec.structs.replace(moved.evidence, line=75)
    )
    others = findings_of(scene, "sql_rabbit", "sql_pilot", "sql_gemini", "leak_rabbit")
    result = post(fake, [*others, moved], hide_duplicates=True)
    assert result.hiding.restored == 2
    assert {scene["leak_rabbit"]["node_id"], scene["leak_pilot"]["node_id"]}.isdisjoint(
        hidden(fake)
    )


def test_humans_are_never_hidden_and_a_replied_bot_comment_stays(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    person = said(fake, "alice", "src/db.py", 22, "This concatenates user input into SQL")
    fake.add_reply("bob", scene["sql_pilot"], "Is this really reachable?")
    findings = [*findings_of(scene), finding(person, "SQL built from user input")]
    reading = ReadOptions(include_humans=True)  # as `quorum review --include-humans --post`
    result = post(fake, findings, hide_duplicates=True, reading=reading)
    assert person["node_id"] not in hidden(fake)
    assert scene["sql_pilot"]["node_id"] not in hidden(fake)
    assert scene["sql_rabbit"]["node_id"] in hidden(fake)
    assert (result.hiding.hidden, result.hiding.spared) == (4, 1)
    assert result.describe().endswith(
        "4 duplicate bot comment(s) hidden, 0 restored, 1 left visible (a human replied)"
    )


def test_a_comment_a_person_showed_again_is_left_visible(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    post(fake, findings_of(scene), hide_duplicates=True)
    del fake.graphql.state.minimized[scene["sql_gemini"]["node_id"]]  # someone clicked "Show"
    result = post(fake, findings_of(scene), hide_duplicates=True)
    assert result.hiding.hidden == 0
    assert scene["sql_gemini"]["node_id"] not in hidden(fake)
    assert ("unhidden", f"review_comment:{scene['sql_gemini']['id']}") in record(fake)
    assert post(fake, findings_of(scene), hide_duplicates=True).hiding.hidden == 0


def test_what_someone_else_hid_is_never_restored(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    fake.graphql.state.minimized[scene["leak_pilot"]["node_id"]] = "OFF_TOPIC"
    post(fake, findings_of(scene), hide_duplicates=True)
    assert ("hidden", f"review_comment:{scene['leak_pilot']['id']}") not in record(fake)
    post(fake, findings_of(scene, "sql_rabbit", "sql_pilot", "sql_gemini"), hide_duplicates=True)
    assert hidden(fake)[scene["leak_pilot"]["node_id"]] == "OFF_TOPIC"
    assert scene["leak_rabbit"]["node_id"] not in hidden(fake)


def test_a_token_that_may_not_hide_hides_nothing_and_the_summary_says_so(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    fake.add_token("ghs_fork", BOT, access="comment")
    result = post(fake, findings_of(scene), hide_duplicates=True, token="ghs_fork")
    assert hidden(fake) == {}
    assert result.hiding.refused
    [sticky] = fake.issue_comments_by(BOT)
    assert (
        "Duplicate bot comments were not hidden: this token may not hide comments" in sticky["body"]
    )
    assert record(fake) == []
    assert result.describe().endswith("; duplicates not hidden: the token may not hide comments")
    assert not [entry for entry in fake.log if entry[0] == "MUTATION"]


def test_a_read_only_token_posts_and_hides_nothing(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    fake.add_token("ghs_read", BOT, access="read")
    with pytest.raises(GitHubError, match="read-only") as caught:
        post(fake, findings_of(scene), hide_duplicates=True, token="ghs_read")
    assert caught.value.status == 403
    assert hidden(fake) == {} and fake.issue_comments_by(BOT) == []


def test_a_run_interrupted_after_its_claims_finishes_on_the_next(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    fake.interrupt("graphql", skip=1)  # the state query passes, the first mutation dies
    with pytest.raises(Interrupted):
        post(fake, findings_of(scene), hide_duplicates=True)
    assert {kind for kind, _ in record(fake)} == {"hiding"} and hidden(fake) == {}
    result = post(fake, findings_of(scene), hide_duplicates=True)
    assert (result.hiding.hidden, result.hiding.total) == (5, 5)
    assert {kind for kind, _ in record(fake)} == {"hidden"}


def test_a_plan_naming_a_comment_by_someone_else_hides_nothing_of_theirs(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    person = said(fake, "alice", "src/db.py", 22, "A maintainer's remark")
    forged = finding(scene["sql_gemini"], "Unsanitised SQL query")
    assert forged.source is not None
    forged = msgspec.structs.replace(
        forged, source=msgspec.structs.replace(forged.source, rest_id=person["id"])
    )
    findings = [*findings_of(scene, "sql_rabbit", "sql_pilot"), forged]
    post(fake, findings, hide_duplicates=True)
    assert person["node_id"] not in hidden(fake)
    assert scene["sql_rabbit"]["node_id"] in hidden(fake)


def test_a_comment_that_no_longer_says_what_the_plan_claims_is_not_hidden(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    findings = findings_of(scene)  # read before the bot rewrote one of its comments
    scene["sql_pilot"]["body"] = "On second thought, the query is fine."
    result = post(fake, findings, hide_duplicates=True)
    assert scene["sql_pilot"]["node_id"] not in hidden(fake)
    assert scene["sql_rabbit"]["node_id"] in hidden(fake)  # two other bots still agree
    key = f"review_comment:{scene['sql_pilot']['id']}"
    assert result.warnings == (
        "1 bot comment(s) the plan names do not match them as GitHub shows them now, so "
        f"they were not hidden: {key}",
    )
    assert result.hiding.mismatched == 1
    assert result.describe().endswith(", 1 not hidden (the plan does not match them on GitHub)")
    [sticky] = fake.issue_comments_by(BOT)
    assert "_1 bot comment(s) named by the plan do not match them as GitHub shows" in sticky["body"]


def test_every_graphql_document_sent_was_checked_against_the_schema(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    post(fake, findings_of(scene), hide_duplicates=True, resolve_fixed=True)
    fake.head_sha = "f" * 40
    post(fake, findings_of(scene, "nit_gemini"), hide_duplicates=True, resolve_fixed=True)
    graphql = [entry for entry in fake.log if entry[0] in ("QUERY", "MUTATION")]
    # The second run's only bot is Gemini: the findings the others reported are not
    # re-checked, so nothing is resolved (issue 28) and no thread is looked up for it.
    assert {name for _, name, _ in graphql} == {
        "CommentStates",
        "HideDuplicates",
        "RestoreComments",
    }
    assert len(fake.graphql.state.documents) == len(graphql)  # each one parsed and validated


def test_link_mode_posts_nothing_inline_and_keeps_the_linked_comment_visible(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    result = post(fake, findings_of(scene), hide_duplicates=True, inline_mode="link")
    assert fake.comments_by(BOT) == [] and fake.submitted_reviews_by(BOT) == []
    assert result.created == 0
    linked = [scene["sql_rabbit"], scene["leak_rabbit"]]
    assert set(hidden(fake)) == {
        scene[name]["node_id"] for name in ("sql_pilot", "sql_gemini", "leak_pilot")
    }
    [sticky] = fake.issue_comments_by(BOT)
    for comment in linked:
        assert f"[comment by coderabbit]({comment['html_url']})" in sticky["body"]
    assert "### 2 findings linked, not posted inline" in sticky["body"]
    fake.log.clear()
    again = post(fake, findings_of(scene), hide_duplicates=True, inline_mode="link")
    assert (again.hiding.hidden, again.hiding.restored) == (0, 0)
    assert len(fake.writes()) == 1  # the sticky, unchanged


def test_a_dry_run_reads_states_and_lists_the_mutations_it_would_send(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    result = post(fake, findings_of(scene), hide_duplicates=True, dry_run=True)
    assert hidden(fake) == {} and fake.issue_comments_by(BOT) == []
    assert result.hiding.hidden == 5
    assert [entry[:2] for entry in fake.log if entry[0] in ("QUERY", "MUTATION")] == [
        ("QUERY", "CommentStates")
    ]


def test_a_fixed_finding_whose_thread_someone_answered_is_left_open(
    fake: FakeGitHub, scene: dict[str, dict[str, Any]]
) -> None:
    post(fake, findings_of(scene), resolve_fixed=True)
    [leak] = [c for c in fake.comments_by(BOT) if c["path"] == "src/app.py"]
    fake.add_reply("alice", leak, "Fixed by moving the token out of the log line.")
    before = leak["body"]
    remaining = findings_of(scene, "sql_rabbit", "sql_pilot", "sql_gemini", "nit_gemini")
    result = post(fake, remaining, resolve_fixed=True)
    assert (result.threads_resolved, result.resolved, result.kept_replied) == (0, 0, 1)
    assert fake.graphql.state.resolved == {} and leak["body"] == before
