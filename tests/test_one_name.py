"""One name, one concept: no two public classes of different packages share a name, and no
module re-exports with ``import *`` (a reader finds every name where it is imported)."""

from __future__ import annotations

import ast
from collections import defaultdict

from test_layering import ROOT, modules, unit


def test_no_two_packages_define_a_public_class_of_the_same_name() -> None:
    defined: dict[str, set[str]] = defaultdict(set)
    for module, path in modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                defined[node.name].add(module)
    assert "Verdict" in defined and "ReviewDraft" in defined  # the scan reads what we think
    shared = {
        name: sorted(where)
        for name, where in defined.items()
        if len({unit(module) for module in where}) > 1
    }
    assert shared == {}


def test_no_module_imports_star() -> None:
    starred = [
        module
        for module, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    ]
    assert starred == []


# Below the command line, the modules that open a file, a database or a process, as
# docs/architecture.md lists them.
TOUCH_FILES = {
    "review_quorum.config",
    "review_quorum.scoring.profile",
    "review_quorum.labels.base",
    "review_quorum.github.target",
    "review_quorum.history.database",
    "review_quorum.history.successive",
    "review_quorum.verifier.request",
    "review_quorum.verifier.cache",
    "review_quorum.verifier.command",
    "review_quorum.identity",
}
_TOUCHING = {"open", "read_text", "read_bytes", "write_text", "write_bytes"}
_OPENERS = {"subprocess", "sqlite3", "psycopg"}  # their run() and connect()


def test_the_modules_that_touch_files_are_the_ones_the_architecture_names() -> None:
    touching = set()
    for module, path in modules().items():
        if unit(module) == "review_quorum.cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                owner = getattr(getattr(node.func, "value", None), "id", "")
                if name in _TOUCHING or owner in _OPENERS:
                    touching.add(module)
    assert touching == TOUCH_FILES
    documented = (ROOT.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = {module.removeprefix("review_quorum.").replace(".", "/") + ".py" for module in touching}
    assert all(f"`{name}`" in documented for name in named)
