"""Test helpers shared by the whole suite: where ../shared is, and what happens without it.

Without ../shared the tests that read it skip, saying why; with the environment variable
CI set (as `.ci/run` and hosted CI set it) they fail instead, so a CI run that lost the
shared material cannot pass by skipping a hundred tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
