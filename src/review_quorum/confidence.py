"""The confidence API under its historical name; the model lives in `scoring.confidence`."""

from __future__ import annotations

from review_quorum.scoring.confidence import *  # noqa: F403
from review_quorum.scoring.confidence import __all__ as __all__
