"""Every flag of every command is in its command's docs page, so help and docs cannot
drift apart again (issue 33 item 11)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from conftest import REPO_ROOT
from review_quorum.cli import COMMANDS, SUMMARIES

PAGES = {
    "consensus": ["review.md"],
    "review": ["review.md"],
    "post": ["github.md"],
    "score": ["scoring.md"],
    "threshold": ["scoring.md"],
    "history": ["history.md"],
    "stats": ["history.md"],
    "evaluate": ["reliability.md"],
    "calibrate": ["reliability.md", "history.md"],
    "verify": ["verifier.md"],
}


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    top = argparse.ArgumentParser(prog="quorum")
    subparsers = top.add_subparsers()
    for load in COMMANDS.values():
        load().add_parser(subparsers)
    return dict(subparsers.choices)


def options(parser: argparse.ArgumentParser) -> Iterator[tuple[str, ...]]:
    """Each option's spellings (``-o``, ``--output``), subcommands' included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from options(sub)
        elif action.option_strings and not isinstance(action, argparse._HelpAction):
            yield tuple(action.option_strings)


def documented(spellings: tuple[str, ...], text: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) for flag in spellings)


def test_every_command_has_a_docs_page() -> None:
    assert sorted(PAGES) == sorted(COMMANDS)


@pytest.mark.parametrize("command", sorted(PAGES))
def test_every_flag_is_in_the_commands_docs_page(command: str) -> None:
    text = "".join(
        (REPO_ROOT / "docs" / page).read_text(encoding="utf-8") for page in PAGES[command]
    )
    parser = command_parsers()[command]
    missing = [spellings[-1] for spellings in options(parser) if not documented(spellings, text)]
    assert missing == [], f"quorum {command}: flags missing from docs/{PAGES[command][0]}"


def test_the_check_counts_a_flag_only_as_a_whole_word() -> None:
    assert documented(("--db",), "pass --db PATH")
    assert not documented(("--db",), "pass --db-default")
    assert documented(("-o", "--output"), "[-o OUT]")
    assert not documented(("-o",), "--no-hide-duplicates")


def test_post_help_and_page_name_both_platforms() -> None:
    parser = command_parsers()["post"]
    help_text = parser.format_help()
    assert "posting to GitHub" not in help_text
    assert "GitLab merge request" in (parser.description or "") + help_text
    synopsis = (REPO_ROOT / "docs" / "github.md").read_text().split("```", 2)[1]
    reporters = next(a for a in parser._actions if "--reporter" in a.option_strings).choices
    assert reporters is not None and all(name in synopsis for name in reporters)


def test_post_help_names_every_platform_it_posts_to_and_its_token() -> None:
    parser = command_parsers()["post"]
    summary = SUMMARIES["post"]
    description = " ".join((parser.description or "").split())
    titles = [group.title or "" for group in parser._action_groups if "posting" in str(group.title)]
    for platform in ("GitHub", "GitLab", "Azure DevOps", "Bitbucket"):
        assert platform in summary and platform in description
        assert titles and all(platform in title for title in titles)
    reporters = next(a for a in parser._actions if "--reporter" in a.option_strings).choices
    assert reporters is not None and all(f"{name}" in description for name in reporters)
    tokens = ("GITHUB_TOKEN", "GITLAB_TOKEN", "AZURE_DEVOPS_TOKEN", "BITBUCKET_TOKEN")
    assert all(token in description for token in tokens)


def test_the_posting_flags_only_github_honours_say_so() -> None:
    # the thread platforms refuse them (`reporters.threads.thread_draft`): the help says why
    parser = command_parsers()["post"]
    helps = {a.option_strings[0]: a.help or "" for a in parser._actions if a.option_strings}
    assert helps["--hide-duplicates"].startswith("GitHub:")
    assert "link (GitHub)" in helps["--inline-mode"]
