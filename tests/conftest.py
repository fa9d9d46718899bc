"""Test helpers shared by the whole suite: where ../shared is, and what happens without it;
how many examples the property tests draw.

Without ../shared the tests that read it skip, saying why; with the environment variable
CI set (as `.ci/run` and hosted CI set it) they fail instead, so a CI run that lost the
shared material cannot pass by skipping a hundred tests.

Property tests run Hypothesis's ``ci`` profile when CI is set: every test draws the
examples its own settings ask for (`examples(n)` is n). Elsewhere they run the ``dev``
profile, a tenth of that (at least 10) and 20 for tests without a count, so that a local
run of one area stays short; ``HYPOTHESIS_PROFILE=ci`` asks for the full count locally.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

PROFILE = "ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile(PROFILE)


def examples(count: int) -> int:
    """How many examples a property test that asks for `count` draws in this profile."""
    return count if PROFILE == "ci" else max(count // 10, 10)


REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_ROOT = (REPO_ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts: str, root: Path = SHARED_ROOT) -> Path:
    """A path inside ../shared; without it a skip saying why, or a failure when CI is set."""
    path = root.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} not found, and CI is set: a CI run needs ../shared")
        pytest.skip(
            f"{path} not found: tests that read the shared reference material skip without it"
        )
    return path
