"""`quorum review --github`: the pull request's own comments as an input, read at the CLI edge.

The pull request is named by ``--repo``/``--pr`` or the Actions environment (as for
posting). Its review comments, reviews and issue comments are read through the GitHub
client (which needs ``GITHUB_TOKEN`` and honours ``GITHUB_API_URL``) and handed, as
GitHub's own JSON objects labelled with their collection, to the bot-comment readers
(`ingest.comments.read_comments`), which decide what is a finding. ``--wait-for BOT,...``
first polls until those bots have reported on the head commit or said they skipped, for
at most ``--wait-timeout`` seconds; a timeout is not an error: the review is made from
what is there and says who is missing. A named bot with no comment or review on this pull
request or the repository's recent ones is taken as not installed and not waited for. The
clock, the sleeper and the polling interval live in `TIMING`, so tests never sleep for real.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import msgspec

from review_quorum.cli import progress
from review_quorum.cli.common import PullSource, warn
from review_quorum.errors import ConfigError
from review_quorum.ingest.base import Batch, ReadOptions
from review_quorum.ingest.comments import PullComment, read_comments
from review_quorum.plan import AwaitedBots

if TYPE_CHECKING:
    from review_quorum.github import GitHubClient
    from review_quorum.github.snapshot import PullSnapshot
    from review_quorum.github.target import PullRequest
    from review_quorum.github.waiting import Conversation, Reading
    from review_quorum.history.triage import Decision, Screened

DEFAULT_WAIT_TIMEOUT = 600.0


class Timing(msgspec.Struct):
    """How `--wait-for` tells time and waits (replaced by tests)."""

    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    interval: float = 30.0


TIMING = Timing()
_Client = TypeVar("_Client")


@contextmanager
def client_for(make: Callable[..., _Client], env: Mapping[str, str]) -> Iterator[_Client]:
    """The client `make` (a platform client's `from_env`) gives for one reading, on an
    HTTP client of its own (closed after), with `TIMING`'s clock and sleeper and the
    progress notes."""
    from review_quorum.cli.posting import make_http_client  # httpx only when reading

    http = make_http_client()
    try:
        yield make(http, env, sleep=TIMING.sleep, clock=TIMING.clock, on_wait=progress.note)
    finally:
        http.close()


class PullInput(msgspec.Struct, frozen=True):
    """What reading the pull request gave: its findings, the head commit, the wait."""

    batch: Batch
    head_sha: str
    awaited: AwaitedBots | None
    snapshot: PullSnapshot | None = None
    decisions: tuple[Decision, ...] = ()  # writers' triage, read when the run is recorded
    talk: Conversation | None = None  # another platform's comments, for coverage


def add_github_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that make the pull request's comments an input (with --repo and --pr)."""
    group = parser.add_argument_group("reading the pull request from GitHub")
    group.add_argument(
        "--github",
        action="store_true",
        help="also read the pull request's review comments, reviews and issue comments "
        "(needs GITHUB_TOKEN; --repo/--pr or the Actions event name the pull request)",
    )
    group.add_argument(
        "--wait-for",
        metavar="BOT,...",
        help="first wait until each of these bots has reviewed the head commit or said it "
        "skipped (implies --github, unless --gitlab is given)",
    )
    group.add_argument(
        "--wait-timeout",
        type=_seconds,
        metavar="SECONDS",
        help=f"the longest --wait-for waits (default {DEFAULT_WAIT_TIMEOUT:.0f})",
    )


def read_github(
    pull: PullSource,
    options: ReadOptions,
    env: Mapping[str, str] | None = None,
    *,
    triage: bool = False,
) -> PullInput:
    """Read (after waiting, if asked) the pull request's comments into a batch of findings;
    with `triage` (a run recorded in the history), the writers' triage decisions too."""
    # Imported here so that commands which never touch GitHub do not pay for httpx.
    from review_quorum.github import GitHubClient, resolve_target
    from review_quorum.github.snapshot import head_commit_date, read_pull
    from review_quorum.github.waiting import parse_bot_list
    from review_quorum.history.triage import read_decisions

    env = os.environ if env is None else env
    target = resolve_target(
        pull.repo, pull.pr, env, missing="--github: reading needs the pull request"
    )
    if not env.get("GITHUB_TOKEN", "").strip():
        raise ConfigError(
            "--github reads the pull request through the GitHub API: set GITHUB_TOKEN"
        )
    bots = parse_bot_list(pull.wait_for or "", options.bot_logins)
    if pull.wait_for is not None and not bots:
        raise ConfigError(
            f"--wait-for: expected bot names separated by commas, not {pull.wait_for!r}"
        )
    with client_for(GitHubClient.from_env, env) as client:
        date = head_commit_date if bots else None

        def read() -> PullSnapshot:
            return read_pull(client, target, commit_date=date)

        with progress.stage(f"reading {target} from GitHub"):
            if bots:
                absent = _not_installed(client, target, bots, options.bot_logins)
                snapshot, awaited = wait(read, bots, pull.wait_timeout, options.bot_logins, absent)
            else:
                snapshot, awaited = read(), None
        screened = None
        if triage:
            screened = read_decisions(client, snapshot, options.own_login)
    batch = read_comments(_comments(snapshot), name=str(snapshot.target), options=options)
    return with_triage(PullInput(batch, snapshot.head_sha, awaited, snapshot), screened)


def with_triage(pulled: PullInput, screened: Screened | None) -> PullInput:
    """`pulled` with the decisions kept, and a counted record of each one refused."""
    if screened is None:
        return pulled
    pulled.batch.skipped.extend(screened.refused)
    return msgspec.structs.replace(pulled, decisions=screened.kept)


def _comments(snapshot: PullSnapshot) -> list[PullComment]:
    from review_quorum.github.snapshot import pull_comments

    return pull_comments(snapshot.review_comments, snapshot.reviews, snapshot.issue_comments)


def _not_installed(
    client: GitHubClient, target: PullRequest, bots: Sequence[str], logins: Mapping[str, str]
) -> tuple[str, ...]:
    """The bots never heard from on this or the repository's recent pull requests."""
    from review_quorum.github.snapshot import RECENT_PULLS, recent_authors
    from review_quorum.github.waiting import not_installed

    authors = recent_authors(client, target)
    absent = () if authors is None else not_installed(bots, authors, logins)
    if absent:
        warn(
            f"not waiting for {', '.join(absent)}: no comment or review on this pull request "
            f"or the repository's {RECENT_PULLS} most recently updated ones (not installed?)"
        )
    return absent


def wait(
    read: Callable[[], Reading],
    bots: Sequence[str],
    timeout: float | None,
    logins: Mapping[str, str],
    absent: Sequence[str] = (),
) -> tuple[Reading, AwaitedBots]:
    """Read until `bots` reported (see `github.waiting`), saying who is still missing; the
    `absent` ones (not installed) are reported on but not waited for."""
    from review_quorum.github.waiting import Report, wait_for_bots

    waited = wait_for_bots(
        read,
        bots,
        absent=absent,
        logins=logins,
        timeout=DEFAULT_WAIT_TIMEOUT if timeout is None else timeout,
        interval=TIMING.interval,
        clock=TIMING.clock,
        sleep=TIMING.sleep,
        progress=_progress,
    )
    skipped = tuple(bot for bot, report in waited.reports.items() if report is Report.SKIPPED)
    given_up = [bot for bot in waited.missing if bot not in absent]
    if given_up:
        warn(
            f"gave up waiting after {waited.waited:.0f}s; not reported: "
            f"{', '.join(given_up)} (the review says so)"
        )
    awaited = AwaitedBots(tuple(bots), skipped, waited.missing, waited.waited)
    return waited.snapshot, awaited


def _progress(pending: Sequence[str], waited: float) -> None:
    print(f"quorum: waiting for {', '.join(pending)} ({waited:.0f}s so far)", file=sys.stderr)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds >= 0, not {text!r}")
    return value
