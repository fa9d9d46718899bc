"""Test helpers and bench scripts never share an import name.

`pythonpath = ["tests"]` makes every package and module at the top of tests/ importable by
its bare name (`history`, `ingest`, `github`, `conftest`, ...), and a bench script run or
imported from bench/ (as `tests/cli/test_evaluate_cli.py` imports `judgement`) is importable
by its bare name too. Were one name in both, `pytest tests bench/x.py`, pytest's prepend
import mode, mypy over both folders or a bench import in a test could pick the wrong one.
"""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT


def _names(folder: Path) -> set[str]:
    return {
        path.stem if path.suffix == ".py" else path.name
        for path in folder.iterdir()
        if (path.suffix == ".py" or path.is_dir()) and not path.name.startswith((".", "__"))
    }


def test_no_bench_script_is_named_like_a_test_package_or_helper() -> None:
    tests, bench = _names(REPO_ROOT / "tests"), _names(REPO_ROOT / "bench")
    assert "history" in tests and "judgement" in bench  # the folders are where we think
    assert tests & bench == set()
