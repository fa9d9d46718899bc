"""One name, one concept: no two public classes of different packages share a name, and no
module re-exports with ``import *`` (a reader finds every name where it is imported)."""

from __future__ import annotations

import ast
from collections import defaultdict

from test_layering import modules, unit


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
