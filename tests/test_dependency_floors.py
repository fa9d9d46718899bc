""".ci/floors.py: the runtime dependencies pinned at their declared floors, which `.ci/run`
installs in a second environment to run the tests against, and the floors themselves: each
is a release the code was run against, not one it has outgrown."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

from conftest import REPO_ROOT


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("floors", REPO_ROOT / ".ci" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(tmp_path: Path, *dependencies: str) -> Path:
    listed = ", ".join(f'"{dependency}"' for dependency in dependencies)
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\ndependencies = [{listed}]\n', encoding="utf-8")
    return path


def test_each_runtime_dependency_is_pinned_at_its_floor() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = [Requirement(text).name for text in project["project"]["dependencies"]]
    pins: list[str] = load().floors(REPO_ROOT / "pyproject.toml")
    assert [pin.split("==")[0] for pin in pins] == names
    assert "msgspec==0.23" in pins and "orjson==3.12" in pins and "unidiff==1.0.1" in pins


def test_a_dependency_without_a_floor_is_an_error(tmp_path: Path) -> None:
    module = load()
    assert module.floors(write(tmp_path, "a>=1.2", "b>=2,<3")) == ["a==1.2", "b==2"]
    for bare in ("c", "c==1", "c>=1,>=2"):
        with pytest.raises(ValueError, match="needs one >= floor"):
            module.floors(write(tmp_path, bare))
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / ".ci" / "floors.py"), str(write(tmp_path, "c<2"))],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "pyproject.toml: 'c<2': a runtime dependency needs one >= floor\n"


def test_ci_runs_the_tests_against_the_floors() -> None:
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".ci/floors.py" in ci and ".venv-floors/bin/python -m pytest -q" in ci
