"""Answers kept by the SHA-256 of what was asked, so a re-run asks again only what changed.

The key (`request.build_request`) covers the model, the endpoint kind, the prompt and
schema versions, the path, the exact windows and hunks, and the members' texts and rules:
after a push, only clusters whose windows changed are sent again. Only answers that gave
a verdict are kept; failures never are. The file is JSON, replaced whole (written beside
and renamed), and one that cannot be read is ignored with a note, never trusted in part.
With a `Store` (the history database, `--db`), answers are read from and written to it
instead, one key at a time.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import msgspec

from review_quorum.verifier.answer import AnswerItem

CACHE_VERSION = 1


class _File(msgspec.Struct):
    version: int
    entries: dict[str, AnswerItem]


class Store(Protocol):
    """Somewhere else to keep answers: JSON bytes by request key."""

    def read(self, key: str) -> bytes | None: ...

    def write(self, entries: Mapping[str, bytes]) -> None: ...


class VerdictCache:
    """A file (or a `Store`) of answers by request key."""

    def __init__(self, path: Path, store: Store | None = None) -> None:
        self.path = path
        self.store = store
        self.entries: dict[str, AnswerItem] = {}
        self.added: dict[str, AnswerItem] = {}
        self.problem = ""
        self.changed = False
        if store is not None:
            return
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as err:
            self.problem = f"verifier cache {path} not read: {err.strerror or err}"
            return
        try:
            stored = msgspec.json.decode(data, type=_File)
        except msgspec.MsgspecError as err:
            self.problem = f"verifier cache {path} ignored: {err}"
            return
        if stored.version == CACHE_VERSION:
            self.entries = stored.entries

    def get(self, key: str) -> AnswerItem | None:
        if self.store is None or key in self.entries:
            return self.entries.get(key)
        data = self.store.read(key)
        if data is None:
            return None
        try:
            item = msgspec.json.decode(data, type=AnswerItem)
        except msgspec.MsgspecError:
            return None  # an answer stored by another version: asked again
        self.entries[key] = item
        return item

    def put(self, key: str, item: AnswerItem) -> None:
        self.entries[key] = item
        self.added[key] = item
        self.changed = True

    def save(self) -> None:
        """Write the cache if anything was added (atomically: a reader never sees half)."""
        if not self.changed:
            return
        if self.store is not None:
            self.store.write({k: msgspec.json.encode(v) for k, v in self.added.items()})
            self.changed = False
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = msgspec.json.encode(_File(CACHE_VERSION, dict(sorted(self.entries.items()))))
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".verifier-cache-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self.changed = False
