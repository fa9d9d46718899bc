"""The public API: everything `__all__` names exists, what mypy reads is the same list,
names are imported on first use, and the library path works end to end."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import review_quorum
from conftest import FIXTURES
from review_quorum import DiffScope, Settings, Source, read_findings, review


def test_every_public_name_is_importable() -> None:
    missing = [name for name in review_quorum.__all__ if not hasattr(review_quorum, name)]
    assert missing == []


def type_checked_exports() -> dict[str, tuple[str, str]]:
    """What the `if TYPE_CHECKING:` block of review_quorum/__init__.py re-exports to mypy:
    public name -> (module, name there), from `X as X` imports and `name = imported`."""
    tree = ast.parse(Path(review_quorum.__file__).read_text(encoding="utf-8"))
    (block,) = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    exported, private = {}, {}
    for statement in block.body:
        if isinstance(statement, ast.ImportFrom):
            assert statement.module is not None
            for alias in statement.names:
                where = (statement.module, alias.name)
                if alias.asname == alias.name:
                    exported[alias.name] = where
                else:  # not re-exported to mypy unless renamed below
                    assert alias.asname is None, ast.unparse(statement)
                    private[alias.name] = where
        else:
            assert isinstance(statement, ast.Assign), ast.unparse(statement)
            (target,) = statement.targets
            assert isinstance(target, ast.Name) and isinstance(statement.value, ast.Name)
            exported[target.id] = private.pop(statement.value.id)
    assert private == {}, "imported for mypy but not re-exported"
    return exported


def test_what_mypy_reads_is_the_public_api_exactly() -> None:
    assert type_checked_exports() == review_quorum._EXPORTS
    assert review_quorum.__all__ == sorted(review_quorum._EXPORTS)


def test_each_public_name_is_the_object_of_its_module() -> None:
    for name, (module, attribute) in review_quorum._EXPORTS.items():
        assert getattr(review_quorum, name) is getattr(importlib.import_module(module), attribute)


def test_importing_the_package_imports_none_of_its_modules() -> None:
    code = "import sys, review_quorum; print(sorted(m for m in sys.modules if 'quorum' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "['review_quorum']\n"


def test_the_library_path_the_readme_shows() -> None:
    path = FIXTURES / "review.findings.json"
    batch = read_findings(Source(str(path), path.read_bytes()))
    diff = DiffScope.parse((FIXTURES / "review.pr.diff").read_text())
    plan = review(batch.findings, settings=Settings(bots_ran=3), diff=diff, skipped=batch.skipped)
    assert plan.assessment.value == "CRITICAL"
    assert [item.finding.detected_by for item in plan.inline] == [("bandit", "semgrep")]
    assert plan.gate.failed
    assert len(plan.skipped) == 1


def test_the_historical_module_names_still_import_the_same_objects() -> None:
    """`review_quorum.consensus` and `review_quorum.confidence` (docs/scoring.md) are
    compatibility names: what they export is what `scoring` holds."""
    from review_quorum import confidence, consensus, scoring
    from review_quorum.scoring import confidence as scorer

    assert consensus.compute_consensus is scoring.compute_consensus
    assert confidence.__all__ == scorer.__all__
    assert all(getattr(confidence, name) is getattr(scorer, name) for name in scorer.__all__)
    with pytest.raises(AttributeError):
        _ = confidence.not_a_name
