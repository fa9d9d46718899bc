"""What every `quorum` command shares: exit codes, reading inputs, writing outputs, warnings.

This is the edge of the program: the only place (with the GitHub client) that touches
files, standard streams and the exit status.
"""

from __future__ import annotations

import argparse
import enum
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from review_quorum import ingest
from review_quorum.errors import InputError
from review_quorum.ingest.base import Batch, ReadOptions, Source
from review_quorum.ingest.categories import CategoryMap


class ExitCode(enum.IntEnum):
    """The exit statuses of `quorum`, as documented in the README."""

    OK = 0
    GATE_FAILED = 1
    USAGE = 2
    INTERNAL = 3


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """The finding-file arguments every command that reads findings accepts."""
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="FILE",
        help="finding files in any supported format ('-' reads standard input)",
    )
    parser.add_argument(
        "--input-format",
        choices=sorted(ingest.READERS),
        help="read every FILE in this format instead of detecting it from the content",
    )
    parser.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="read FILE and attribute every comment or finding in it to bot NAME (repeatable)",
    )
    parser.add_argument(
        "--root",
        help="repository root used to make absolute paths repository-relative",
    )
    parser.add_argument(
        "--include-humans",
        action="store_true",
        help="read GitHub comments by people as findings too (bots are always read)",
    )


def read_bytes(path: str) -> bytes:
    """The bytes of `path` ('-' for standard input), or `InputError` naming it."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "", "is a directory, not a file") from None
    except OSError as err:
        raise InputError(path, "", f"cannot read: {err.strerror}") from err


def parse_bot_override(value: str) -> tuple[str, str]:
    name, separator, path = value.partition("=")
    if not separator or not name.strip() or not path:
        raise InputError("--bot", "", f"expected NAME=FILE, not {value!r}")
    return name.strip(), path


PROGRESS_BYTES = 20_000_000


def load_inputs(
    args: argparse.Namespace,
    *,
    categories: CategoryMap | None = None,
    bot_logins: Mapping[str, str] | None = None,
) -> Batch:
    """Read every input the command line names, in order, into one batch.

    Long inputs (over `PROGRESS_BYTES` in all) show a progress bar when stderr is a TTY.
    """
    planned: list[tuple[str, str | None]] = [(path, None) for path in args.inputs]
    planned += [(path, name) for name, path in map(parse_bot_override, args.bot)]
    batch = Batch()
    with _progress(planned) as advance:
        for path, bot in planned:
            options = ReadOptions(
                bot=bot,
                root=args.root,
                categories=categories,
                include_humans=args.include_humans,
                bot_logins=bot_logins or {},
            )
            source = Source("<stdin>" if path == "-" else path, read_bytes(path), options)
            batch.extend(ingest.read(source, args.input_format))
            advance(path)
    return batch


@contextmanager
def _progress(planned: Sequence[tuple[str, str | None]]) -> Iterator[Callable[[str], None]]:
    if not sys.stderr.isatty() or _total_size(path for path, _ in planned) < PROGRESS_BYTES:
        yield lambda path: None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("reading inputs", total=len(planned))
        yield lambda path: bar.update(task, advance=1, description=f"read {Path(path).name}")


def _total_size(paths: Iterable[str]) -> int:
    total = 0
    for path in paths:
        with suppress(OSError):
            total += 0 if path == "-" else Path(path).stat().st_size
    return total


def write_output(text: str, output: str | None) -> None:
    """Write `text` to the file `output`, or to standard output."""
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(output, "", f"cannot write: {err.strerror}") from err


def warn(message: str) -> None:
    print(f"quorum: warning: {message}", file=sys.stderr)


def report_skipped(skipped: Sequence[object]) -> None:
    if skipped:
        count = len(skipped)
        warn(f"{count} input record{'s' if count != 1 else ''} skipped (listed in the output)")
