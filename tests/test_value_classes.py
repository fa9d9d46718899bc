"""Value classes are msgspec Structs: a stdlib dataclass is compiled from source at import.

Each dataclass costs about 0.76 ms to define against 0.02 ms for a Struct, and start-up
is a target (`bench/review.py --example-only`), so src defines none (docs/architecture.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "review_quorum"


def dataclass_imports(root: Path) -> list[str]:
    """Every import of `dataclasses` under `root`, as ``path:line``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            if "dataclasses" in modules:
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_src_imports_no_stdlib_dataclasses() -> None:
    assert dataclass_imports(SRC) == []


def test_either_spelling_of_the_import_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from dataclasses import dataclass\n")
    (tmp_path / "b.py").write_text('"""Doc."""\n\nimport dataclasses\n')
    (tmp_path / "c.py").write_text("import msgspec  # dataclasses are slower\n")
    assert dataclass_imports(tmp_path) == ["a.py:1", "b.py:3"]
