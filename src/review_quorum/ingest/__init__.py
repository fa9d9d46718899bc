"""Input readers: one module per format, a literal registry, and detection by content.

`read(source, format=None)` reads one input; with no format it asks each reader in
registry order whether the content is its own (specific formats first, then the generic
native JSON, and free text as the fallback for content that is not JSON or XML). Adding
a format means adding one module, a loader and one line here. A reader's module is
imported by its loader when the reader is first asked to detect or read, so a run that
reads SARIF never loads the bot readers; the loaders are plain imports, so mypy checks
every entry of the registry.
"""

from __future__ import annotations

from collections.abc import Callable

from review_quorum.errors import InputError, json_type, shown
from review_quorum.ingest.base import Batch, Reader, ReadOptions, Source


class _OnFirstUse:
    """The reader `load` returns, loaded (and its module imported) on first use.

    `starts`, when given, is how every input the reader claims begins (after the
    byte-order mark and leading space, as `Source.head` gives it): detection of anything
    else answers no without importing the module (XML parsing costs start-up otherwise).
    """

    __slots__ = ("_load", "_reader", "_starts", "name")

    def __init__(self, name: str, load: Callable[[], Reader], starts: str = "") -> None:
        self.name = name
        self._load = load
        self._reader: Reader | None = None
        self._starts = starts

    def _loaded(self) -> Reader:
        if self._reader is None:
            self._reader = self._load()
        return self._reader

    def detect(self, source: Source) -> bool:
        if self._starts and not source.head().startswith(self._starts):
            return False
        return self._loaded().detect(source)

    def read(self, source: Source) -> Batch:
        return self._loaded().read(source)


# One loader per reader: each imports its module when called, and mypy checks the module
# and the reader it names, so a renamed module or reader fails the type check.
def _sarif() -> Reader:
    from review_quorum.ingest import sarif

    return sarif.READER


def _rdjson() -> Reader:
    from review_quorum.ingest import rdjson

    return rdjson.RDJSON


def _rdjsonl() -> Reader:
    from review_quorum.ingest import rdjson

    return rdjson.RDJSONL


def _gitlab() -> Reader:
    from review_quorum.ingest import gitlab

    return gitlab.READER


def _checkstyle() -> Reader:
    from review_quorum.ingest import checkstyle

    return checkstyle.READER


def _github_comments() -> Reader:
    from review_quorum.ingest import github_comments

    return github_comments.READER


def _native() -> Reader:
    from review_quorum.ingest import native

    return native.READER


def _freetext() -> Reader:
    from review_quorum.ingest import freetext

    return freetext.READER


READERS: dict[str, Reader] = {
    "sarif": _OnFirstUse("sarif", _sarif),
    "rdjson": _OnFirstUse("rdjson", _rdjson),
    "rdjsonl": _OnFirstUse("rdjsonl", _rdjsonl),
    "gitlab": _OnFirstUse("gitlab", _gitlab),
    "checkstyle": _OnFirstUse("checkstyle", _checkstyle, starts="<"),  # its detect needs "<"
    "github-comments": _OnFirstUse("github-comments", _github_comments),
    "native": _OnFirstUse("native", _native),
    "freetext": _OnFirstUse("freetext", _freetext),
}


def detect_format(source: Source) -> str:
    """The registry name of the format `source` is written in, judged by content.

    When no reader claims it, `InputError` says where the content goes wrong: the line
    and column of broken JSON or text that is not UTF-8, the member a JSON document lacks.
    """
    for name, reader in READERS.items():
        if reader.detect(source):
            return name
    raise _undetected(source)


def _undetected(source: Source) -> InputError:
    choices = f"pass --input-format ({', '.join(READERS)})"
    head = source.head(8)
    if head.startswith(("{", "[")):
        document = source.json()  # raises with the line and column where the JSON breaks
        where, what = _json_shape(document)
        return InputError(source.name, where, f"{what}; {choices}")
    if head.startswith("<"):
        what = "XML whose root element is not <checkstyle>"
        return InputError(source.name, "line 1", f"{what}; {choices}")
    source.text()  # raises with the line and column where the text is not UTF-8
    what = (
        "no line looks like a finding ('[high] path:line message') and it is not JSON "
        "or XML; pass --input-format freetext to read it as a review without findings"
    )
    return InputError(source.name, "line 1", what)


def _json_shape(document: object) -> tuple[str, str]:
    """Where a JSON object or array departs from every format, and how."""
    if isinstance(document, dict):
        for key, format_name in (("runs", "SARIF"), ("diagnostics", "rdjson")):
            if key in document:
                actual = json_type(document[key])
                return f"/{key}", f"expected an array of {key} ({format_name}), not {actual}"
        return "/", "a JSON object with neither 'runs' (SARIF) nor 'diagnostics' (rdjson)"
    first = document[0] if isinstance(document, list) and document else None
    what = f"an array of items in no format quorum reads (the first is {shown(first)})"
    return "/0", what


def read(source: Source, format: str | None = None) -> Batch:
    """Every finding in `source`, in the given format or the detected one."""
    name = format or detect_format(source)
    reader = READERS.get(name)
    if reader is None:
        raise InputError(source.name, "", f"unknown input format {name!r}")
    return reader.read(source)


__all__ = ["READERS", "Batch", "ReadOptions", "Reader", "Source", "detect_format", "read"]
