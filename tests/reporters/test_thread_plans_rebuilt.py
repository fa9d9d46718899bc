"""`quorum post PLAN --reporter` a thread platform rebuilds the saved plan's bot findings
from the platform's own read at posting time (SPEC section 8), as GitHub's reporters do:
a finding the plan credits to a bot whose comment is not there is left out and counted,
with a warning naming the platform; a bot's comment the plan leaves out is posted; an
honest plan (saved by `quorum review` from the same comments) posts what it did before.

Each case saves the plan from the bots' comments on the stand-in, then adds or takes away
cubic's comment and posts the plan: what a fork's plan that invents or leaves out a bot's
finding meets at posting time."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

from azure_devops import ado_support
from bitbucket import bitbucket_support
from gitlab import fake as gitlab_fake
from gitlab import gitlab_support
from gitlab.gitlab_support import BOT_NOTES, BotNote
from review_quorum.cli import main

# Every finding inline, none sharing a cluster: each bot's finding is one thread.
SETTINGS = [
    "--inline-level", "unverified", "--threshold", "30", "--cap", "50", "--line-window", "0",
    "--gate-level", "unverified",
]  # fmt: skip
NINE = BOT_NOTES[:-1]  # all but cubic's comment, on line 30


class Platform(msgspec.Struct, frozen=True):
    """One reporter against its platform's stand-in."""

    reporter: str
    name: str  # as the run's messages name the platform
    serve: Callable[[pytest.MonkeyPatch], AbstractContextManager[tuple[Any, list[str]]]]
    seed: Callable[[Any, Sequence[BotNote]], None]
    read: list[str]  # `quorum review`'s flags that read the pull request
    env: dict[str, str]  # what `quorum post` needs besides the token
    posted: Callable[[Any], list[int]]  # the lines our findings went on
    summary: Callable[[Any], str] | None  # our summary's text (None: the platform has none)
    comments: str  # the end of the path the comments are listed at
    add: Callable[[Any, BotNote], None]  # a bot's comment on the pull request
    remove: Callable[[Any, BotNote], None]  # gone from it


def _gitlab_lines(fake: Any) -> list[int]:
    threads = [d for d in fake.threads_by(gitlab_support.QUORUM) if not d["individual_note"]]
    return sorted(d["notes"][0]["position"]["new_line"] for d in threads)


def _gitlab_summary(fake: Any) -> str:
    [sticky] = [d for d in fake.threads_by(gitlab_support.QUORUM) if d["individual_note"]]
    return str(sticky["notes"][0]["body"])


def _azure_lines(fake: Any) -> list[int]:
    threads = [t for t in fake.threads_by(ado_support.QUORUM) if "threadContext" in t]
    return sorted(t["threadContext"]["rightFileEnd"]["line"] for t in threads)


def _azure_summary(fake: Any) -> str:
    [summary] = [t for t in fake.threads_by(ado_support.QUORUM) if "threadContext" not in t]
    return str(summary["comments"][0]["content"])


def _bitbucket_lines(fake: Any) -> list[int]:
    return sorted(
        c["inline"]["to"] for c in fake.comments_by(bitbucket_support.QUORUM) if "inline" in c
    )


def _bitbucket_summary(fake: Any) -> str:
    [summary] = [c for c in fake.comments_by(bitbucket_support.QUORUM) if "inline" not in c]
    return str(summary["content"]["raw"])


def _insights_lines(fake: Any) -> list[int]:
    annotations = fake.annotations.get((bitbucket_support.HEAD[:12], "review-quorum"), {})
    return sorted(a["line"] for a in annotations.values())


def _gitlab_add(fake: Any, note: BotNote) -> None:
    _, username, line, body = note
    fake.add_note(username, body, position=fake.position(gitlab_support.PATH, line))


def _gitlab_remove(fake: Any, note: BotNote) -> None:
    fake.discussions = [d for d in fake.discussions if d["notes"][0]["body"] != note[3]]


def _azure_add(fake: Any, note: BotNote) -> None:
    _, username, line, body = note
    fake.add_thread(username, body, path=ado_support.PATH, line=line)


def _azure_remove(fake: Any, note: BotNote) -> None:
    fake.threads = [t for t in fake.threads if t["comments"][0]["content"] != note[3]]


def _bitbucket_add(fake: Any, note: BotNote) -> None:
    _, username, line, body = note
    fake.add_comment(username, body, path=bitbucket_support.PATH, line=line)


def _bitbucket_remove(fake: Any, note: BotNote) -> None:
    fake.comments = [c for c in fake.comments if c["content"]["raw"] != note[3]]


def _bitbucket(
    reporter: str, posted: Callable[[Any], list[int]], summary: Callable[[Any], str] | None
) -> Platform:
    return Platform(
        reporter,
        "Bitbucket",
        bitbucket_support.over_http,
        bitbucket_support.seed_bot_comments,
        ["--bitbucket", *bitbucket_support.PULL],
        {},
        posted,
        summary,
        "/comments",
        _bitbucket_add,
        _bitbucket_remove,
    )


PLATFORMS = [
    Platform(
        "gitlab-mr",
        "GitLab",
        gitlab_support.over_http,
        gitlab_support.seed_bot_discussions,
        ["--gitlab", *gitlab_support.MR],
        {"CI_PROJECT_URL": f"{gitlab_fake.WEB}/{gitlab_fake.PROJECT_PATH}"},
        _gitlab_lines,
        _gitlab_summary,
        "/discussions",
        _gitlab_add,
        _gitlab_remove,
    ),
    Platform(
        "azure-devops-pr",
        "Azure DevOps",
        ado_support.over_http,
        ado_support.seed_bot_threads,
        ["--azure-devops", *ado_support.PULL],
        {"SYSTEM_COLLECTIONURI": "https://dev.azure.com/contoso/"},
        _azure_lines,
        _azure_summary,
        "/threads",
        _azure_add,
        _azure_remove,
    ),
    _bitbucket("bitbucket-pr", _bitbucket_lines, _bitbucket_summary),
    _bitbucket("bitbucket-insights", _insights_lines, None),
]
IDS = [platform.reporter for platform in PLATFORMS]
ALL_LINES = sorted(line for _, _, line, _ in BOT_NOTES)


@contextmanager
def posted(
    platform: Platform,
    before: Sequence[BotNote],
    after: Sequence[BotNote],
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Any, list[tuple[str, str, int]]]]:
    """`quorum review` saves a plan from the bots' comments `before`, then `quorum post`
    posts it to the pull request with the bots' comments `after`; yields the stand-in and
    the posting run's requests."""
    with platform.serve(monkeypatch) as (fake, errors):
        platform.seed(fake, before)
        saving = ["review", *platform.read, *SETTINGS, "--format", "json", "-o", str(path)]
        assert main(saving) == 1
        assert fake.writes() == []
        for note in before:
            if note not in after:
                platform.remove(fake, note)
        for note in after:
            if note not in before:
                platform.add(fake, note)
        for name, value in platform.env.items():
            monkeypatch.setenv(name, value)
        target = platform.read[1:]  # the flags naming the pull request
        saved = len(fake.log)
        assert main(["post", str(path), "--reporter", platform.reporter, *target]) == 0
        assert errors == []
        yield fake, fake.log[saved:]


@pytest.mark.parametrize("platform", PLATFORMS, ids=IDS)
def test_a_finding_credited_to_a_bot_with_no_comment_there_is_not_posted(
    platform: Platform,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The plan credits cubic with a finding on line 30; the pull request has no comment of
    cubic's: the finding is left out, counted, and the run says so naming the platform."""
    with posted(platform, BOT_NOTES, NINE, tmp_path / "plan.json", monkeypatch) as (fake, _):
        assert platform.posted(fake) == [line for _, _, line, _ in NINE]
        if platform.summary is not None:
            summary = platform.summary(fake)
            assert "Not credited: cubic (named by the plan, no comment here)." in summary
            assert "Left out: 1 finding(s) the plan attributes to bots" in summary
    err = capsys.readouterr().err
    assert (
        "quorum: warning: 1 finding(s) of the plan do not match the pull request's comments as "
        f"{platform.name} shows them now: left out (counted as skipped); the bots' findings "
        f"are {platform.name}'s, and no comment is hidden this run\n"
    ) in err, err
    assert "quorum: warning: not credited: cubic (named by the plan, no comment here)\n" in err
    assert "GitHub" not in err, err


@pytest.mark.parametrize("platform", PLATFORMS, ids=IDS)
def test_a_bot_comment_the_plan_leaves_out_is_posted_from_the_platforms_read(
    platform: Platform,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The plan was made without cubic's comment, which the pull request has now: cubic's
    finding is posted, as the platform's comments say."""
    with posted(platform, NINE, BOT_NOTES, tmp_path / "plan.json", monkeypatch) as (fake, _):
        assert platform.posted(fake) == ALL_LINES
        if platform.summary is not None:
            assert "and left out or changed 1: shown here as the comments say" in (
                platform.summary(fake)
            )
    assert "do not match" not in capsys.readouterr().err


@pytest.mark.parametrize("platform", PLATFORMS, ids=IDS)
def test_an_honest_plan_posts_what_it_did_read_again_from_the_platform(
    platform: Platform,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A plan saved from the same comments posts every finding where it did; the posting
    run reads the comments itself, and its summary says it took the plan as a proposal."""
    plan = tmp_path / "plan.json"
    with posted(platform, BOT_NOTES, BOT_NOTES, plan, monkeypatch) as (fake, posting):
        assert platform.posted(fake) == ALL_LINES
        assert any(path.endswith(platform.comments) for _, path, _ in posting)
        if platform.summary is not None:
            assert (
                "Posted from a saved plan, taken as a proposal: the bots' findings are read "
                "again from their 10 comment(s) on this pull request"
            ) in platform.summary(fake)
    err = capsys.readouterr().err
    assert "do not match" not in err and "not credited" not in err and "differ" not in err
