"""`--verify-checkout DIR` reads the code windows from DIR wherever quorum runs from
(checked after a report that it only worked from the repository's root: it was not so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifier.openai_standin import StandIn
from verifier.test_review_cli import ELIGIBLE, EXAMPLE, example_args, review, sent


def test_the_checkout_is_read_from_another_working_directory(
    tmp_path: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    verified = review(tmp_path, "v.json", "--verify-url", standin.url, "--verify-model", "m")
    assert sorted(sent(standin)) == sorted(ELIGIBLE)
    assert verified["verification"]["verified"] == len(ELIGIBLE)


def test_a_relative_checkout_is_taken_from_the_working_directory(
    tmp_path: Path, standin: StandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLE)
    argv = example_args(tmp_path, "--verify-url", standin.url, "--verify-model", "m")
    argv[argv.index("--verify-checkout") + 1] = "head"
    from review_quorum.cli import main

    assert main([*argv, "-o", str(tmp_path / "v.json")]) == 1
    assert sorted(sent(standin)) == sorted(ELIGIBLE)
