"""`delivery.reconcile.reconcile_threads`, the run the Azure DevOps and Bitbucket posters
share, one row per rule: a thread where its finding stands is kept (edited only when its
text changed and nobody replied), one elsewhere is re-anchored unless someone replied, a
comment that cannot be placed goes to the summary, a thread under an identity this run does
not report is taken over where it stands or by its one headline twin, never marked fixed."""

from __future__ import annotations

import msgspec

from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.reconcile import ThreadWork, reconcile_threads
from review_quorum.markup.markers import marker


class Thread(msgspec.Struct, frozen=True):
    id: int
    path: str
    line: int
    body: str
    replied: bool = False


def comment(fingerprint: str, line: int, title: str = "The count can go negative") -> DraftComment:
    body = f"{marker('finding', fingerprint)}\n**HIGH** {title}\n\nDetails at line {line}."
    return DraftComment("app.py", line, body, fingerprint)


def thread(id: int, fingerprint: str, line: int, title: str = "The count can go negative",
           replied: bool = False) -> Thread:  # fmt: skip
    body = f"{marker('finding', fingerprint)}\n**HIGH** {title}\n\nDetails at line {line}."
    return Thread(id, "app.py", line, body, replied)


def run(
    comments: list[DraftComment], threads: list[Thread], postable: bool = True
) -> ThreadWork[Thread]:
    live: dict[str, list[Thread]] = {}
    for t in threads:
        fingerprint = t.body.split("finding ", 1)[1].split(" ", 1)[0]
        live.setdefault(fingerprint, []).append(t)
    draft = ReviewDraft(body="", comments=tuple(comments), summary=marker("summary"))
    return reconcile_threads(
        draft,
        live,
        stands_at=lambda t, c: (t.path, t.line) == (c.path, c.line),
        said=lambda t: (t.path, t.body),
        postable=lambda c: postable,
        left_alone=lambda t: t.replied,
        resolve_fixed=True,
    )


def test_a_thread_where_its_finding_stands_is_kept_and_edited_only_when_unreplied() -> None:
    new_text = comment("fp1", 10, "The count can go below zero")
    assert run([new_text], [thread(1, "fp1", 10)]).update == [(thread(1, "fp1", 10), new_text.body)]
    replied = run([new_text], [thread(1, "fp1", 10, replied=True)])
    assert (replied.update, replied.skipped, replied.create) == ([], 1, [])


def test_a_thread_elsewhere_is_re_anchored_unless_someone_replied() -> None:
    here, there = thread(1, "fp1", 10), thread(2, "fp1", 30)
    assert run([comment("fp1", 10)], [here, there]).replace == [there]
    answered = thread(2, "fp1", 30, replied=True)
    assert run([comment("fp1", 10)], [here, answered]).replace == []
    moved = run([comment("fp1", 13)], [there])
    assert (moved.create, moved.replace) == ([comment("fp1", 13)], [there])


def test_a_comment_that_cannot_be_placed_goes_to_the_summary() -> None:
    work = run([comment("fp1", 10)], [], postable=False)
    assert (work.moved, work.create) == ([comment("fp1", 10)], [])


def test_a_thread_under_an_old_identity_where_the_finding_stands_is_taken_over() -> None:
    worded = thread(1, "old", 10, "Count may underflow")  # an earlier version's wording
    work = run([comment("new", 10)], [worded])
    assert (work.fixed, work.create, work.skipped) == ([], [], 1)
    assert work.update == [(worded, comment("new", 10).body)]


def test_a_moved_thread_is_taken_over_by_its_one_headline_twin_only() -> None:
    moved = run([comment("new", 13)], [thread(1, "old", 10)])
    assert (moved.fixed, moved.replace, moved.create) == (
        [],
        [thread(1, "old", 10)],
        [comment("new", 13)],
    )
    twins = [thread(1, "old", 10), thread(2, "older", 20)]
    ambiguous = run([comment("new", 13)], twins)
    assert sorted(fp for _, fp in ambiguous.fixed) == ["old", "older"]
    other = run([comment("new", 13, "Another finding")], [thread(1, "old", 10)])
    assert [fp for _, fp in other.fixed] == ["old"]


def test_a_gone_finding_is_fixed_unless_someone_replied() -> None:
    work = run([], [thread(1, "fp1", 10), thread(2, "fp2", 20, replied=True)])
    assert ([fp for _, fp in work.fixed], work.kept) == (["fp1"], 1)
