"""The suite's own rule for ../shared: skip without it, fail without it when CI is set."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import shared_path


def test_a_missing_shared_path_fails_when_ci_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not found, and CI is set"):
        shared_path("schemas", "x.json", root=tmp_path)


def test_a_missing_shared_path_skips_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not found: tests that read"):
        shared_path("schemas", "x.json", root=tmp_path)


def test_a_present_shared_path_is_returned(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "x.json").write_text("{}")
    assert shared_path("schemas", "x.json", root=tmp_path) == tmp_path / "schemas" / "x.json"
