"""The public API: everything `__all__` names exists, and the library path works end to end."""

from __future__ import annotations

import review_quorum
from conftest import FIXTURES
from review_quorum import DiffScope, Settings, Source, read_findings, review


def test_every_public_name_is_importable() -> None:
    missing = [name for name in review_quorum.__all__ if not hasattr(review_quorum, name)]
    assert missing == []


def test_the_library_path_the_readme_shows() -> None:
    path = FIXTURES / "review.findings.json"
    batch = read_findings(Source(str(path), path.read_bytes()))
    diff = DiffScope.parse((FIXTURES / "review.pr.diff").read_text())
    plan = review(batch.findings, settings=Settings(bots_ran=3), diff=diff, skipped=batch.skipped)
    assert plan.assessment.value == "CRITICAL"
    assert [item.finding.detected_by for item in plan.inline] == [("bandit", "semgrep")]
    assert plan.gate.failed
    assert len(plan.skipped) == 1
