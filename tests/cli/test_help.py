"""Every command, subcommand, flag and argument of `quorum` says in `--help` what it does."""

from __future__ import annotations

import re

import pytest

from review_quorum.cli import COMMANDS, main

_ENTRY = re.compile(r"  (\S.*)")  # an argument or option, two spaces in
_DESCRIBED = re.compile(r"\S.*?\s{2,}\S")  # ... followed on its line by its description
_CONTINUED = " " * 8  # a description that starts on the next line is indented further


def help_text(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def undocumented(text: str) -> list[str]:
    """The arguments and options listed in a `--help` text without a description."""
    lines = text.splitlines()
    body = lines[lines.index("") + 1 :]  # after the usage
    missing = []
    for number, line in enumerate(body):
        entry = _ENTRY.fullmatch(line)
        if entry is None or _DESCRIBED.match(entry.group(1)):
            continue
        following = body[number + 1] if number + 1 < len(body) else ""
        if not following.startswith(_CONTINUED) or following.strip().startswith("-"):
            missing.append(entry.group(1))
    return missing


def subcommands(text: str, heading: str) -> list[str]:
    """The names listed under `heading` (COMMAND, ACTION) in a `--help` text."""
    lines = text.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith(f"  {heading}"))
    names = []
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        if not line.startswith("     "):  # deeper lines continue a description
            names.append(line.split()[0])
    return names


def test_the_top_level_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_text(capsys)
    assert subcommands(text, "COMMAND") == list(COMMANDS)
    assert undocumented(text) == []


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_of_every_command_has_help(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert undocumented(help_text(capsys, command)) == []


def test_every_history_action_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    actions = subcommands(help_text(capsys, "history"), "ACTION")
    assert actions == ["sync", "show", "rule"]
    assert {action: undocumented(help_text(capsys, "history", action)) for action in actions} == {
        action: [] for action in actions
    }


def test_the_check_finds_an_option_without_help() -> None:
    text = "usage: x\n\noptions:\n  -h, --help  show help\n  --bare N\n  --next  documented\n"
    assert undocumented(text) == ["--bare N"]
