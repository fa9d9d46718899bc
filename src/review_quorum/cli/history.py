"""`quorum history sync|show|rule`: read past pull requests' outcomes, and look at them.

``sync`` reads a repository's pull requests from GitHub (``GITHUB_TOKEN``, honouring
``GITHUB_API_URL``), or with ``--gitlab``, ``--azure-devops`` or ``--bitbucket`` from that
platform (`history_platforms`), into the history database; ``show`` lists each stored bot
finding with its signals, its outcome and the clause of the outcome rule that decided it; ``rule``
prints the rule in effect (``outcome-rule`` in the configuration, else the default) and
what each condition means. Bot text is printed on one line, control characters removed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path
from typing import Any

import orjson

from review_quorum import config
from review_quorum.cli import history_platforms, progress
from review_quorum.cli.common import ExitCode, request_number, write_output
from review_quorum.cli.record import add_db_argument, default_db, open_reading
from review_quorum.errors import ConfigError
from review_quorum.history import open_history
from review_quorum.history.outcomes import CONDITIONS, DEFAULT_RULE, OutcomeRule
from review_quorum.history.recorded import recorded_outcomes
from review_quorum.history.show import Filters, FindingOutcome, finding_outcomes
from review_quorum.ingest.base import ReadOptions
from review_quorum.ingest.categories import build_category_map
from review_quorum.markup.escape import one_line


def add_parser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "history",
        help="read what happened to past bot comments, and show it",
        description="The history of bot comments and their outcomes (see docs/history.md).",
    )
    actions = parser.add_subparsers(
        dest="action", metavar="ACTION", required=True, help="what to do with the history"
    )
    sync = actions.add_parser(
        "sync", help="read past pull requests from GitHub, GitLab, Azure DevOps or Bitbucket"
    )
    sync.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="the repository to read (GitHub: OWNER/NAME; Azure DevOps: the repository; "
        "Bitbucket: WORKSPACE/REPOSITORY)",
    )
    sync.add_argument("--since", type=date, metavar="DATE", help="pull requests updated since")
    sync.add_argument("--last", type=positive, metavar="N", help="the N most recent")
    for flag, where in (
        ("--gitlab", "a GitLab project's merge requests (GITLAB_TOKEN; --project)"),
        ("--azure-devops", "an Azure DevOps repository's pull requests (--organization ...)"),
        ("--bitbucket", "a Bitbucket Cloud repository's pull requests (--repo)"),
    ):
        sync.add_argument(flag, action="store_true", help=f"read {where}")
    sync.add_argument(
        "--project", metavar="ID|PATH", help="GitLab: the project; Azure DevOps: the project"
    )
    sync.add_argument("--organization", metavar="ORG", help="Azure DevOps: the organisation")
    sync.add_argument(
        "--pr",
        "--mr",
        type=request_number("pull request number"),
        action="append",
        metavar="N",
        help="GitLab, Azure DevOps, Bitbucket: a pull (merge) request to read, besides those "
        "the history holds; repeat for more",
    )
    show = actions.add_parser("show", help="each stored bot finding and its outcome")
    show.add_argument("--repo", metavar="OWNER/NAME", help="only this repository")
    show.add_argument(
        "--pr",
        type=request_number("pull request number"),
        metavar="N",
        help="only this pull request",
    )
    show.add_argument("--bot", metavar="NAME", help="only this bot's findings")
    show.add_argument("--since", type=date, metavar="DATE", help="comments made since")
    show.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    show.add_argument("-o", "--output", help="write to this file")
    rule = actions.add_parser("rule", help="the outcome rule in effect, clause by clause")
    for action in (sync, show, rule):
        add_db_argument(action)
        action.add_argument("--config", metavar="FILE", help="configuration file to read")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = config.load(Path(args.config) if args.config else None)
    outcome_rule: OutcomeRule = settings.get("outcome-rule", DEFAULT_RULE)
    if args.action == "rule":
        write_output(describe_rule(outcome_rule), None)
        return ExitCode.OK
    if args.action == "sync":
        return _sync(args, settings)
    database = open_reading(args.db, settings)
    try:
        rows = finding_outcomes(database, outcome_rule, _filters(args))
        rows += recorded_outcomes(database, _filters(args))
    finally:
        database.close()
    if args.format == "json":
        text = render_json(rows)
    else:
        unmatched = None if rows else nothing_matched(args, SHOW_FILTERS, database.name)
        text = unmatched or render_text(rows)
    write_output(text, args.output)
    return ExitCode.OK


SHOW_FILTERS = ("repo", "pr", "bot", "since")


def nothing_matched(args: argparse.Namespace, flags: tuple[str, ...], name: str) -> str | None:
    """What to say when the filters `flags` given left nothing of the history `name` (None
    when no filter was given): the history may hold plenty, so "sync first" would mislead."""
    given = [(flag, getattr(args, flag)) for flag in flags if getattr(args, flag) is not None]
    if not given:
        return None
    named = " ".join(f"--{flag} {one_line(str(value))}" for flag, value in given)
    return f"No bot finding in the history {name} matches {named}.\n"


def _sync(args: argparse.Namespace, settings: dict[str, Any]) -> int:
    from review_quorum.cli.posting import make_http_client
    from review_quorum.github import GitHubClient, PullRequest
    from review_quorum.history.database import remove_if_empty
    from review_quorum.history.sync import sync

    platform = history_platforms.platform_of(args)
    if platform is not None:
        return _sync_platform(args, settings, platform)
    if not args.repo:
        raise ConfigError(
            "history sync needs --repo OWNER/NAME (or --gitlab, --azure-devops, --bitbucket)"
        )
    if args.pr:
        raise ConfigError("--pr: on GitHub, history sync lists the pull requests itself")
    target = PullRequest.create(args.repo, 1)
    if not os.environ.get("GITHUB_TOKEN", "").strip():
        raise ConfigError(
            "GITHUB_TOKEN is not set: history sync reads the repository's pull requests "
            "through the GitHub API, with a token that can read them"
        )
    db = args.db or default_db(settings)
    new = "://" not in db and not os.path.lexists(db)
    database = open_history(db)
    http = make_http_client()
    try:
        client = GitHubClient.from_env(http, on_wait=progress.note)
        report = sync(
            database,
            client,
            target.owner,
            target.repo,
            since=args.since,
            last=args.last,
            progress=_progress if sys.stderr.isatty() else None,
            options=reading_options(settings),
        )
    except BaseException:
        if new:  # a failed first sync leaves no empty history behind
            database.close()
            remove_if_empty(db)
        raise
    finally:
        http.close()
        database.close()
    print(f"quorum: {report.describe(f'{target.owner}/{target.repo}')}", file=sys.stderr)
    return ExitCode.OK


def _sync_platform(args: argparse.Namespace, settings: dict[str, Any], platform: str) -> int:
    from review_quorum.history.database import remove_if_empty

    db = args.db or default_db(settings)
    new = "://" not in db and not os.path.lexists(db)
    database = open_history(db)
    try:
        name, report = history_platforms.sync(args, platform, database, reading_options(settings))
    except BaseException:
        if new:  # a failed first sync leaves no empty history behind
            database.close()
            remove_if_empty(db)
        raise
    finally:
        database.close()
    print(f"quorum: {report.describe(name)}", file=sys.stderr)
    return ExitCode.OK


def reading_options(settings: dict[str, Any]) -> ReadOptions:
    """Bot comments are read as `quorum review` reads them: same bot logins and categories."""
    categories = settings.get("categories")
    return ReadOptions(
        categories=build_category_map(categories) if categories else None,
        bot_logins=settings.get("bot-logins") or {},
    )


def _progress(index: int, total: int, info: Any) -> None:
    end = "\n" if index + 1 == total else ""
    print(
        f"\rquorum: reading pull request {index + 1}/{total} (#{info.number})",
        end=end,
        file=sys.stderr,
    )


def _filters(args: argparse.Namespace) -> Filters:
    return Filters(repository=args.repo, number=args.pr, bot=args.bot, since=args.since)


def render_text(rows: list[FindingOutcome]) -> str:
    if not rows:
        return "No findings stored (record runs with --db, or run quorum history sync).\n"
    lines = []
    for row in rows:
        where = f"{row.file}:{row.line}" if row.line else row.file or "(no file)"
        rule = f" [{one_line(row.rule_id)}]" if row.rule_id else ""
        lines.append(
            f"{row.repository}#{row.number} {row.bot}{rule} {one_line(where)}: "
            f"{row.outcome.value.upper()} ({row.reason})"
        )
        lines.append(f"    {one_line(row.title)}")
        lines.append(f"    signals: {'; '.join(row.signals)}")
    return "\n".join(lines) + "\n"


def render_json(rows: list[FindingOutcome]) -> str:
    data = [
        {
            "repository": row.repository,
            "pull_request": row.number,
            "bot": row.bot,
            "rule_id": row.rule_id,
            "file": row.file,
            "line": row.line,
            "title": row.title,
            "url": row.url,
            "created_at": row.created_at,
            "signals": list(row.signals),
            "outcome": row.outcome.value,
            "reason": row.reason,
        }
        for row in rows
    ]
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def describe_rule(rule: OutcomeRule) -> str:
    lines = ["Outcome rule (the first clause whose conditions all hold decides):"]
    lines += [f"  {line}" for line in rule.describe()]
    lines.append("  otherwise -> unknown")
    lines.append("Conditions (prefix one with 'not ' to negate it):")
    lines += [f"  {name:<20} {condition.meaning}" for name, condition in CONDITIONS.items()]
    return "\n".join(lines) + "\n"


def date(text: str) -> str:
    """A date or timestamp as GitHub's ISO 8601 form (``2026-01-31T00:00:00Z``)."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date like 2026-01-31, not {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, not {text!r}")
    return int(text)
