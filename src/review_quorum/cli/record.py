"""`--db`: where the history lives, and recording a run from `quorum review` or `quorum post`.

`--db` always takes a value: a SQLite path or a ``postgresql://`` URL (a flag whose value
were optional would take the next input file for its path). The default location is the
configuration's ``history-db``, else ``$QUORUM_HISTORY_DB``, else `.quorum/history.db`:
the commands that read the history use it without `--db`, and `review` and `post` record
there with `--db-default`. Reading never creates a database (`open_reading`).
A run needs its pull request (``--repo``/``--pr`` or the Actions event) and head commit
(``--head-sha``, the event's head, or the HEAD side of ``--git BASE..HEAD``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from review_quorum import config
from review_quorum.cli import progress
from review_quorum.errors import ConfigError, shown

if TYPE_CHECKING:
    from review_quorum.history import Database
    from review_quorum.plan import ReviewPlan
    from review_quorum.scoring.profile import Profile

DEFAULT_DB = ".quorum/history.db"
ENV_DB = "QUORUM_HISTORY_DB"
_DB_HELP = "a SQLite path or a postgresql:// URL"
_DEFAULT_HELP = f"history-db in the configuration, else ${ENV_DB}, else {DEFAULT_DB}"


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """`--db` for the commands that read the history (without it: the default location)."""
    parser.add_argument(
        "--db", metavar="PATH|URL", help=f"history database, {_DB_HELP} (default: {_DEFAULT_HELP})"
    )


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--db", metavar="PATH|URL", help=f"record the run in this history database, {_DB_HELP}"
    )
    where.add_argument(
        "--db-default",
        action="store_true",
        help=f"record the run in the default history database: {_DEFAULT_HELP}",
    )
    parser.add_argument(
        "--head-sha", type=_sha, metavar="SHA", help="the pull request's head commit, for --db"
    )


def default_db(
    settings: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The history database used when none is named: configured, else the environment's."""
    env = os.environ if env is None else env
    if settings is None:
        settings = config.load()
    from_settings = settings.get("history-db")
    configured = from_settings or env.get(ENV_DB, "").strip()
    if configured and not str(configured).isprintable():
        where = "history-db in the configuration" if from_settings else f"${ENV_DB}"
        raise ConfigError(
            f"{where} is {shown(str(configured))}: a history path or URL holds no newline or "
            "control character"
        )
    return str(configured) if configured else DEFAULT_DB


def open_reading(value: str | None, settings: Mapping[str, Any]) -> Database:
    """The history `--db` names (default: `default_db`) for reading; it must exist."""
    from review_quorum.history import open_history

    return open_history(value or default_db(settings), create=False)


class Recorder(msgspec.Struct, frozen=True):
    """Where and as what to record a run; resolved before the run so errors come first."""

    target: str
    owner: str
    repo: str
    number: int
    head_sha: str
    new: bool = False  # no database at `target` when the run began

    @classmethod
    def from_args(
        cls,
        args: argparse.Namespace,
        settings: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Recorder | None:
        """The recorder `--db` asks for, or None without `--db`; ConfigError when incomplete."""
        if args.db is None and not args.db_default:
            return None
        target = args.db or default_db(settings, env)
        if not target.isprintable():
            raise ConfigError(
                f"--db {shown(target)}: a history path or URL holds no newline or control character"
            )
        env = os.environ if env is None else env
        new = "://" not in target and not os.path.lexists(target)
        platform = _platform(args, settings)
        if platform is not None:
            return cls._on_platform(args, platform, target, new, env)
        from review_quorum.github import resolve_target

        pull = resolve_target(
            args.repo, args.pr, env, missing="--db: recording needs the pull request"
        )
        head = args.head_sha or pull.head_sha or _git_head(getattr(args, "git", None))
        if not head:
            raise ConfigError(
                "--db: recording needs the head commit: pass --head-sha SHA "
                "(or run in a pull_request workflow, or review with --git BASE..HEAD)"
            )
        return cls(target, pull.owner, pull.repo, pull.number, head, new)

    @classmethod
    def _on_platform(
        cls,
        args: argparse.Namespace,
        platform: str,
        target: str,
        new: bool,
        env: Mapping[str, str],
    ) -> Recorder:
        """A run on GitLab, Azure DevOps or Bitbucket, named as `history sync` names it."""
        from review_quorum.cli import history_platforms

        number = getattr(args, "mr", None) if platform == "gitlab" else args.pr
        where = history_platforms.where(args, platform, env, number)
        owner, repo = history_platforms.name_of(where, platform, env)
        number = where.iid if platform == "gitlab" else where.pull_id
        head = (
            args.head_sha
            or _full(env.get(_HEAD_VARIABLES[platform], ""))
            or _git_head(getattr(args, "git", None))
        )
        if not head:
            raise ConfigError(
                f"--db: recording needs the head commit: pass --head-sha SHA (or run in the "
                f"pull request's pipeline, which sets ${_HEAD_VARIABLES[platform]})"
            )
        return cls(target, owner, repo, number, head, new)

    def discard_if_new(self) -> None:
        """After a failed run: remove the database this run created, if nothing is in it,
        so that a later command says there is no history rather than showing an empty one."""
        if self.new:
            from review_quorum.history.database import remove_if_empty

            remove_if_empty(self.target)

    def profile(self, settings: Mapping[str, Any]) -> Profile | None:
        """The reliability profile the history supports over the shipped one (None: empty)."""
        from review_quorum.history import open_history
        from review_quorum.history.outcomes import DEFAULT_RULE
        from review_quorum.history.rates import calibrate, over
        from review_quorum.history.stats import compute_stats
        from review_quorum.scoring.profile import Profile

        database = open_history(self.target)
        try:
            stats = compute_stats(database, settings.get("outcome-rule", DEFAULT_RULE))
            learned = calibrate(stats, origin=database.name)
        finally:
            database.close()
        if not learned.sources:
            return None
        count = len(learned.sources)
        progress.note(f"reliability from the history: {count} source(s)")
        return over(learned, Profile.default())

    def record(self, plan: ReviewPlan) -> None:
        """Record `plan` and say on standard error what happened."""
        from review_quorum.history import RunRecord, open_history, record_run
        from review_quorum.history.successive import git_changes
        from review_quorum.render.json_report import content_digest

        record = RunRecord.from_plan(
            plan,
            content_sha256=content_digest(plan),
            owner=self.owner,
            repo=self.repo,
            number=self.number,
            head_sha=self.head_sha,
            origin="action" if os.environ.get("GITHUB_ACTIONS") == "true" else "db",
        )
        database = open_history(self.target)
        try:
            recorded = record_run(database, record, git_changes)
        finally:
            database.close()
        progress.note(recorded.describe(record))


# The platform each reporter posts to, when no reading flag names it.
_REPORTED = {
    "gitlab-mr": "gitlab",
    "azure-devops-pr": "azure_devops",
    "bitbucket-pr": "bitbucket",
    "bitbucket-insights": "bitbucket",
}
# The pipeline variable that holds the pull request's head commit on each platform.
_HEAD_VARIABLES = {
    "gitlab": "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
    "azure_devops": "SYSTEM_PULLREQUEST_SOURCECOMMITID",
    "bitbucket": "BITBUCKET_COMMIT",
}


def _platform(args: argparse.Namespace, settings: Mapping[str, Any] | None) -> str | None:
    """The platform the run reads or posts to (None: GitHub)."""
    from review_quorum.cli import history_platforms

    given = history_platforms.platform_of(args)
    if given is not None:
        return given
    reporter = getattr(args, "reporter", None) or (settings or {}).get("reporter")
    return _REPORTED.get(str(reporter))


def _full(text: str) -> str | None:
    value = text.strip().lower()
    return value if len(value) in (40, 64) and all(c in "0123456789abcdef" for c in value) else None


def full_sha(text: str) -> str:
    """A full commit id (40 or 64 hex digits), lowercased; else an argparse error."""
    return _sha(text)


def _sha(text: str) -> str:
    value = text.strip().lower()
    if len(value) not in (40, 64) or any(char not in "0123456789abcdef" for char in value):
        raise argparse.ArgumentTypeError(f"expected a full commit SHA, not {text!r}")
    return value


def _git_head(revisions: str | None) -> str | None:
    if not revisions or ".." not in revisions:
        return None
    head = revisions.split("..")[-1].lstrip(".") or "HEAD"
    command = ["git", "rev-parse", "--verify", "--quiet", f"{head}^{{commit}}"]
    try:
        import subprocess  # only with --git: it costs every other run's start-up

        done = subprocess.run(command, capture_output=True, check=False, text=True)
    except OSError:
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None
