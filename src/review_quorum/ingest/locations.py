"""Locations written in text: ``src/a.py:42``, ``a.py:3-5``, ``a.py#L3-L5``, ``Dockerfile``.

Reviewers and bots name files in prose and code spans. A token is a location when it has a
``/`` or a known source extension (so ``os.path``, dates and version numbers are not
files), optionally followed by ``:line``, ``:a-b``, ``:line:column`` or ``#La-Lb``. This
module imports nothing from the readers, so every reader can use it.
"""

from __future__ import annotations

import functools
import re

_EXTENSION_WORDS = (
    "py pyi pyx js jsx mjs cjs ts tsx mts cts vue svelte go rs java kt kts scala groovy c "
    "h cc cpp cxx hpp hh hxx cs fs vb rb php swift m mm dart lua pl pm r jl ex exs erl "
    "hrl hs ml mli clj cljs elm sh bash zsh fish ps1 bat cmd sql html htm css scss sass "
    "less json jsonc yaml yml toml ini cfg conf xml proto graphql gql tf tfvars hcl md "
    "mdx rst txt gradle cmake mk dockerfile lock env nix zig sol"
)
SOURCE_EXTENSIONS = frozenset(_EXTENSION_WORDS.split())
SOURCE_NAMES = frozenset(["Dockerfile", "Makefile", "Containerfile", "Jenkinsfile", "Gemfile"])


@functools.cache
def _location() -> re.Pattern[str]:
    """A path with its line or span, as text names one (compiled on first use: the
    largest pattern of the readers, which comments with a position never need)."""
    return re.compile(
        r"([^\s:#`'\"()\[\]<>,;]{1,1024})"
        r"(?::(\d{1,9})(?:[-–](\d{1,9}))?(?::\d{1,9})?|#L(\d{1,9})(?:-L?(\d{1,9}))?)?:?"
    )


_TOKEN_EDGES = "`'\"()[]<>,;*"
_DIGITS = re.compile(r"\d{1,9}")


def line_span(
    start: str | int | None, end: str | int | None = None
) -> tuple[int | None, int | None]:
    """A (line, end_line) pair from text or numbers; nonsense gives no line, not an error."""
    first = _positive(start)
    if first is None:
        return None, None
    last = _positive(end)
    return first, last if last is not None and last > first else None


def _positive(value: str | int | None) -> int | None:
    if isinstance(value, str):
        value = int(value) if _DIGITS.fullmatch(value) else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def source_location(token: str) -> tuple[str, int | None, int | None] | None:
    """(path, line, end_line) when `token` names a source file (``src/a.py:3-5``,
    ``a.py#L3``, ``Dockerfile``), else None."""
    token = token.strip(_TOKEN_EDGES).replace("\\", "/")
    match = _location().fullmatch(token)
    if match is None:
        return None
    path = match.group(1).removeprefix("./")
    if not _is_source_path(path):
        return None
    line, end_line = line_span(match.group(2) or match.group(4), match.group(3) or match.group(5))
    return path, line, end_line


def _is_source_path(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    if not any(char.isalpha() for char in name):
        return False  # "2024/01/02", "1.2.3"
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return "/" in path or extension in SOURCE_EXTENSIONS or name in SOURCE_NAMES
