"""SHA-256 of the short texts every review hashes, without loading OpenSSL.

Importing `hashlib` loads OpenSSL's `_hashlib`, about 9 M instructions: a fortieth of
the README example's whole run (docs/benchmarks.md, start-up). A finding's identity, its
code's hash and a file's ``#diff-`` anchor are digests of a few dozen bytes, for which
CPython's own SHA-256 (`_sha2` from Python 3.12, `_sha256` before) gives the same digest
at about 1.4 times the cost of a call (0.5 us against 0.36 us). On large data OpenSSL is
about nine times faster, so a document of any size (a report's content digest) is
hashed by `hashlib`. An interpreter built without its own SHA-256 falls back to
`hashlib` for all of it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _hashlib import HASH

__all__ = ["sha256"]

sha256: Callable[[bytes], HASH]
"""As `hashlib.sha256`, for short data."""
try:  # CPython's own: a built-in module, named for the version
    if sys.version_info >= (3, 12):
        from _sha2 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
    else:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
except ImportError:  # an interpreter built without it
    from hashlib import sha256
