"""The `quorum` command line: a literal registry of commands, each a thin module.

Each command module owns `add_parser(subparsers)` and `run(args) -> int` (the `Command`
protocol). `main` turns errors into exit statuses: bad input or usage is 2 with a message
naming the file and position, Ctrl-C is 130, a reader that closed the pipe 141 (quietly,
as for a program SIGPIPE ends), anything unexpected is 3. Library warnings
are printed, never raised. Only here is the cyclic garbage collector paused for a whole
command (`paused_gc`): the library never switches it off behind its caller's back.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from review_quorum._perf import paused_gc
from review_quorum.cli.exits import ExitCode, keep_until_exit


class Command(Protocol):
    """A `quorum` command: it adds its subparser and runs with the parsed arguments."""

    def add_parser(self, subparsers: Any) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _consensus() -> Command:
    from review_quorum.cli import consensus

    return consensus


def _review() -> Command:
    from review_quorum.cli import review

    return review


def _post() -> Command:
    from review_quorum.cli import post

    return post


def _score() -> Command:
    from review_quorum.cli import score

    return score


def _threshold() -> Command:
    from review_quorum.cli import threshold

    return threshold


def _history() -> Command:
    from review_quorum.cli import history

    return history


def _stats() -> Command:
    from review_quorum.cli import stats

    return stats


def _evaluate() -> Command:
    from review_quorum.cli import evaluate

    return evaluate


def _calibrate() -> Command:
    from review_quorum.cli import calibrate

    return calibrate


def _verify() -> Command:
    from review_quorum.cli import verifying

    return verifying


COMMANDS: dict[str, Callable[[], Command]] = {
    "consensus": _consensus,
    "review": _review,
    "post": _post,
    "score": _score,
    "threshold": _threshold,
    "history": _history,
    "stats": _stats,
    "evaluate": _evaluate,
    "calibrate": _calibrate,
    "verify": _verify,
}
"""Each command's module, imported when the command runs: a run of `quorum review` does
not pay for the history, labels and statistics modules."""

SUMMARIES: dict[str, str] = {
    "consensus": "cluster findings and score how many bots agree on each",
    "review": "plan one consolidated pull request review and gate on it",
    "post": "post a saved review plan to GitHub, GitLab, Azure DevOps or Bitbucket",
    "score": "score verified findings (0..100, a band) and decide where each is posted",
    "threshold": "show the score and band a posting threshold resolves to",
    "history": "read what happened to past bot comments, and show it",
    "stats": "how often each bot's comments were acted on, from the history",
    "evaluate": "score sources and consolidation policies against labels",
    "calibrate": "write a reliability profile from the history's outcomes or from labels",
    "verify": "verify a saved plan's uncertain findings and write a verdicts file",
}
"""Each command's one line in `quorum --help` (the same as its module's `help`, which
tests/cli/test_startup_imports.py checks): help with no command named imports none."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone when it is one of COMMANDS."""
    parser, subparsers = _root_parser()
    chosen = [command] if command in COMMANDS else list(COMMANDS)
    for name in chosen:
        COMMANDS[name]().add_parser(subparsers)
    return parser


def _summary_parser() -> argparse.ArgumentParser:
    """The parser when `argv` names no command (help, the version, a mistyped command):
    each command by its name and summary, none of their modules imported."""
    parser, subparsers = _root_parser()
    for name, summary in SUMMARIES.items():
        subparsers.add_parser(name, help=summary)
    return parser


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as `shutil.get_terminal_size` makes it (two
    columns less) without importing `shutil` and its archive modules: argparse builds
    one formatter per argument added, so a command's start-up paid for them."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    """The columns `shutil.get_terminal_size()` gives: COLUMNS when a positive number,
    else standard output's terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout: Any = sys.__stdout__  # None, closed or detached: no terminal to ask
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    """The parser of `quorum` and (as their parser class) of its commands: help by
    `_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def _root_parser() -> tuple[argparse.ArgumentParser, Any]:
    parser = _Parser(
        prog="quorum",
        description="Merge many review bots' findings into one consensus-scored review.",
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show the traceback of an internal error (also QUORUM_DEBUG=1)",
    )
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, help="run `quorum COMMAND --help`"
    )
    return parser, subparsers


def _command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` names: its first word that is not one of quorum's own options
    (which take no value), or None when it names none (then help and the error for an
    unknown command list them all by their summaries)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
        if word == "--":
            return None
    return None


class _Version(argparse.Action):
    """`--version`, looked up only when asked for: reading the installed package's
    metadata costs every other run a tenth of its start-up."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("review-quorum")
    except PackageNotFoundError:
        return "unknown"


def main(argv: Sequence[str] | None = None, *, exiting: bool = False) -> int:
    """Run `quorum` with `argv` and return its exit status.

    `exiting` is for the console script, which ends the process right after: what the
    command built is then frozen out of the collector's sight instead of scanned once.
    """
    # Findings hold no cycles, and neither does what importing the command's modules
    # leaves behind: nothing to collect from the parser's imports to the end of the run.
    with paused_gc(freeze=exiting):
        return _main(sys.argv[1:] if argv is None else argv)


def _main(words: Sequence[str]) -> int:
    command = _command_named(words)
    try:
        args = (build_parser(command) if command else _summary_parser()).parse_args(words)
    except SystemExit as exit_:
        return ExitCode.OK if exit_.code == 0 else ExitCode.USAGE
    except OSError as err:  # `--version` printed to a closed pipe or a full disk
        return _stdout_failed(err)
    from review_quorum.errors import QuorumError  # a command runs: it loads the errors anyway

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = int(args.run(args))
        except QuorumError as err:
            print(f"quorum: error: {err}", file=sys.stderr)
            status = ExitCode.USAGE
        except KeyboardInterrupt:
            print("quorum: interrupted", file=sys.stderr)
            status = ExitCode.INTERRUPTED
        except BrokenPipeError as err:
            status = _stdout_failed(err)
        except Exception as err:  # the last line of defence: a traceback only when asked
            _report_internal(err, args.debug or os.environ.get("QUORUM_DEBUG", "") not in ("", "0"))
            status = ExitCode.INTERNAL
    for warning in caught:
        print(f"quorum: warning: {warning.message}", file=sys.stderr)
    return status


def _report_internal(err: Exception, debug: bool) -> None:
    """An internal error's message; with `debug`, its traceback first, for a bug report."""
    if debug:
        import traceback

        traceback.print_exception(err, file=sys.stderr)
        print(f"quorum: internal error: {type(err).__name__}: {err}", file=sys.stderr)
    else:
        print(
            f"quorum: internal error: {type(err).__name__}: {err} "
            "(run with --debug, or QUORUM_DEBUG=1, for the traceback)",
            file=sys.stderr,
        )


def _stdout_failed(err: OSError) -> ExitCode:
    """The status when standard output failed: a reader that closed the pipe has all it
    wanted, so quietly 141, as for a program SIGPIPE ends (`cat`, `yes`); anything else
    (a full disk) is an error naming the stream."""
    from review_quorum.cli.output import STDOUT, silence_stdout

    silence_stdout()
    if isinstance(err, BrokenPipeError):
        return ExitCode.BROKEN_PIPE
    print(f"quorum: error: {STDOUT}: cannot write: {err.strerror}", file=sys.stderr)
    return ExitCode.USAGE


def entry_point() -> None:
    """The `quorum` console script: run, flush the output, and leave at once.

    Commands keep what they built (`common.keep_until_exit`) and the process ends with
    `os._exit` after flushing, so a million findings are not freed one by one: the
    operating system takes the memory back whole.
    """
    keep_until_exit.enable()
    if sys.stderr is None:  # closed when quorum started (`2>&-`): nothing can be said
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open until the process ends)
    status = main(exiting=True)
    try:
        if sys.stdout is not None:  # None when closed at start (`>&-`): nothing to flush
            sys.stdout.flush()
    except OSError as err:  # what is still buffered meets a closed pipe or a full disk
        status = _stdout_failed(err)
    with contextlib.suppress(OSError):  # stderr gone too: nothing more can be said
        sys.stderr.flush()
    os._exit(status)
