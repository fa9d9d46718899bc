"""The packages of src/ import each other one way: reading input and the history never
depend on rendering, only the command line reads the configuration, and no two packages
import each other (docs/architecture.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import review_quorum

ROOT = Path(review_quorum.__file__).parent


def imports() -> Iterator[tuple[str, str]]:
    """(importing module, imported module) for every import of our own, lazy ones too."""
    for path in ROOT.rglob("*.py"):
        module = ".".join(("review_quorum", *path.relative_to(ROOT).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            yield from ((module, name) for name in names if name.startswith("review_quorum."))


def unit(module: str) -> str:
    """The package (or top-level module) a module belongs to."""
    return ".".join(module.split(".")[:2])


def test_reading_input_and_the_history_never_import_rendering() -> None:
    wrong = [
        (source, target)
        for source, target in imports()
        if unit(source) in ("review_quorum.ingest", "review_quorum.history")
        and unit(target) == "review_quorum.render"
    ]
    assert wrong == []


def test_only_the_command_line_imports_the_configuration_or_itself() -> None:
    wrong = [
        (source, target)
        for source, target in imports()
        if unit(target) in ("review_quorum.config", "review_quorum.cli")
        and unit(source) not in ("review_quorum.cli", "review_quorum.__main__", unit(target))
    ]
    assert wrong == []


def test_no_two_packages_import_each_other() -> None:
    edges = {(unit(s), unit(t)) for s, t in imports() if unit(s) != unit(t)}
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = {start}, [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    circles = sorted((s, t) for s, t in edges if s < t and reaches(t, s))
    assert circles == []
