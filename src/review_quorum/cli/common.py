"""What every `quorum` command shares: exit codes, reading inputs, writing outputs, warnings.

This is the edge of the program: the only place (with the GitHub client, and `output`,
which writes files whole and standard output safely) that touches files, standard streams
and the exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, BinaryIO

import msgspec

from review_quorum import config, ingest
from review_quorum.cli import progress
from review_quorum.cli.exits import ExitCode as ExitCode
from review_quorum.cli.exits import keep_until_exit as keep_until_exit
from review_quorum.cli.output import print_chunks, print_text, write_file
from review_quorum.errors import InputError, Skipped, UsageError, shown
from review_quorum.ingest.base import Batch, ReadOptions, Source, path_text
from review_quorum.ingest.categories import CategoryMap
from review_quorum.ingest.paths import outside_repository
from review_quorum.markup.escape import one_line
from review_quorum.model import ConsensusLevel
from review_quorum.scoring import MODELS
from review_quorum.scoring.profile import Profile

if TYPE_CHECKING:
    from review_quorum.scoring.confidence.attach import AttachedVerdictInput

GATE_LEVELS = ["confirmed", "needs-verification", "unverified", "none"]


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
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept no input files, or files of which nothing could be read (an empty review)",
    )


MAX_INPUT_BYTES = 1 << 30
"""The largest input read (1 GiB, four times a million native findings): what stops an
endless stream (``/dev/zero``, a pipe that never closes) with an error, not MemoryError."""
_CHUNK = 1 << 20


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of `path` ('-' for standard input), or `InputError` naming it; at most
    `limit` (default `MAX_INPUT_BYTES`) bytes, read in chunks from a pipe or device."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    try:
        if path == "-":
            return _read_bounded(sys.stdin.buffer, "<stdin>", limit)
        file = path_text(path)  # as pathlib would open it ("x/" is "x")
        if os.path.isfile(file):  # its size is known: read at once, without a second copy
            if os.stat(file).st_size > limit:
                raise _too_large(path, limit)
            with open(file, "rb") as stream:
                return stream.read()
        with open(file, "rb") as stream:
            return _read_bounded(stream, path, limit)
    except FileNotFoundError:
        raise InputError(path, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "", "is a directory, not a file") from None
    except OSError as err:
        raise InputError(path, "", f"cannot read: {err.strerror}") from err


def _read_bounded(stream: BinaryIO, name: str, limit: int) -> bytes:
    buffer = bytearray()
    while chunk := stream.read(min(_CHUNK, limit + 1 - len(buffer))):
        buffer += chunk
        if len(buffer) > limit:
            raise _too_large(name, limit)
    return bytes(buffer)


def _too_large(name: str, limit: int) -> InputError:
    return InputError(name, "", f"more than {limit:,} bytes: quorum reads no more from one input")


def parse_bot_override(value: str) -> tuple[str, str]:
    name, separator, path = value.partition("=")
    if not separator or not name.strip() or not path:
        raise InputError("--bot", "", f"expected NAME=FILE, not {value!r}")
    return name.strip(), path


class InputFiles(msgspec.Struct, frozen=True):
    """The finding files a command reads (FILE arguments, then each `--bot NAME=FILE`)
    and how to read them, taken from the command line once."""

    paths: tuple[str, ...] = ()
    bot_files: tuple[str, ...] = ()  # `--bot NAME=FILE` as given
    input_format: str | None = None
    root: str | None = None
    include_humans: bool = False
    allow_empty: bool = False
    own_login: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, root: str | None = None) -> InputFiles:
        """The inputs a parsed command line names; `root` when `--root` is not given."""
        return cls(
            paths=tuple(args.inputs),
            bot_files=tuple(args.bot),
            input_format=args.input_format,
            root=args.root if args.root is not None else root,
            include_humans=args.include_humans,
            allow_empty=args.allow_empty,
            own_login=getattr(args, "bot_login", None),  # `quorum review` only
        )


class PullSource(msgspec.Struct, frozen=True):
    """The pull request `quorum review` reads comments from, taken from the command line
    once: the services asked for (``--github``, ``--gitlab``, ``--azure-devops``,
    ``--bitbucket``; ``--wait-for`` alone implies ``--github``) and how to name and wait
    for it."""

    services: tuple[str, ...] = ()
    repo: str | None = None
    pr: int | None = None
    project: str | None = None
    mr: int | None = None
    organization: str | None = None
    wait_for: str | None = None
    wait_timeout: float | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> PullSource:
        gitlab = bool(getattr(args, "gitlab", False))
        asked = (
            ("--github", bool(args.github or (args.wait_for and not gitlab))),
            ("--gitlab", gitlab),
            ("--azure-devops", bool(getattr(args, "azure_devops", False))),
            ("--bitbucket", bool(getattr(args, "bitbucket", False))),
        )
        return cls(
            services=tuple(flag for flag, wanted in asked if wanted),
            repo=args.repo,
            pr=args.pr,
            project=args.project,
            mr=args.mr,
            organization=getattr(args, "organization", None),
            wait_for=args.wait_for,
            wait_timeout=args.wait_timeout,
        )

    def wants(self, service: str) -> bool:
        return service in self.services


def load_inputs(
    files: InputFiles,
    *,
    categories: CategoryMap | None = None,
    bot_logins: Mapping[str, str] | None = None,
    elsewhere: bool = False,
) -> Batch:
    """Read every input the command line names, in order, into one batch.

    Without `--allow-empty`, a command line naming no input (and no other source of
    findings: `elsewhere`, such as `--github`) is a `UsageError`, and inputs
    of which nothing could be read (no finding, and records that are broken rather than
    deliberately no finding) an `InputError` naming the first broken record: a typo in a
    path glob or a wrongly forced `--input-format` must not pass a gate as an empty review.
    Long inputs show progress (`progress.reading`). The pull request's comment files
    (GitHub's three endpoints, say) are read as one input where the first of them stands,
    so a summary's copy of an inline comment counts the same whether they were merged
    first (``jq -s add``) or not.
    """
    planned: list[tuple[str, str | None]] = [(path, None) for path in files.paths]
    planned += [(path, name) for name, path in map(parse_bot_override, files.bot_files)]
    if not planned and not elsewhere and not files.allow_empty:
        raise UsageError(
            "no input files: name at least one FILE (or --bot NAME=FILE), "
            "or pass --allow-empty for an empty review"
        )
    parts: list[Batch] = []
    comments: list[Source] = []  # the pull request's comment files, read as one input
    comments_at = 0
    with progress.reading(path for path, _ in planned) as advance:
        for path, bot in planned:
            options = ReadOptions(
                bot=bot,
                root=files.root,
                categories=categories,
                include_humans=files.include_humans,
                bot_logins=bot_logins or {},
                own_login=files.own_login,
            )
            source = Source("<stdin>" if path == "-" else path, read_bytes(path), options)
            format = files.input_format or ingest.detect_format(source)
            if format == COMMENTS and bot is None:
                comments_at = comments_at if comments else len(parts)
                comments.append(source)
            else:
                parts.append(ingest.read(source, format))
                source.release()  # its findings are read: its bytes and document can go
            del source
            advance(path)
    if comments:
        from review_quorum.ingest.github_comments import read_together  # comments given

        parts.insert(comments_at, read_together(comments))
    batch = Batch()
    readable = not planned
    for read in parts:
        readable = readable or bool(read.findings) or _nothing_broken(read.skipped)
        batch.extend(read)
    if not readable and not files.allow_empty:
        raise _unreadable(batch.skipped)
    _warn_outside(batch)
    return batch


COMMENTS = "github-comments"


def _warn_outside(batch: Batch) -> None:
    """Warn about findings whose path cannot be in the repository (absolute, ``../``, a URL
    or a UNC path): kept, and like any file the diff does not touch, outside the diff."""
    files = {finding.evidence.file for finding in batch.findings}
    outside = {file for file in files if outside_repository(file)}
    if outside:
        count = sum(finding.evidence.file in outside for finding in batch.findings)
        warn(
            f"{count} finding{'s' if count != 1 else ''} name{'' if count != 1 else 's'} a path "
            f"outside the repository (absolute, ../, URL or UNC), such as "
            f"{one_line(min(outside))!r}: no pull request changes such a file, so the diff "
            "scope treats them as outside the diff (pass --root to make absolute paths relative)"
        )


def _nothing_broken(skipped: Sequence[Skipped]) -> bool:
    return all(record.not_a_finding for record in skipped)


def _unreadable(skipped: Sequence[Skipped]) -> InputError:
    broken = [record for record in skipped if not record.not_a_finding]
    first, rest = broken[0], broken[1:]
    more = "".join(f"\n  {record.describe()}" for record in rest[:SHOWN_SKIPPED])
    if len(rest) > SHOWN_SKIPPED:
        more += f"\n  ... and {len(rest) - SHOWN_SKIPPED} more"
    message = (
        f"{first.reason}\nno finding could be read from any input file "
        f"({len(broken)} broken record{'s' if len(broken) != 1 else ''}); "
        f"pass --allow-empty to accept an empty review{more}"
    )
    return InputError(first.source, first.position, message)


SHOWN_SKIPPED = 5


def write_output(text: str, output: str | None) -> None:
    """Write `text` to the file `output` (whole or not at all), or to standard output."""
    if output is None or output == "-":
        print_text(text)
    else:
        write_file(output, [text.encode()])


def write_chunks(chunks: Iterable[bytes | memoryview], output: str | None) -> None:
    """Write UTF-8 `chunks` as they come to the file `output`, or to standard output."""
    if output is None or output == "-":
        print_chunks(chunks)
    else:
        write_file(output, chunks)


def warn(message: str) -> None:
    progress.note(f"warning: {message}")  # clears a progress line first


def report_skipped(skipped: Sequence[object]) -> None:
    if skipped:
        count = len(skipped)
        warn(f"{count} input record{'s' if count != 1 else ''} skipped (listed in the output)")


HELP = {
    "line-window": "findings this many lines apart or closer can be one issue (default 3)",
    "title-overlap": "share of title words two line-less findings must share, 0-1 (default 0.5)",
    "order": "list findings in input order or sorted by file and line (default input)",
    "gate-level": "exit 1 when a finding is at or above this level (default confirmed)",
    "filter-mode": "which findings the diff keeps: on added lines, near them, in changed "
    "files, or all (default added)",
    "context-lines": "with --filter-mode diff_context, lines around a change (default 3)",
    "inline-level": "lowest consensus level posted inline (default confirmed)",
}
"""Help texts of the flags `consensus` and `review` share (their defaults differ in kind)."""


MAX_NUMBER = 2**31 - 1
"""The largest pull request or merge request number: GitHub's GraphQL `Int` is 32-bit."""


def request_number(what: str) -> Callable[[str], int]:
    """An argparse type for a pull or merge request number, 1 to `MAX_NUMBER`."""

    def number(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_NUMBER:
            raise argparse.ArgumentTypeError(
                f"expected a {what} from 1 to {MAX_NUMBER}, not {shown(text)}"
            )
        return int(text)

    return number


def login(text: str) -> str:
    """An argparse type for a login: one word, no control or invisible characters."""
    if not text or not text.isprintable() or any(char.isspace() for char in text):
        raise argparse.ArgumentTypeError(
            f"expected a login (one word, no spaces, newlines or control characters), "
            f"not {shown(text)}"
        )
    return text


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, not {value}")
    return value


def fraction(text: str) -> float:
    """A number from 0 to 1 (`--title-overlap`: a share of words two titles have in common)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, not {text!r}")
    return value


def resolve_bots(value: str | None, seen: set[str]) -> int | None:
    """`--bots` as a count; warns when it is absent or names fewer bots than were seen.

    A count is a whole number from 1 to `MAX_BOTS`; names are a comma-separated list with
    no empty or numeric entry. Anything else (`-2`, `a,,b`, `2.5`, `10**23`) is a
    `UsageError`: a gate that misreads its bot count passes or fails for the wrong reason.
    """
    if value is None:
        if seen:
            warn(
                "--bots not given: agreement is measured against the "
                f"{len(seen)} bot(s) with findings only, which over-states it"
            )
        return None
    try:
        bots = config.check_bots(value)
    except ValueError as err:
        raise UsageError(f"--bots: {err}") from None
    if isinstance(bots, int):
        return bots
    missing = sorted(seen - set(bots))
    if missing:
        warn(f"--bots does not list {', '.join(one_line(name) for name in missing)}")
    return max(len(set(bots) | seen), 1)


def gate_level(value: str) -> ConsensusLevel | None:
    return None if value == "none" else ConsensusLevel.parse(value)


def add_model_arguments(parser: argparse.ArgumentParser, *, default: str | None) -> None:
    """`--model` and `--profile`, shared by every command that scores consensus."""
    parser.add_argument(
        "--model",
        choices=MODELS,
        default=default,
        help="scoring model: reliability (probability from each source's reliability) "
        "or agreement (seed 001: share of bots that agree)",
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="reliability profile (JSON) for the reliability model; default: the shipped one",
    )


def load_profile(path: str | None) -> Profile | None:
    """The profile at `path`, or None for the shipped default."""
    if path is None:
        return None
    name = "<stdin>" if path == "-" else path
    source = Source(name, read_bytes(path))  # as inputs are read
    source.text()  # bytes that are not UTF-8: an error at their line and column
    return Profile.from_json(source.data, name)


def load_verdicts(path: str | None) -> list[AttachedVerdictInput]:
    """The verifier verdicts in the file `--verdicts` names (none without it), for
    `quorum review` and `quorum post` alike."""
    from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
    from review_quorum.scoring.confidence.verdicts import parse_verifier_output

    if path is None:
        return []
    source = Source(path, read_bytes(path))
    verdicts = []
    for index, record in parse_verifier_output(source.json(), path):
        verdict = AttachedVerdict(
            verdict=record["verdict"],
            severity=record["severity"],
            evidence_strength=record["evidence_strength"],
            context_completeness=record["context_completeness"],
            in_changed_code=record["in_changed_code"],
            issue=record.get("issue", ""),
            details=record.get("details", ""),
            source=path,
            position=f"/verdicts/{index}",
        )
        verdicts.append(AttachedVerdictInput(record["file"], record["line"], verdict))
    return verdicts
