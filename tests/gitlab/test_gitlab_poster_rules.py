"""The GitLab poster's promises, one row per case: a thread someone replied to is never
edited, deleted or resolved (our own replies and the rows without a reply are the
controls), a delete answered 404 is what we wanted, and a create retried after a lost
answer is matched only to a thread on the head it was made for."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from gitlab.fake import FakeGitLab, diff_text
from gitlab.gitlab_support import CHANGED, PATH, QUORUM, TOKEN, new_fake
from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.gitlab.client import GitLabClient
from review_quorum.gitlab.poster import GitLabPostResult, post_merge_request
from review_quorum.gitlab.target import MergeRequest
from review_quorum.markup.markers import find_markers, marker

PUSHED = "d" * 40


def comment(line: int, text: str = "The count can go negative.") -> DraftComment:
    return DraftComment(PATH, line, f"{marker('finding', 'fp1')}\n{text}", "fp1")


def draft(*comments: DraftComment) -> ReviewDraft:
    return ReviewDraft(body="", comments=comments, summary=f"{marker('summary')}\nSummary")


def post(fake: FakeGitLab, to_post: ReviewDraft) -> GitLabPostResult:
    with httpx.Client(transport=httpx.MockTransport(fake.handle)) as http:
        client = GitLabClient(
            http, token=TOKEN, api_url=fake.api_url, sleep=fake.time.sleep, clock=fake.time.clock
        )
        target = MergeRequest.create("acme/stockroom", 7)
        return post_merge_request(client, target, to_post, resolve_fixed=True)


def our_thread(fake: FakeGitLab, line: int, text: str, replier: str | None) -> dict[str, Any]:
    """One of our finding threads at `line`, answered by `replier` when given."""
    thread = fake.add_note(QUORUM, comment(line, text).body, position=fake.position(PATH, line))
    if replier is not None:
        fake.add_note(replier, "I do not think so.", reply_to=thread)
    return thread


def diff_threads(fake: FakeGitLab) -> list[dict[str, Any]]:
    return [d for d in fake.threads_by(QUORUM) if not d["individual_note"]]


def first_note(thread: dict[str, Any]) -> dict[str, Any]:
    note: dict[str, Any] = thread["notes"][0]
    return note


# (case, who replied, the draft's line for fp1 (None: no longer reported), what must hold)
REPLIES = [
    ("stale text, replied", "alice", 12, "kept"),
    ("stale text, our own reply", QUORUM, 12, "edited"),
    ("stale text, no reply", None, 12, "edited"),
    ("moved line, replied", "alice", 14, "kept"),
    ("moved line, no reply", None, 14, "deleted"),
    ("fixed, replied", "alice", None, "kept"),
    ("fixed, no reply", None, None, "resolved"),
]


@pytest.mark.parametrize(
    ("case", "replier", "line", "expected"), REPLIES, ids=[r[0] for r in REPLIES]
)
def test_a_thread_someone_replied_to_is_never_edited_deleted_or_resolved(
    case: str, replier: str | None, line: int | None, expected: str
) -> None:
    fake = new_fake()
    thread = our_thread(fake, 12, "Old wording.", replier)
    before = first_note(thread)["body"]
    result = post(fake, draft(comment(line)) if line is not None else draft())
    note = next((n for n in thread["notes"] if n["author"]["username"] == QUORUM), None)
    outcome = {
        "kept": note is not None and note["body"] == before and not note["resolved"],
        "edited": note is not None and note["body"] == comment(12).body,
        "deleted": thread not in fake.discussions,
        "resolved": note is not None and note["resolved"] and "fixed" in kinds(note["body"]),
    }
    assert outcome[expected], (case, outcome)
    assert [name for name, held in outcome.items() if held] == [expected]
    if replier not in (None, QUORUM):
        assert result.updated == 0 and result.resolved == 0
        assert result.kept_replied == (1 if line is None else 0)


def kinds(body: str) -> list[str]:
    return [kind for kind, _ in find_markers(body)]


def test_a_delete_answered_404_is_already_done() -> None:
    fake = new_fake()
    our_thread(fake, 12, "The count can go negative.", None)
    # Someone deleted it between our read and our delete: GitLab answers 404.
    fake.fail("discussions/delete-note", 404, apply=True, body={"message": "404 Not found"})
    result = post(fake, draft(comment(14)))
    assert (result.created, result.reanchored) == (1, 1)
    assert [first_note(d)["position"]["new_line"] for d in diff_threads(fake)] == [14]


@pytest.mark.parametrize("status", [403, 500])
def test_a_delete_refused_otherwise_is_an_error(status: int) -> None:
    fake = new_fake()
    our_thread(fake, 12, "The count can go negative.", None)
    fake.fail("discussions/delete-note", status, times=6, body={"message": "no"})
    with pytest.raises(Exception, match=str(status)):
        post(fake, draft(comment(14)))


def test_a_retried_create_is_matched_to_a_thread_on_its_own_head_only() -> None:
    fake = new_fake()
    our_thread(fake, 12, "The count can go negative.", None)  # on the first head
    fake.push(PUSHED, {PATH: diff_text({}, CHANGED, 40)})  # not traced: still on the old head
    fake.fail("discussions/create", 502)  # lost before it was applied
    result = post(fake, draft(comment(12)))
    heads = [first_note(d)["position"]["head_sha"] for d in diff_threads(fake)]
    assert heads.count(PUSHED) == 1 and result.created == 1
    assert fake.time.slept == [1.0]


def test_a_retried_create_that_was_applied_is_not_made_twice() -> None:
    fake = new_fake()
    fake.fail("discussions/create", 502, apply=True)
    result = post(fake, draft(comment(12)))
    assert len(diff_threads(fake)) == 1 and result.created == 1


def test_a_replied_copy_elsewhere_is_kept_when_the_finding_is_already_placed() -> None:
    fake = new_fake()
    placed = our_thread(fake, 12, "The count can go negative.", None)
    copy = our_thread(fake, 20, "The count can go negative.", "alice")
    result = post(fake, draft(comment(12)))
    assert placed in fake.discussions and copy in fake.discussions
    assert (result.created, result.reanchored) == (0, 0)


def test_an_unreplied_copy_elsewhere_is_removed_when_the_finding_is_already_placed() -> None:
    fake = new_fake()
    placed = our_thread(fake, 12, "The count can go negative.", None)
    copy = our_thread(fake, 20, "The count can go negative.", None)
    result = post(fake, draft(comment(12)))
    assert placed in fake.discussions and copy not in fake.discussions
    assert (result.created, result.reanchored) == (0, 1)


def system_note(fake: FakeGitLab, thread: dict[str, Any]) -> None:
    """GitLab's own note in `thread` ("changed this line in version 2"), under the account
    that pushed: an activity log, not someone answering."""
    first = first_note(thread)
    pusher = {**first["author"], "username": "dana"}
    body = "changed this line in version 2 of the diff"
    note = {**first, "id": 9000, "body": body, "author": pusher, "system": True}
    thread["notes"].append({**note, "resolvable": False})


@pytest.mark.parametrize(("line", "expected"), [(12, "edited"), (None, "resolved")])
def test_a_system_note_in_our_thread_is_not_a_reply(line: int | None, expected: str) -> None:
    fake = new_fake()
    thread = our_thread(fake, 12, "Old wording.", None)
    system_note(fake, thread)
    result = post(fake, draft(comment(line)) if line is not None else draft())
    note = first_note(thread)
    if expected == "edited":
        assert note["body"] == comment(12).body and result.updated == 1
    else:
        assert note["resolved"] and "fixed" in kinds(note["body"])
        assert (result.resolved, result.kept_replied) == (1, 0)


@pytest.mark.parametrize("status", [500, 503])
def test_a_create_answered_500_or_above_is_checked_before_it_is_sent_again(status: int) -> None:
    fake = new_fake()
    fake.fail("discussions/create", status, apply=True)  # applied, though the answer failed
    result = post(fake, draft(comment(12)))
    assert len(diff_threads(fake)) == 1 and result.created == 1
