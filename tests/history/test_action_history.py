"""The Action's `history` input records the review run, once per identity."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from github.action_harness import EXAMPLE_INPUTS, action_job, installed_path
from history.history_support import counts
from review_quorum.history import open_history

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the steps run in bash")


def test_the_history_input_records_each_run_once(tmp_path: Path) -> None:
    database = tmp_path / "history" / "runs.db"
    inputs = {**EXAMPLE_INPUTS, "install": "false", "post": "false", "fail-on-gate": "false"}
    with action_job(tmp_path) as job:
        path = installed_path(job.python_dir)
        first = job.run({**inputs, "history": str(database)}, path=path)
        second = job.run({**inputs, "history": str(database)}, path=path)
        unrecorded = job.run(inputs, path=path)
    assert "history: recorded run 1 of " in first.step("Review").stderr
    assert "history: already recorded; nothing changed: run 1" in second.step("Review").stderr
    assert "history:" not in unrecorded.step("Review").stderr
    history = open_history(str(database))
    try:
        assert counts(history)["runs"] == 1
        assert counts(history)["findings"] > 0
        assert history.rows("SELECT origin FROM runs") == [("action",)]
    finally:
        history.close()
