"""Reading the platforms' timestamps: ISO 8601 with a zone (``2026-01-01T10:00:00Z``).

GitHub and GitLab both write them so; anything else, or a time without a zone, reads as
unknown (None) rather than as a guess.
"""

from __future__ import annotations

from datetime import datetime


def parse_timestamp(value: object) -> datetime | None:
    """A platform's ISO 8601 timestamp (``2026-01-01T10:00:00Z``) as an aware datetime."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
