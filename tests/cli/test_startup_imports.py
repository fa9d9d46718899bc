"""What a command loads is what it needs: start-up is most of a small review's time.

Each check runs a fresh interpreter (the modules a test process already holds would
hide an import) and lists the modules it ended with.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from review_quorum import cli
from review_quorum.cli import COMMANDS, SUMMARIES, build_parser, main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pr-review"
SHA = "c" * 40


def modules_after(argv: list[str], cwd: Path | None = None) -> set[str]:
    """The modules loaded once `quorum ARGV` has run in a fresh interpreter."""
    script = (
        "import sys\n"
        "from review_quorum.cli import main\n"
        f"status = main({argv!r})\n"
        "print(status)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, check=True
    )
    lines = done.stdout.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip().isdigit())
    assert lines[index] in ("0", "1"), done.stderr
    return set(lines[index + 1 :])


def test_recording_a_run_does_not_load_the_http_client(tmp_path: Path) -> None:
    analysers = sorted(str(path) for path in (EXAMPLE / "analysers").glob("*.sarif"))
    bots = sorted(str(path) for path in (EXAMPLE / "bots").glob("*.json"))
    argv = ["review", *analysers, *bots, "--diff", str(EXAMPLE / "pr.diff")]
    argv += ["--db", str(tmp_path / "history.db"), "--repo", "o/r", "--pr", "1"]
    loaded = modules_after(
        [*argv, "--head-sha", SHA, "--format", "json", "-o", str(tmp_path / "out.json")]
    )
    assert "review_quorum.history.recording" in loaded  # the run was recorded
    assert "httpx" not in loaded and "review_quorum.github.client" not in loaded


def test_help_with_no_command_imports_no_command_module() -> None:
    loaded = modules_after(["--help"])
    assert "review_quorum.cli" in loaded
    assert (
        sorted(
            f"review_quorum.cli.{name}"
            for name in COMMANDS
            if f"review_quorum.cli.{name}" in loaded
        )
        == []
    )


def test_help_loads_neither_the_commands_shared_module_nor_msgspec() -> None:
    # what `quorum --help` prints needs argparse and the summaries: not the readers,
    # scoring and errors every command shares (a third of a review's start-up)
    loaded = modules_after(["--help"])
    assert {"review_quorum.cli.common", "review_quorum.errors", "msgspec"} & loaded == set()


def help_in_a_fresh_process(argv: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "review_quorum", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_commands_help_is_what_its_parser_says_with_every_module_loaded(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fresh process loads only what the command's parser needs; this process has
    # built every command's parser (and so loaded every module they import): lazy
    # loading must not change a byte of the help.
    monkeypatch.setenv("COLUMNS", "100")
    parser = build_parser()
    subparsers = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    assert help_in_a_fresh_process([command, "--help"]) == subparsers.choices[command].format_help()


def test_help_lists_each_command_as_its_module_describes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    assert capsys.readouterr().out == build_parser().format_help()  # every module loaded
    assert list(SUMMARIES) == list(COMMANDS)


BOT_READERS = {
    "augment", "claude", "codeant", "coderabbit", "codex", "codoki", "copilot", "cubic",
    "cursor", "devin", "gemini", "ghas", "greptile", "kodus", "macroscope", "notices", "qodo",
    "sourcery",
}  # fmt: skip


def test_the_readme_example_loads_only_what_it_uses() -> None:
    analysers = sorted(str(path) for path in (EXAMPLE / "analysers").glob("*.sarif"))
    bots = sorted(str(path) for path in (EXAMPLE / "bots").glob("*.json"))
    argv = ["review", *analysers, *bots, "--diff", str(EXAMPLE / "pr.diff")]
    argv += ["--verdicts", str(EXAMPLE / "verdicts.json"), "--config", str(EXAMPLE / "quorum.toml")]
    loaded = modules_after(argv)
    prefix = "review_quorum.ingest.bots."
    readers = {name.removeprefix(prefix) for name in loaded if name.startswith(prefix)}
    # the comments come from three bots: their readers, not the eighteen
    assert readers & BOT_READERS == {"coderabbit", "copilot", "sourcery"}
    # no verifier is asked and no saved plan is read: the verifier stage is not loaded
    assert "review_quorum.verifier.stage" not in loaded and "subprocess" not in loaded
    # markdown is written: no other renderer
    assert "review_quorum.render.review" in loaded
    rendered = {"sarif", "json_report", "github_review", "terminal"}
    assert {name for name in rendered if f"review_quorum.render.{name}" in loaded} == set()
    # no pull request is read from a platform, and the output is short: not written behind
    platforms = {"gitlab_notes", "azure_devops_threads", "bitbucket_comments", "bots.signatures"}
    assert {name for name in platforms if f"review_quorum.ingest.{name}" in loaded} == set()
    assert "queue" not in loaded
    # every comment has its bot's own reader: not the generic one, nor the free-text,
    # section and label parsers it uses
    unused = {"bots.generic", "freetext", "bots.sections", "bots.labels", "bots.status"}
    assert {name for name in unused if f"review_quorum.ingest.{name}" in loaded} == set()
    # no text holds an HTML character reference: the entity table is not loaded
    assert {"html", "html.entities"} & loaded == set()
    # argparse's help formatter is told the terminal's width: shutil (and the archive
    # modules it imports) is not loaded to ask for it
    assert {"shutil", "bz2", "lzma"} & loaded == set()
    # paths are read with os.path (the checkout's lines too): not pathlib, urllib.parse
    # and ipaddress
    assert {"pathlib", "urllib.parse", "ipaddress"} & loaded == set()
    # identities and anchors are digests of short texts: CPython's own SHA-256, not OpenSSL
    assert {"hashlib", "_hashlib"} & loaded == set()


def test_a_json_review_loads_openssl_only_to_record_the_run(tmp_path: Path) -> None:
    argv = ["review", *(str(path) for path in sorted((EXAMPLE / "analysers").glob("*.sarif")))]
    argv += ["--format", "json", "-o", str(tmp_path / "plan.json")]
    assert {"hashlib", "_hashlib"} & modules_after(argv) == set()
    # the content digest hashes the whole report: hashlib (OpenSSL) when a run is recorded
    recorded = modules_after(
        [
            *argv,
            "--db",
            str(tmp_path / "h.db"),
            "--repo",
            "o/r",
            "--pr",
            "1",
            "--head-sha",
            "a" * 40,
        ]
    )
    assert "_hashlib" in recorded


@pytest.mark.parametrize("columns", [None, "100", "1", "0", "-3", "wide"])
@pytest.mark.parametrize("terminal", [None, (0, 0), (57, 20)])  # None: not a terminal
def test_help_is_as_wide_as_shutil_would_make_it(
    columns: str | None, terminal: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the help formatter asks for the width without importing shutil: same answer
    def size(fd: int = 1) -> os.terminal_size:
        if terminal is None:
            raise OSError(25, "Inappropriate ioctl for device")
        return os.terminal_size(terminal)

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(os, "get_terminal_size", size)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns


def test_help_without_a_standard_output_is_as_wide_as_shutil_would_make_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "__stdout__", None)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns == 80


@pytest.mark.parametrize("columns", ["100", "57"])
def test_each_help_is_what_argparses_own_formatter_prints(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    parser = build_parser()
    subparsers = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    for each in [parser, *subparsers.choices.values()]:
        ours = each.format_help()
        each.formatter_class = argparse.HelpFormatter
        assert each.format_help() == ours, each.prog


def test_the_collector_is_paused_while_the_command_is_imported_and_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # importing a command's modules leaves nothing to collect either: no pass over the
    # young objects the imports made (the console script then freezes what is left)
    seen: list[bool] = []
    build = cli.build_parser

    def building(command: str | None = None) -> argparse.ArgumentParser:
        seen.append(gc.isenabled())
        return build(command)

    monkeypatch.setattr(cli, "build_parser", building)
    assert gc.isenabled()
    assert main(["threshold", "0.5"]) == 0
    assert seen == [False] and gc.isenabled()


def test_help_on_a_closed_standard_output_is_as_wide_as_shutil_would_make_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    closed = (tmp_path / "out").open("w")
    closed.close()  # fileno() raises ValueError
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys, "__stdout__", closed)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns == 80
