"""Input readers: one module per format, a literal registry, and detection by content.

`read(source, format=None)` reads one input; with no format it asks each reader in
registry order whether the content is its own (specific formats first, then the generic
native JSON, and free text as the fallback for content that is not JSON or XML). Adding
a format means adding one module and one line here.
"""

from __future__ import annotations

from review_quorum.errors import InputError
from review_quorum.ingest import (
    checkstyle,
    freetext,
    github_comments,
    gitlab,
    native,
    rdjson,
    sarif,
)
from review_quorum.ingest.base import Batch, Reader, ReadOptions, Source

READERS: dict[str, Reader] = {
    "sarif": sarif.READER,
    "rdjson": rdjson.RDJSON,
    "rdjsonl": rdjson.RDJSONL,
    "gitlab": gitlab.READER,
    "checkstyle": checkstyle.READER,
    "github-comments": github_comments.READER,
    "native": native.READER,
    "freetext": freetext.READER,
}


def detect_format(source: Source) -> str:
    """The registry name of the format `source` is written in, judged by content."""
    for name, reader in READERS.items():
        if reader.detect(source):
            return name
    raise InputError(
        source.name,
        "",
        "cannot tell the input format from the content; "
        f"pass --input-format ({', '.join(READERS)})",
    )


def read(source: Source, format: str | None = None) -> Batch:
    """Every finding in `source`, in the given format or the detected one."""
    name = format or detect_format(source)
    reader = READERS.get(name)
    if reader is None:
        raise InputError(source.name, "", f"unknown input format {name!r}")
    return reader.read(source)


__all__ = ["READERS", "Batch", "ReadOptions", "Reader", "Source", "detect_format", "read"]
