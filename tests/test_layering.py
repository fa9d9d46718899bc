"""The packages of src/ import each other one way: reading input and the history never
depend on rendering, only the command line reads the configuration, no two packages
import each other, no platform's package imports another's (what they share is in
`delivery/` and `retrying.py`), and inside a package no file imports itself back through
others, even from inside a function (docs/architecture.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

import review_quorum

ROOT = Path(review_quorum.__file__).parent


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        module = ".".join(("review_quorum", *path.relative_to(ROOT).with_suffix("").parts))
        found[module.removesuffix(".__init__")] = path
    return found


def imports() -> Iterator[tuple[str, str]]:
    """(importing module, imported module) for every import of our own, lazy ones too."""
    for module, path in modules().items():
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


def platform_packages() -> set[str]:
    """The packages that talk to a service: each defines a `retrying.RetryingClient`
    (`retrying` itself, which they share, is none)."""
    found: set[str] = set()
    for module, path in modules().items():
        if module == "review_quorum.retrying":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith("RetryingClient") for base in node.bases
            ):
                found.add(unit(module))
    return found


def test_no_platform_imports_another_platforms_package() -> None:
    platforms = platform_packages()
    assert {
        "review_quorum.github",
        "review_quorum.gitlab",
        "review_quorum.azure_devops",
        "review_quorum.bitbucket",
    } <= platforms
    wrong = sorted(
        {
            (source, target)
            for source, target in imports()
            if unit(source) in platforms and unit(target) in platforms - {unit(source)}
        }
    )
    assert wrong == []


def file_imports() -> Iterator[tuple[str, str]]:
    """(importing module, imported module) between two modules of the same package, lazy
    imports and those for type checking too; `from package import module` names the
    module, not the package."""
    known = modules()
    for source, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{alias.name}"
                    if f"{node.module}.{alias.name}" in known
                    else node.module
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                if target in known and target != source and unit(target) == unit(source):
                    yield source, target


def cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The modules that import each other in a ring, one sorted list per ring (Tarjan's
    strongly connected components of more than one module)."""
    graph: dict[str, set[str]] = {}
    for source, target in edges:
        graph.setdefault(source, set()).add(target)
        graph.setdefault(target, set())
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    rings: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            ring = [stack.pop()]
            while ring[-1] != node:
                ring.append(stack.pop())
            if len(ring) > 1:
                rings.append(sorted(ring))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(rings)


def test_a_ring_of_imports_is_found_however_long() -> None:
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("e", "e2"), ("e2", "e")]
    assert cycles(edges) == [["a", "b", "c"], ["e", "e2"]]
    assert cycles([("a", "b"), ("b", "c")]) == []


def test_imports_inside_functions_are_seen() -> None:
    edges = set(file_imports())
    # Both are imported inside a function only.
    assert ("review_quorum.cli.github_input", "review_quorum.cli.posting") in edges
    assert ("review_quorum.cli.post", "review_quorum.cli.reporters") in edges


def test_no_file_imports_itself_back_through_others_of_its_package() -> None:
    assert cycles(file_imports()) == []


def test_the_parsed_command_line_stays_in_cli_and_is_never_written_to() -> None:
    """Parsed arguments become typed options in `cli/` (`PostingOptions`, `InputFiles`,
    `ReviewInputs`, `PullSource`, `VerifyOptions`): nothing outside `cli/` imports
    argparse, and nothing sets an attribute on a namespace (`args.x = ...`)."""
    outside: list[str] = []
    written: list[str] = []
    for module, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if unit(module) != "review_quorum.cli" and isinstance(
                node, ast.Import | ast.ImportFrom
            ):
                names = (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                )
                if "argparse" in names:
                    outside.append(module)
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            written.extend(
                f"{module}: {ast.unparse(target)} = ..."
                for target in targets
                if isinstance(target, ast.Attribute) and ast.unparse(target.value) == "args"
            )
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == "setattr"
                and node.args
                and ast.unparse(node.args[0]) == "args"
            ):
                written.append(f"{module}: setattr(args, ...)")
    assert outside == [] and written == []
