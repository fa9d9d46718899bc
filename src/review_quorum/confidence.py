"""Deprecated: the confidence API under its historical name. Import from
`review_quorum.scoring.confidence`, where the model lives; this module hands out the same
names (read from that package's ``__all__``, so the two cannot drift), and will be removed
in a future release.
"""

from __future__ import annotations

from typing import Any

from review_quorum.scoring import confidence as _confidence

__all__ = list(_confidence.__all__)


def __getattr__(name: str) -> Any:
    if name in _confidence.__all__:
        return getattr(_confidence, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
