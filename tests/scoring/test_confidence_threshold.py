"""Posting thresholds (SPEC 4): band names, clamped numbers, the default, and junk."""

from __future__ import annotations

import math

import pytest

from review_quorum.errors import QuorumWarning
from review_quorum.scoring.confidence import (
    DEFAULT_COMMENT_CAP,
    DEFAULT_POST_THRESHOLD,
    MODERATE_FLOOR,
    STRONG_FLOOR,
    WEAK_FLOOR,
    Band,
    ThresholdChoice,
    describe_threshold,
    resolve_post_threshold,
    score_findings,
)

RECOGNIZED = [
    ("strong", 80, Band.STRONG),
    ("STRONG", 80, Band.STRONG),
    ("  Strong\t", 80, Band.STRONG),
    ("st rong", 80, Band.STRONG),
    ("moderate", 55, Band.MODERATE),
    ("MoDeRaTe", 55, Band.MODERATE),
    ("medium", 55, Band.MODERATE),
    (" MEDIUM ", 55, Band.MODERATE),
    ("weak", 30, Band.WEAK),
    ("Weak\n", 30, Band.WEAK),
    ("", 55, Band.MODERATE),
    ("   ", 55, Band.MODERATE),
    (None, 55, Band.MODERATE),
    (72, 72, Band.MODERATE),
    (72.4, 72, Band.MODERATE),
    (72.5, 73, Band.MODERATE),
    ("72.4", 72, Band.MODERATE),
    (" 90 ", 90, Band.STRONG),
    ("7.", 30, Band.WEAK),
    (".5", 30, Band.WEAK),
    (0, 30, Band.WEAK),
    (-5, 30, Band.WEAK),
    (-1e300, 30, Band.WEAK),
    (29.6, 30, Band.WEAK),
    (150, 100, Band.STRONG),
    ("150", 100, Band.STRONG),
    (10**400, 100, Band.STRONG),
    ("9" * 400, 100, Band.STRONG),
    (100, 100, Band.STRONG),
    (80, 80, Band.STRONG),
    (79.49, 79, Band.MODERATE),
]

UNRECOGNIZED = [
    "banana",
    "7x",
    "-5",
    "+5",
    "8 0",
    "0x10",
    "1e2",
    "NaN",
    "nan",
    "inf",
    "Infinity",
    "negligible",
    "٧٠",  # Arabic-Indic digits
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    [55],
    object(),
]


@pytest.mark.parametrize(("value", "score", "band"), RECOGNIZED)
def test_recognized_thresholds(value: object, score: int, band: Band) -> None:
    assert describe_threshold(value) == ThresholdChoice(score, band, True)
    assert resolve_post_threshold(value) == score


@pytest.mark.parametrize("value", UNRECOGNIZED, ids=repr)
def test_unrecognized_thresholds_fall_back_to_the_default(value: object) -> None:
    assert describe_threshold(value) == ThresholdChoice(55, Band.MODERATE, False)


@pytest.mark.parametrize("value", ["banana", math.nan])
def test_resolving_an_unrecognized_threshold_warns(value: object) -> None:
    with pytest.warns(QuorumWarning, match=r"unrecognized posting threshold .*: using the default"):
        assert resolve_post_threshold(value) == 55


def test_scoring_with_an_unrecognized_threshold_warns_and_uses_55() -> None:
    with pytest.warns(QuorumWarning, match="'banana'"):
        report = score_findings([], post_threshold="banana")
    assert report.post_threshold == 55


def test_constants() -> None:
    assert (STRONG_FLOOR, MODERATE_FLOOR, WEAK_FLOOR) == (80, 55, 30)
    assert (DEFAULT_POST_THRESHOLD, DEFAULT_COMMENT_CAP) == (55, 5)
