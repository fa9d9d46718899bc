"""Input readers: one module per format, a literal registry, and detection by content.

`read(source, format=None)` reads one input; with no format it asks each reader in
registry order whether the content is its own (specific formats first, then the generic
native JSON, and free text as the fallback for content that is not JSON or XML). Adding
a format means adding one module and one line here. A reader's module is imported when it
is first asked to detect or read: a run that reads SARIF never loads the bot readers.
"""

from __future__ import annotations

import importlib

from review_quorum.errors import InputError, json_type, shown
from review_quorum.ingest.base import Batch, Reader, ReadOptions, Source


class _OnFirstUse:
    """The reader `attribute` of module `ingest.<module>`, imported on first use."""

    __slots__ = ("_attribute", "_module", "_reader", "name")

    def __init__(self, name: str, module: str, attribute: str = "READER") -> None:
        self.name = name
        self._module = module
        self._attribute = attribute
        self._reader: Reader | None = None

    def _loaded(self) -> Reader:
        if self._reader is None:
            module = importlib.import_module(f"review_quorum.ingest.{self._module}")
            self._reader = getattr(module, self._attribute)
        return self._reader

    def detect(self, source: Source) -> bool:
        return self._loaded().detect(source)

    def read(self, source: Source) -> Batch:
        return self._loaded().read(source)


READERS: dict[str, Reader] = {
    "sarif": _OnFirstUse("sarif", "sarif"),
    "rdjson": _OnFirstUse("rdjson", "rdjson", "RDJSON"),
    "rdjsonl": _OnFirstUse("rdjsonl", "rdjson", "RDJSONL"),
    "gitlab": _OnFirstUse("gitlab", "gitlab"),
    "checkstyle": _OnFirstUse("checkstyle", "checkstyle"),
    "github-comments": _OnFirstUse("github-comments", "github_comments"),
    "native": _OnFirstUse("native", "native"),
    "freetext": _OnFirstUse("freetext", "freetext"),
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
