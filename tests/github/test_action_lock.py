""".ci/action_lock.py: the Action's hash-pinned lock must match pyproject.toml's dependencies.

The shipped lock passes; a copy of pyproject.toml with a new dependency, or a minimum above
the pinned version, and a lock line without a pin or a hash, or with an index option, each
fail naming the file, the line and the package.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO_ROOT

HASH = "--hash=sha256:" + "ab" * 32
PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]

[project]
name = "review-quorum"
dependencies = [
    "orjson>=3.9",
    "exceptiongroup>=1.2; python_version < '3.11'",
]
"""
LOCK = f"""\
# a comment
hatchling==1.33.0 \\
    {HASH}
    # via review-quorum (pyproject.toml::build-system.requires)
orjson==3.13.0 \\
    {HASH} \\
    {HASH}
"""


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "action_lock", REPO_ROOT / ".ci" / "action_lock.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(tmp_path: Path, pyproject: str, lock: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (tmp_path / "action-requirements.txt").write_text(lock, encoding="utf-8")
    problems: list[str] = load().check(
        tmp_path / "pyproject.toml", tmp_path / "action-requirements.txt"
    )
    return problems


def test_the_shipped_lock_matches_pyproject(capsys: pytest.CaptureFixture[str]) -> None:
    assert load().main([]) == 0
    assert "matches pyproject.toml" in capsys.readouterr().out


def test_a_lock_that_matches_has_no_problems(tmp_path: Path) -> None:
    # exceptiongroup's marker holds on no Python the Action uses, so it need not be locked.
    assert run(tmp_path, PYPROJECT, LOCK) == []


def test_a_new_dependency_without_a_new_lock_fails(tmp_path: Path) -> None:
    pyproject = PYPROJECT.replace('"orjson>=3.9",', '"orjson>=3.9",\n    "Rich_Text>=1",')
    assert run(tmp_path, pyproject, LOCK) == [
        "action-requirements.txt: Rich_Text (pyproject.toml project.dependencies) "
        "is not in the lock"
    ]


def test_a_raised_minimum_fails_at_the_pin(tmp_path: Path) -> None:
    pyproject = PYPROJECT.replace("orjson>=3.9", "orjson>=3.14").replace(">=1.21", ">=2")
    assert run(tmp_path, pyproject, LOCK) == [
        "action-requirements.txt:5: orjson==3.13.0 does not satisfy orjson>=3.14 "
        "(pyproject.toml project.dependencies)",
        "action-requirements.txt:2: hatchling==1.33.0 does not satisfy hatchling>=2 "
        "(pyproject.toml build-system.requires)",
    ]


def test_every_line_must_be_pinned_and_hashed(tmp_path: Path) -> None:
    lock = LOCK + f"anyio>=4 \\\n    {HASH}\nidna==3.20\n--index-url https://example.invalid\n"
    lock += f"h11==0.16.0 --hash=md5:0 {HASH}\norjson==3.12.0 {HASH}\nreview-quorum==0.1.0 {HASH}\n"
    assert run(tmp_path, PYPROJECT, lock) == [
        "action-requirements.txt:8: 'anyio>=4' is not a NAME==VERSION requirement",
        "action-requirements.txt:10: idna==3.20 has no --hash=sha256:...",
        "action-requirements.txt:11: '--index-url' is not a NAME==VERSION requirement",
        "action-requirements.txt:12: h11==0.16.0: unexpected --hash=md5:0",
        "action-requirements.txt:13: orjson is pinned again (first on line 5)",
        "action-requirements.txt:14: the lock pins review-quorum itself",
    ]


def test_a_missing_lock_fails(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    module = load()
    assert module.main([str(tmp_path / "pyproject.toml"), str(tmp_path / "nothing.txt")]) == 1
