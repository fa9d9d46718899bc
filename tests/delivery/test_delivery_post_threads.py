"""`delivery.threads.post_threads`, the run every thread platform's poster shares, over a
recording platform: the summary written first (and again when a refusal adds to its
list), a thread the platform cannot place or whose anchor it refuses listed in the
summary, a summary too long for the platform cut to the body limit, a token that cannot
write named, and every count in the result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec
import pytest

from review_quorum.delivery.draft import DraftComment, ReviewDraft
from review_quorum.delivery.fitting import MAX_BODY
from review_quorum.delivery.outcome import ThreadPostResult, Words
from review_quorum.delivery.reconcile import ThreadWork
from review_quorum.delivery.threads import Ours, post_threads
from review_quorum.errors import GitLabError, ServiceError
from review_quorum.markup.markers import marker


class Result(ThreadPostResult, frozen=True):
    words = Words("new thread(s)", "fixed", "replied", "summary", "status")


class Thread(msgspec.Struct, frozen=True):
    id: int
    body: str


def comment(fingerprint: str, line: int, title: str = "The count can go negative") -> DraftComment:
    body = f"{marker('finding', fingerprint)}\n**HIGH** {title}"
    return DraftComment("app.py", line, body, fingerprint)


class Platform:
    """A platform that records what it is asked; `unplaceable` and `refused` comments (by
    line) cannot be placed or have their anchors refused."""

    name = "Testhub"
    error: type[ServiceError] = GitLabError
    cannot_write = "this token may not write on"
    token_help = "make a new token"
    not_in_diff = "Not on the diff."
    target = "acme/shop!7"
    dry_run = False
    head = "c" * 40

    def __init__(
        self,
        work: ThreadWork[Thread],
        *,
        sticky: int | None = None,
        fit_summary: bool = True,
        unplaceable: Sequence[int] = (),
        refused: Sequence[int] = (),
        denied: int | None = None,
    ) -> None:
        self.work, self.sticky, self.fit_summary = work, sticky, fit_summary
        self.unplaceable, self.refused, self.denied = unplaceable, refused, denied
        self.calls: list[tuple[str, object]] = []

    def ours(self) -> Ours[Thread, int]:
        return Ours(self.sticky, {})

    def plan(
        self, live: Mapping[str, Sequence[Thread]], *, resolve_fixed: bool
    ) -> ThreadWork[Thread]:
        return self.work

    def body(self, thread: Thread) -> str:
        return thread.body

    def create_summary(self, text: str) -> int | None:
        if self.denied is not None:
            raise GitLabError("403 Forbidden", status=self.denied)
        self.calls.append(("create_summary", text))
        return 99

    def update_summary(self, sticky: int, text: str) -> None:
        self.calls.append(("update_summary", text))

    def create_thread(self, comment: DraftComment) -> bool:
        if comment.line in self.refused:
            raise GitLabError("400 Bad Request", status=400)
        if comment.line in self.unplaceable:
            return False
        self.calls.append(("create_thread", comment.line))
        return True

    def delete(self, thread: Thread) -> None:
        self.calls.append(("delete", thread.id))

    def edit(self, thread: Thread, body: str) -> None:
        self.calls.append(("edit", (thread.id, body)))

    def resolve(self, thread: Thread) -> None:
        self.calls.append(("resolve", thread.id))

    def set_status(self, name: str, sticky: int | None) -> str:
        self.calls.append(("set_status", (name, sticky)))
        return "failed"


def post(platform: Platform, summary: str = "## Summary") -> Result:
    draft = ReviewDraft(body="", comments=(), summary=summary)
    return post_threads(platform, draft, Result, resolve_fixed=True, status_name="quorum")


def kinds(platform: Platform) -> list[str]:
    return [kind for kind, _ in platform.calls]


def test_the_summary_comes_first_and_every_count_is_reported() -> None:
    fixed, stale, old = Thread(1, marker("finding", "fp1")), Thread(2, "old"), Thread(3, "x")
    work: ThreadWork[Thread] = ThreadWork(
        create=[comment("fp4", 10), comment("fp5", 20)],
        skipped=2,
        update=[(stale, "new text")],
        replace=[old],
        fixed=[(fixed, "fp1")],
        kept=4,
        unchecked=5,
    )
    platform = Platform(work)
    result = post(platform)
    assert kinds(platform) == [
        "create_summary", "create_thread", "create_thread", "delete", "edit", "resolve", "edit",
        "set_status",
    ]  # fmt: skip
    assert platform.calls[0] == ("create_summary", "## Summary")
    assert platform.calls[-1] == ("set_status", ("quorum", 99))
    kind, edited = platform.calls[-2]
    assert kind == "edit" and isinstance(edited, tuple) and edited[0] == 1
    assert "no longer reports this finding" in edited[1]
    assert result == Result(
        target="acme/shop!7", created=2, skipped_existing=2, moved_to_summary=0, reanchored=1,
        updated=1, resolved=1, kept_replied=4, sticky="created", status="failed",
        dry_run=False, unchecked=5,
    )  # fmt: skip


def test_an_existing_summary_is_updated_in_place() -> None:
    platform = Platform(ThreadWork(), sticky=7)
    result = post(platform)
    assert (result.sticky, kinds(platform)) == ("updated", ["update_summary", "set_status"])
    assert platform.calls[-1] == ("set_status", ("quorum", 7))


@pytest.mark.parametrize("refusal", ["unplaceable", "refused"])
def test_a_thread_that_cannot_be_placed_is_listed_in_the_summary_written_again(
    refusal: str,
) -> None:
    work: ThreadWork[Thread] = ThreadWork(create=[comment("fp4", 10), comment("fp5", 20)])
    platform = Platform(work, **{refusal: [20]})  # type: ignore[arg-type]
    result = post(platform)
    assert (result.created, result.moved_to_summary) == (1, 1)
    assert kinds(platform) == ["create_summary", "create_thread", "update_summary", "set_status"]
    rewritten = str(platform.calls[2][1])
    assert "Not on the diff." in rewritten and "line 20" in rewritten
    warned = ["Testhub refused the anchor app.py:20: 400 Bad Request"]
    assert list(result.warnings) == (warned if refusal == "refused" else [])


@pytest.mark.parametrize("fit", [True, False])
def test_a_long_summary_is_cut_only_on_a_platform_that_needs_it(fit: bool) -> None:
    moved = [comment(f"fp{n}", n, "x" * 500) for n in range(1, 200)]
    platform = Platform(ThreadWork(moved=moved), fit_summary=fit)
    post(platform)
    [(_, text)] = [call for call in platform.calls if call[0] == "create_summary"]
    assert (len(str(text)) <= MAX_BODY) is fit


@pytest.mark.parametrize("status", [401, 403])
def test_a_token_that_cannot_write_is_named_and_nothing_else_is_sent(status: int) -> None:
    platform = Platform(ThreadWork(create=[comment("fp4", 10)]), denied=status)
    with pytest.raises(GitLabError) as raised:
        post(platform)
    assert str(raised.value) == (
        "403 Forbidden: this token may not write on acme/shop!7, so nothing was posted; "
        "make a new token"
    )
    assert raised.value.status == status and platform.calls == []
