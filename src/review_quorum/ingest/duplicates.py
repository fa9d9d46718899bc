"""Duplicate keys in a JSON object: found where they would replace findings.

JSON leaves an object with a repeated key to the reader, and orjson and msgspec keep the
last value silently: ``{"runs": [...], "runs": []}`` would read as a log with no results.
The readers do not pay for a second parse to rule this out. Each notices cheaply that
something was dropped (the SARIF fast path counts the runs and results it decoded against
those it kept; the other paths count the key where it is repeated), and only then is the
document parsed again here, keeping every key, to say which object repeats which key.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from review_quorum.errors import InputError
from review_quorum.ingest.base import pointer

Path = tuple[str | int, ...]


def duplicate_error(
    name: str, data: bytes, matters: Callable[[Path], bool], depth: int
) -> InputError | None:
    """The error for the first object of `data` (in document order), at most `depth` levels
    down, that repeats a key and for whose path `matters` is true, or None when there is
    none (or `data` is not JSON)."""
    repeated: dict[int, str] = {}
    kept: list[dict[str, object]] = []  # alive, so that no other object reuses their ids

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        made = dict(items)
        if len(made) != len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    repeated[id(made)] = key
                    kept.append(made)
                    break
                seen.add(key)
        return made

    try:
        text = data.decode("utf-8-sig")
        document = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):  # broken JSON is reported by the reader itself
        return None
    if not repeated:
        return None
    found = _first_repeated(document, repeated, matters, depth)
    if found is None:
        return None
    path, key = found
    return InputError(
        name,
        pointer(*path),
        f"key {json.dumps(key, ensure_ascii=False)} appears more than once in this object; "
        "a JSON reader keeps only the last, so findings would be lost: remove the duplicate",
    )


def _first_repeated(
    document: object, repeated: dict[int, str], matters: Callable[[Path], bool], depth: int
) -> tuple[Path, str] | None:
    stack: list[tuple[object, Path]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            key = repeated.get(id(value))
            if key is not None and matters(path):
                return path, key
            children = list(value.items())
        elif isinstance(value, list):
            children = list(enumerate(value))
        else:
            continue
        if len(path) < depth:
            stack.extend((child, (*path, name)) for name, child in reversed(children))
    return None
