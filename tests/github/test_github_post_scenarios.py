"""post_review against the stateful fake: first run, re-runs, moved lines, fixes, replies."""

from __future__ import annotations

import re

import pytest

from github.fake import FakeGitHub, FakeTime
from github.github_support import BOT, TARGET, TOKEN, comment, draft, new_fake
from review_quorum.delivery.draft import DraftComment
from review_quorum.errors import GitHubError
from review_quorum.github import GitHubClient, PostResult, post_review
from review_quorum.markup.markers import find_markers, marker, opens_with_marker

DIFF = {"src/app.py": range(1, 60), "src/db.py": range(10, 40), "README.md": range(1, 5)}
FINDINGS = [
    comment("fp-a", "src/app.py", 12),
    comment("fp-b", "src/db.py", 20),
    comment("fp-c", "src/db.py", 33),
]


@pytest.fixture
def fake() -> FakeGitHub:
    fake = new_fake()
    fake.set_diff(DIFF)
    return fake


def run(fake: FakeGitHub, comments: list[DraftComment], **options: object) -> PostResult:
    client = fake.client(TOKEN, options.pop("time", None))  # type: ignore[arg-type]
    return post_review(client, TARGET, draft(comments), env={}, **options)  # type: ignore[arg-type]


def counts(result: PostResult) -> tuple[int, int, int, int, int, str]:
    return (
        result.created,
        result.skipped_existing,
        result.moved_to_body,
        result.resolved,
        result.reviews,
        result.sticky,
    )


def fingerprints(fake: FakeGitHub, login: str = BOT) -> list[str]:
    return sorted(
        payload
        for item in fake.comments_by(login)
        for kind, payload in find_markers(item["body"])
        if kind == "finding"
    )


def test_first_run_posts_one_review_and_one_sticky(fake: FakeGitHub) -> None:
    result = run(fake, FINDINGS)
    assert counts(result) == (3, 0, 0, 0, 1, "created")
    [review] = fake.submitted_reviews_by(BOT)
    assert review["state"] == "COMMENTED"
    # The hand-made body opens with no marker, so the batch marker goes first (ours to find).
    assert re.fullmatch(
        r"<!-- review-quorum:batch \w+ -->\n\n\*\*Assessment: NEEDS ATTENTION\*\*", review["body"]
    )
    assert fingerprints(fake) == ["fp-a", "fp-b", "fp-c"]
    assert {(c["path"], c["line"]) for c in fake.comments_by(BOT)} == {
        ("src/app.py", 12),
        ("src/db.py", 20),
        ("src/db.py", 33),
    }
    [sticky] = fake.issue_comments_by(BOT)
    assert sticky["body"].startswith(marker("summary"))
    assert result.sticky_url == sticky["html_url"]


def test_same_findings_again_edit_the_sticky_and_add_no_review(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    fake.log.clear()
    result = run(fake, FINDINGS)
    assert counts(result) == (0, 3, 0, 0, 0, "updated")
    sticky_id = fake.issue_comments_by(BOT)[0]["id"]
    assert fake.writes() == [("PATCH", f"/repos/octo-org/widgets/issues/comments/{sticky_id}", 200)]
    assert len(fake.submitted_reviews_by(BOT)) == 1
    assert len(fake.issue_comments_by(BOT)) == 1


def test_twice_then_a_push_that_moves_lines_leaves_one_review_and_one_sticky(
    fake: FakeGitHub,
) -> None:
    run(fake, FINDINGS)
    run(fake, FINDINGS)
    shifted = {path: range(lines.start + 5, lines.stop + 5) for path, lines in DIFF.items()}
    fake.push("c" * 40, shifted, lambda path, line: line + 5)
    moved = [
        comment("fp-a", "src/app.py", 17),
        comment("fp-b", "src/db.py", 25),
        comment("fp-c", "src/db.py", 38),
    ]
    result = run(fake, moved)
    assert counts(result) == (0, 3, 0, 0, 0, "updated")
    assert len(fake.submitted_reviews_by(BOT)) == 1
    assert len(fake.comments_by(BOT)) == 3
    assert len(fake.issue_comments_by(BOT)) == 1
    assert sorted(c["line"] for c in fake.comments_by(BOT)) == [17, 25, 38]


def test_outdated_comments_still_count_as_posted(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    fake.push("d" * 40, DIFF, lambda path, line: None)
    result = run(fake, FINDINGS)
    assert (result.created, result.skipped_existing) == (0, 3)


def test_resolve_fixed_strikes_out_the_comment_of_a_finding_that_is_gone(
    fake: FakeGitHub,
) -> None:
    run(fake, FINDINGS)
    fake.head_sha = "e" * 40
    result = run(fake, [FINDINGS[0], FINDINGS[2]], resolve_fixed=True)
    assert counts(result) == (0, 2, 0, 1, 0, "updated")
    fixed = next(c for c in fake.comments_by(BOT) if c["path"] == "src/db.py" and c["line"] == 20)
    body = fixed["body"]
    assert body.startswith(f"{marker('finding', 'fp-b')}\n{marker('fixed', 'e' * 40)}\n~~")
    assert "~~**Finding fp-b**~~" in body
    assert f"Fixed in {'e' * 12}: review-quorum no longer reports this finding." in body
    assert "<details><summary>Original comment</summary>" in body
    again = run(fake, [FINDINGS[0], FINDINGS[2]], resolve_fixed=True)
    assert (again.resolved, again.created) == (0, 0)


def test_nothing_is_marked_fixed_on_the_head_commit_it_was_reported_on(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    before = [c["body"] for c in fake.comments_by(BOT)]
    result = run(fake, FINDINGS[:1], resolve_fixed=True)
    assert (result.resolved, result.threads_resolved) == (0, 0)
    assert [c["body"] for c in fake.comments_by(BOT)] == before
    assert fake.graphql.state.resolved == {}
    assert result.warnings == (
        f"2 of our comment(s) on findings this run does not report were left open: they "
        f"were posted on the head commit {'a' * 40}, and only a later commit can fix a finding",
    )
    fake.head_sha = "e" * 40  # a push: now they are fixed
    assert run(fake, FINDINGS[:1], resolve_fixed=True).resolved == 2


def test_a_comment_that_followed_its_code_to_the_head_was_still_reported_before_it(
    fake: FakeGitHub,
) -> None:
    run(fake, FINDINGS)
    fake.push("e" * 40, DIFF, lambda path, line: line)
    assert {c["commit_id"] for c in fake.comments_by(BOT)} == {"e" * 40}  # they followed
    assert run(fake, FINDINGS[:1], resolve_fixed=True).resolved == 2


def test_a_finding_moved_to_the_summary_is_not_marked_fixed(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    fake.head_sha = "e" * 40  # a push: only a later commit can fix a finding
    moved = draft([FINDINGS[0]], reported=["fp-a", "fp-b"])  # fp-b in the summary, fp-c dropped
    result = post_review(fake.client(TOKEN), TARGET, moved, env={}, resolve_fixed=True)
    assert result.resolved == 1
    fixed = [c["line"] for c in fake.comments_by(BOT) if "review-quorum:fixed" in c["body"]]
    assert fixed == [33]


def test_without_resolve_fixed_a_gone_finding_is_left_alone(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    before = [c["body"] for c in fake.comments_by(BOT)]
    result = run(fake, FINDINGS[:1])
    assert result.resolved == 0
    assert [c["body"] for c in fake.comments_by(BOT)] == before


def test_a_finding_that_comes_back_after_being_fixed_is_posted_again(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    fake.head_sha = "e" * 40
    run(fake, FINDINGS[:1], resolve_fixed=True)
    result = run(fake, FINDINGS[:2])
    assert (result.created, result.skipped_existing) == (1, 1)
    assert fingerprints(fake).count("fp-b") == 2


def test_a_thread_a_human_replied_to_is_never_touched(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    ours = next(c for c in fake.comments_by(BOT) if c["line"] == 20)
    fake.add_reply("alice", ours, "This is intentional, see the ticket.")
    before = ours["body"]
    fake.head_sha = "e" * 40
    reworded = [FINDINGS[0], comment("fp-b", "src/db.py", 20, title="Reworded title")]
    result = run(fake, reworded, resolve_fixed=True)
    assert (result.resolved, result.kept_replied, result.updated) == (1, 0, 0)
    assert ours["body"] == before
    result = run(fake, [FINDINGS[0]], resolve_fixed=True)
    assert (result.resolved, result.kept_replied) == (0, 1)
    assert ours["body"] == before


def test_a_reworded_finding_refreshes_its_comment_in_place(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    reworded = [comment("fp-a", "src/app.py", 12, title="Now 3/4 bots agree"), *FINDINGS[1:]]
    result = run(fake, reworded)
    assert (result.created, result.updated) == (0, 1)
    assert "Now 3/4 bots agree" in fake.comments_by(BOT)[0]["body"]


def test_a_sticky_saved_with_crlf_line_ends_is_still_ours(fake: FakeGitHub) -> None:
    edited = fake.add_issue_comment(BOT, f"{marker('summary')}\r\n## edited in the web UI")
    result = run(fake, FINDINGS)
    assert result.sticky == "updated"
    assert edited["body"].startswith(f"{marker('summary')}\n## review-quorum")


def test_a_planted_marker_by_someone_else_is_ignored(fake: FakeGitHub) -> None:
    planted = fake.add_issue_comment("mallory", f"{marker('summary')}\nEverything is fine!")
    result = run(fake, FINDINGS)
    assert result.sticky == "created"
    assert planted["body"] == f"{marker('summary')}\nEverything is fine!"
    assert len(fake.issue_comments_by(BOT)) == 1


def test_a_planted_finding_marker_by_someone_else_does_not_suppress_ours(
    fake: FakeGitHub,
) -> None:
    fake.add_review("mallory", "", [FINDINGS[0].payload()])
    result = run(fake, FINDINGS)
    assert result.created == 3


def test_a_planted_moved_marker_in_someone_elses_review_does_not_suppress_ours(
    fake: FakeGitHub,
) -> None:
    body = f"{marker('moved', 'fp-a')}\n**`src/app.py` line 12**\n\nAlready listed, honest."
    fake.add_review("mallory", body, [])
    result = run(fake, FINDINGS)
    assert (result.created, result.skipped_existing) == (3, 0)
    assert fingerprints(fake) == ["fp-a", "fp-b", "fp-c"]


def test_someone_elses_changes_requested_review_with_our_marker_is_never_dismissed(
    fake: FakeGitHub,
) -> None:
    planted = fake.add_review("mallory", f"Blocked.\n\n{marker('batch', 'feedc0de')}", [])
    planted["state"] = "CHANGES_REQUESTED"
    result = run(fake, FINDINGS)
    assert (result.event, result.dismissed) == ("COMMENT", 0)
    assert planted["state"] == "CHANGES_REQUESTED"
    assert planted["body"] == f"Blocked.\n\n{marker('batch', 'feedc0de')}"


def test_a_refused_anchor_moves_that_finding_to_the_review_body(fake: FakeGitHub) -> None:
    findings = [*FINDINGS, comment("fp-x", "src/db.py", 90), comment("fp-y", "gone.py", 1)]
    result = run(fake, findings)
    assert counts(result) == (3, 0, 2, 0, 1, "created")
    [review] = fake.submitted_reviews_by(BOT)
    assert f"{marker('moved', 'fp-x')}\n**`src/db.py` line 90**" in review["body"]
    assert f"{marker('moved', 'fp-y')}\n**`gone.py` line 1**" in review["body"]
    assert marker("finding", "fp-x") not in review["body"]
    assert [r for r in fake.reviews if r["state"] == "PENDING"] == []
    again = run(fake, findings)
    assert counts(again) == (0, 5, 0, 0, 0, "updated")


def test_five_hundred_findings_on_a_three_thousand_file_pull_request() -> None:
    fake = new_fake()
    fake.set_diff({f"pkg/module_{index:04d}.py": range(1, 21) for index in range(3000)})
    findings = [
        comment(f"fp{index:03d}", f"pkg/module_{index * 6:04d}.py", 1 + index % 20)
        for index in range(500)
    ]
    time = FakeTime()
    result = run(fake, findings, time=time)
    assert counts(result) == (500, 0, 0, 0, 17, "created")
    reviews = fake.submitted_reviews_by(BOT)
    sizes = [
        sum(c["pull_request_review_id"] == r["id"] for c in fake.review_comments) for r in reviews
    ]
    assert sizes == [30] * 16 + [20]
    assert reviews[1]["body"].endswith(
        "\n\nreview-quorum: inline comments 31–60 of 500, continued."
    )
    assert all(opens_with_marker(review["body"]) for review in reviews)
    assert fingerprints(fake) == [f"fp{index:03d}" for index in range(500)]
    assert sum(time.slept) == pytest.approx(17.0)  # one second between writes
    fake.log.clear()
    again = run(fake, findings)
    assert counts(again) == (0, 500, 0, 0, 0, "updated")
    pages = [path for method, path, _ in fake.log if path.endswith("/pulls/7/comments")]
    assert len(pages) == 5


def test_request_changes_then_dismissed_once_the_gate_passes(fake: FakeGitHub) -> None:
    run_draft = draft(FINDINGS, event="REQUEST_CHANGES")
    client = fake.client(TOKEN)
    first = post_review(client, TARGET, run_draft, env={})
    assert first.event == "REQUEST_CHANGES"
    assert [r["state"] for r in fake.submitted_reviews_by(BOT)] == ["CHANGES_REQUESTED"]
    again = post_review(client, TARGET, run_draft, env={})
    assert (again.reviews, again.dismissed) == (0, 0)
    passed = post_review(client, TARGET, draft(FINDINGS), env={})
    assert passed.dismissed == 1
    assert [r["state"] for r in fake.submitted_reviews_by(BOT)] == ["DISMISSED"]


def test_request_changes_without_new_comments_still_creates_a_review(fake: FakeGitHub) -> None:
    run(fake, FINDINGS)
    client = fake.client(TOKEN)
    result = post_review(client, TARGET, draft(FINDINGS, event="REQUEST_CHANGES"), env={})
    assert (result.created, result.reviews) == (0, 1)
    assert [r["state"] for r in fake.submitted_reviews_by(BOT)] == [
        "COMMENTED",
        "CHANGES_REQUESTED",
    ]


@pytest.mark.parametrize(
    ("env", "bot_login", "expected"),
    [
        ({"GITHUB_ACTIONS": "true"}, None, "github-actions[bot]"),
        ({}, "github-actions[bot]", "github-actions[bot]"),
    ],
)
def test_an_installation_token_posts_as_the_actions_bot(
    env: dict[str, str], bot_login: str | None, expected: str
) -> None:
    fake = new_fake()
    fake.set_diff(DIFF)
    fake.add_token("ghs_installation", "github-actions[bot]", installation=True)
    client = fake.client("ghs_installation")
    post_review(client, TARGET, draft(FINDINGS), env=env, bot_login=bot_login)
    result = post_review(client, TARGET, draft(FINDINGS), env=env, bot_login=bot_login)
    assert (result.created, result.skipped_existing, result.sticky) == (0, 3, "updated")
    assert len(fake.issue_comments_by(expected)) == 1
    assert (
        ("GET", "/user", 403) in fake.log
        if bot_login is None
        else ("GET", "/user", 403) not in fake.log
    )


def test_an_installation_token_outside_actions_needs_bot_login(fake: FakeGitHub) -> None:
    fake.add_token("ghs_installation", "my-app[bot]", installation=True)
    with pytest.raises(GitHubError, match=r"answered 403.*pass --bot-login"):
        post_review(fake.client("ghs_installation"), TARGET, draft(FINDINGS), env={})


def test_a_dry_run_reads_but_writes_nothing(fake: FakeGitHub) -> None:
    client = fake.client(TOKEN)
    result = post_review(client, TARGET, draft(FINDINGS), env={}, dry_run=True)
    assert fake.writes() == []
    assert counts(result) == (3, 0, 0, 0, 1, "created")
    assert [(r.method, r.url.path) for r in client.unsent] == [
        ("POST", "/repos/octo-org/widgets/issues/7/comments"),
        ("POST", "/repos/octo-org/widgets/pulls/7/reviews"),
    ]


def test_github_enterprise_base_url_with_pagination() -> None:
    fake = new_fake(api_url="https://ghe.example.com/api/v3")
    fake.set_diff(DIFF)
    for index in range(150):
        fake.add_issue_comment("alice", f"comment {index}")
    result = post_review(fake.client(TOKEN), TARGET, draft(FINDINGS), env={})
    assert (result.created, result.sticky) == (3, "created")
    assert result.sticky_url is not None
    assert ("GET", "/repos/octo-org/widgets/issues/7/comments", 200) in fake.log
    assert isinstance(fake.client(TOKEN), GitHubClient)
