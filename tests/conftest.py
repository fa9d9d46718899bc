"""Test helpers shared by the whole suite: where ../shared is, and skipping without it."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_ROOT = (REPO_ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts: str) -> Path:
    """A path inside ../shared, or a skip that says why the test cannot run here."""
    path = SHARED_ROOT.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"{path} not found: tests that read the shared reference material skip without it"
        )
    return path
