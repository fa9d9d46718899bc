"""Repeated keys in a JSON object, refused where the repeat would replace findings.

JSON leaves an object with a repeated key to the reader, and orjson, msgspec and the
standard library keep the last value without a word: ``{"runs": [...], "runs": []}``
reads as a log with no results. Each reader names the objects whose keys hold or make
its findings (`Shape`: the SARIF log and its runs, each native record, ...), and pays for
an exact check only when a cheap screen cannot rule a repeat out.

The screen (`may_repeat`) compares, for each key K that matters, how often the bytes
``"K"`` occur in the document with how many of the parsed document's objects that matter
hold K. It is sound, so it never lets a repeat through:

- A key is a JSON string, so a key token that reads as K is the bytes ``"K"`` unless it
  is written with an escape. The keys checked are made of ASCII letters, digits, ``_``
  and ``$``, which JSON can only escape as ``\\u00XX``; when the document holds no
  backslash, or no such escape of a character of the keys, every token that reads as K
  is the bytes ``"K"``. Otherwise the screen cannot rule a repeat out.
- Tokens do not overlap (``"K"`` holds no other quote), so an object that holds K counts
  at least once, and an object that repeats it at least twice: with n such objects and a
  repeat, the bytes hold ``"K"`` at least n + 1 times.
- A key is followed by a colon (after optional white space): when ``"K"`` occurs more
  often than that, only its occurrences followed by a colon are counted, so K as a string
  value (``"subject_type": "line"`` in every GitHub review comment) does not defeat the
  screen.

So a count at or below what was parsed proves there is no repeat. Other occurrences (K
as a string value, in a property bag, in an object replaced by a repeat higher up) only
raise the count: the screen then parses again, never errs. `repeated_key` is that exact
check: it walks the objects that matter in the document's text (everything else is
skipped by the standard library's C scanner) and names the first repeat with its line
and column.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from json import decoder, scanner

from review_quorum.errors import InputError
from review_quorum.ingest.base import pointer

EACH = -1
"""In a `Shape`'s path: every element of an array."""

Step = str | int
# The standard library's C scanner: a value, or a string's rest, and where it ends.
_SCAN: Callable[[str, int], tuple[object, int]] = scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_STRING: Callable[[str, int], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")
_KEY = re.compile(r"[A-Za-z0-9_$]+")
_DENSE = 16  # escapes looked at one by one between two looks at how dense they are


class Shape:
    """The objects whose keys matter, each as a path from the document: keys, or `EACH`
    for every element of an array (``("runs", EACH)`` is every run of a SARIF log), and
    the keys whose repeat in them is an error (`keys`); `everywhere` makes every key of
    every object matter."""

    def __init__(
        self, *paths: tuple[Step, ...], keys: Iterable[str] = (), everywhere: bool = False
    ) -> None:
        self.paths, self.keys, self.everywhere = paths, frozenset(keys), everywhere

    def matters(self, path: tuple[Step, ...]) -> bool:
        return self.everywhere or any(
            len(shape) == len(path) and _along(shape, path) for shape in self.paths
        )

    def leads(self, path: tuple[Step, ...]) -> bool:
        """Whether an object that matters is at `path` or inside what is there."""
        return self.everywhere or any(
            len(shape) >= len(path) and _along(shape, path) for shape in self.paths
        )

    def checks(self, key: str) -> bool:
        return self.everywhere or key in self.keys


def _along(shape: tuple[Step, ...], path: tuple[Step, ...]) -> bool:
    for want, step in zip(shape, path, strict=False):
        if want != step and not (want == EACH and isinstance(step, int)):
            return False
    return True


def may_repeat(data: bytes, most: Mapping[str, int]) -> bool:
    """False when no object that matters can repeat a key of `most`, whose values are
    how many objects that matter hold each key in the parsed document (a lower figure
    is safe: it only sends more documents to `repeated_key`)."""
    for key, count in most.items():
        token = b'"' + key.encode() + b'"'
        if data.count(token) > count and len(_as_key(token).findall(data)) > count:
            return True
    return b"\\" in data and _escaped(data, frozenset(most))


@lru_cache(maxsize=16)
def _as_key(token: bytes) -> re.Pattern[bytes]:
    """`token` where it is followed by a colon, as a key always is: the same word as a
    value (GitHub's ``"subject_type": "line"`` beside its ``"line"`` key) is not one."""
    return re.compile(re.escape(token) + rb"[ \t\n\r]*:")


def _escaped(data: bytes, keys: frozenset[str]) -> bool:
    """Whether `data` holds a ``\\u00XX`` escape of a character of `keys`. Each escape
    is looked at in turn while they are sparse (most files have none, or a few accented
    letters): one costs about what searching a kilobyte with the regular expression does.
    Once `_DENSE` escapes in a row come more often than one per kilobyte, the rest is
    searched by the regular expression, which then costs less."""
    codes = _codes(keys)
    at = since = data.find(b"\\u00")
    looked = 0
    while at >= 0:
        if data[at + 4 : at + 6].lower() in codes:
            return True
        looked += 1
        if looked % _DENSE == 0:
            if at - since < _DENSE << 10:
                return _escape(keys).search(data, at) is not None
            since = at
        at = data.find(b"\\u00", at + 4)
    return False


@lru_cache(maxsize=16)
def _codes(keys: frozenset[str]) -> frozenset[bytes]:
    """The two hex digits (lower case) of each character in `keys`."""
    codes: set[bytes] = set()
    for key in keys:
        if not _KEY.fullmatch(key):
            raise ValueError(f"a checked key is letters, digits, _ and $: {key!r}")
        codes.update(f"{ord(character):02x}".encode() for character in key)
    return frozenset(codes)


@lru_cache(maxsize=16)
def _escape(keys: frozenset[str]) -> re.Pattern[bytes]:
    """The ``\\u00XX`` escapes of the characters in `keys`, hex digits in either case."""
    cased = (
        "".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in code.decode())
        for code in _codes(keys)
    )
    return re.compile(rb"\\u00(?:" + "|".join(sorted(cased)).encode() + rb")")


def held(records: Iterable[object], keys: Iterable[str]) -> dict[str, int]:
    """How many of `records` (parsed JSON) are objects holding each of `keys`."""
    counts = dict.fromkeys(keys, 0)
    for record in records:
        if isinstance(record, dict):
            for key in counts:
                counts[key] += key in record
    return counts


def check_everywhere(name: str, data: bytes) -> None:
    """`InputError` at the first repeated key in any object of the document (for files
    quorum writes itself, which never repeat one). The standard library's C scanner
    looks for a repeat first; only a document that has one is walked for its place."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        made = dict(items)
        if len(made) != len(items):
            raise _Repeat("", 0, ())
        return made

    try:
        json.loads(data, object_pairs_hook=pairs)
    except _Repeat:
        error = repeated_key(name, data, Shape(everywhere=True))
        if error is not None:
            raise error from None
    except (ValueError, RecursionError):  # broken JSON is reported by the reader itself
        pass


def check(
    name: str, data: bytes, shape: Shape, most: Mapping[str, int], *, pages: bool = False
) -> None:
    """`InputError` at the first repeat in an object of `shape`, when the screen
    cannot rule one out (`pages` as for `repeated_key`)."""
    if may_repeat(data, most):
        error = repeated_key(name, data, shape, pages=pages)
        if error is not None:
            raise error


def check_lines(name: str, data: bytes, most: Mapping[str, int]) -> None:
    """The same for JSON Lines, each line one object that matters."""
    if not may_repeat(data, most):
        return
    top = Shape((), keys=most)
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            error = repeated_key(name, line, top, number)
            if error is not None:
                raise error


class _Repeat(Exception):
    def __init__(self, key: str, at: int, path: tuple[Step, ...]) -> None:
        self.key, self.at, self.path = key, at, path


def repeated_key(
    name: str, data: bytes, shape: Shape, line: int = 1, *, pages: bool = False
) -> InputError | None:
    """The error for the first repeated key (in document order) in an object of `shape`,
    at the line and column of the repeat; None when there is none or `data` is not JSON
    (the reader reports broken JSON itself). `line` numbers the first line of `data`;
    with `pages`, `data` is JSON values one after another (``gh api --paginate``), the
    path of each starting with its number, as if they were one array."""
    try:
        text = data.decode("utf-8")
        walk = _Walk(text, shape)
        at = walk.value(0, (0,) if pages else ())
        for number in itertools.count(1) if pages else ():
            at = _between_pages().match(text, at).end()  # type: ignore[union-attr]
            if at >= len(text):
                break
            at = walk.value(at, (number,))
    except _Repeat as repeat:
        start = text.rfind("\n", 0, repeat.at) + 1
        where = f"line {line + text.count(chr(10), 0, start)} column {repeat.at - start + 1}"
        return InputError(name, where, _message(repeat.key, repeat.path))
    except (ValueError, StopIteration, IndexError, RecursionError):
        return None
    return None


@cache
def _between_pages() -> re.Pattern[str]:
    """What may stand between two pages (compiled for the first paginated file)."""
    return re.compile(r"[ \t\n\r\ufeff]*")


def _message(key: str, path: tuple[Step, ...]) -> str:
    return (
        f"key {json.dumps(key, ensure_ascii=False)} appears more than once in the object at "
        f"{pointer(*path)}; JSON readers keep only the last, so what the first holds would "
        "be lost without a word: remove the repeat"
    )


class _Walk:
    """The document's text walked along the objects of a `Shape`."""

    def __init__(self, text: str, shape: Shape) -> None:
        self.text, self.shape = text, shape

    def space(self, at: int) -> int:
        found = _SPACE.match(self.text, at)
        return found.end() if found else at

    def value(self, at: int, path: tuple[Step, ...]) -> int:
        at = self.space(at)
        opening = self.text[at : at + 1]
        if self.shape.leads(path):
            if opening == "{":
                return self.members(at + 1, path)
            if opening == "[":
                return self.elements(at + 1, path)
        elif opening == "[":  # skipped an element at a time: no big array is ever built
            return self.elements(at + 1, None)
        return _SCAN(self.text, at)[1]

    def members(self, at: int, path: tuple[Step, ...]) -> int:
        text, seen = self.text, set[str]()
        check = self.shape.matters(path)
        at = self.space(at)
        if text[at] == "}":
            return at + 1
        while True:
            if text[at] != '"':
                raise ValueError("a key is a string")
            key, end = _STRING(text, at + 1)
            if check and self.shape.checks(key):
                if key in seen:
                    raise _Repeat(key, at, path)
                seen.add(key)
            end = self.space(end)
            if text[end] != ":":
                raise ValueError("a colon follows a key")
            at = self.space(self.value(end + 1, (*path, key)))
            if text[at] == "}":
                return at + 1
            if text[at] != ",":
                raise ValueError("a comma separates members")
            at = self.space(at + 1)

    def elements(self, at: int, path: tuple[Step, ...] | None) -> int:
        """The end of an array; None for `path`: nothing in it matters."""
        text = self.text
        at = self.space(at)
        if text[at] == "]":
            return at + 1
        for index in itertools.count():
            if path is None:
                at = self.space(_SCAN(text, self.space(at))[1])
            else:
                at = self.space(self.value(at, (*path, index)))
            if text[at] == "]":
                return at + 1
            if text[at] != ",":
                raise ValueError("a comma separates elements")
            at += 1
        raise AssertionError("unreachable")  # pragma: no cover
