"""The confidence scale (SPEC section 4): four bands, their floors, and posting thresholds.

A posting threshold arrives from a flag, an environment variable or a config file, so it
is read leniently and never crashes: a band name (any case or spacing), a number clamped
to [30, 100], or blank for the default. Anything else resolves to the default and is
marked unrecognized, so the caller can warn about it.
"""

from __future__ import annotations

import enum
import math
import re
import warnings
from typing import NamedTuple

from review_quorum.errors import QuorumWarning

STRONG_FLOOR = 80
MODERATE_FLOOR = 55
WEAK_FLOOR = 30
THRESHOLD_CEILING = 100
DEFAULT_POST_THRESHOLD = MODERATE_FLOOR


class Band(enum.StrEnum):
    STRONG = "strong"
    MODERATE = "moderate"
    WEAK = "weak"
    NEGLIGIBLE = "negligible"


def band_for(score: float) -> Band:
    """The band a score falls in (lower edges inclusive)."""
    if score >= STRONG_FLOOR:
        return Band.STRONG
    if score >= MODERATE_FLOOR:
        return Band.MODERATE
    return Band.WEAK if score >= WEAK_FLOOR else Band.NEGLIGIBLE


class ThresholdChoice(NamedTuple):
    """A posting threshold as resolved: its score, its band, and whether it was understood."""

    score: int
    band: Band
    recognized: bool


THRESHOLD_NAMES = {
    "strong": STRONG_FLOOR,
    "moderate": MODERATE_FLOOR,
    "medium": MODERATE_FLOOR,
    "weak": WEAK_FLOOR,
}
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", re.ASCII)
_DEFAULT_CHOICE = ThresholdChoice(DEFAULT_POST_THRESHOLD, band_for(DEFAULT_POST_THRESHOLD), True)


def describe_threshold(value: object) -> ThresholdChoice:
    """Resolve a threshold: a band name, a number clamped to [30, 100], or the default.

    Band names ignore case and spaces; numbers round half up. None or blank text means the
    default. Anything else (junk text, signed or hex text, NaN, infinity, booleans) is the
    default marked unrecognized, so a caller can warn instead of crashing.
    """
    if value is None:
        return _DEFAULT_CHOICE
    if isinstance(value, str):
        return _threshold_from_text(value)
    if isinstance(value, bool):
        return _DEFAULT_CHOICE._replace(recognized=False)
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return _threshold_from_number(value)
    return _DEFAULT_CHOICE._replace(recognized=False)


def _threshold_from_text(text: str) -> ThresholdChoice:
    stripped = text.strip()
    if not stripped:
        return _DEFAULT_CHOICE
    named = THRESHOLD_NAMES.get("".join(stripped.split()).lower())
    if named is not None:
        return ThresholdChoice(named, band_for(named), True)
    if _DECIMAL.fullmatch(stripped):
        # A digit string too long for a float is still a (huge) number: it clamps to 100.
        return _threshold_from_number(min(float(stripped), THRESHOLD_CEILING))
    return _DEFAULT_CHOICE._replace(recognized=False)


def _threshold_from_number(number: float) -> ThresholdChoice:
    clamped = min(max(number, WEAK_FLOOR), THRESHOLD_CEILING)
    score = math.floor(clamped + 0.5)
    return ThresholdChoice(score, band_for(score), True)


def resolve_post_threshold(value: object) -> int:
    """The threshold score for `value`; an unrecognized value warns and gives 55."""
    choice = describe_threshold(value)
    if not choice.recognized:
        warnings.warn(
            f"unrecognized posting threshold {value!r}: using the default "
            f"{DEFAULT_POST_THRESHOLD} ({choice.band}); expected strong, moderate, medium, "
            f"weak or a number",
            QuorumWarning,
            stacklevel=2,
        )
    return choice.score
