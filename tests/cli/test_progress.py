"""Long runs say what they are doing on standard error; short runs say nothing."""

from __future__ import annotations

import io
import re
import time
from typing import Any

import pytest

from conftest import FIXTURES
from review_quorum.cli import consensus, main, progress, review

THREE_BOTS = str(FIXTURES / "native.three-bots.json")
STAGE_LINE = re.compile(r"quorum: clustering 3 findings \.\.\. \d+ s")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_stage_line_only_once_the_run_is_long() -> None:
    stream, clock = io.StringIO(), Clock()
    ticker = progress.Ticker(stream, clock=clock)
    ticker.stage("clustering 1,000,000 findings")
    clock.now += progress.LOG_SECONDS - 1
    ticker.tick()
    assert stream.getvalue() == ""
    clock.now += 1
    ticker.tick()
    ticker.stage("writing 600,000 consensus findings")
    clock.now += 7
    ticker.tick()
    ticker.stop()
    assert stream.getvalue() == (
        "quorum: clustering 1,000,000 findings ... 5 s\n"
        "quorum: writing 600,000 consensus findings ... 7 s\n"
    )


def test_a_terminal_gets_one_line_redrawn_in_place_and_erased_at_the_end() -> None:
    stream, clock = Terminal(), Clock()
    ticker = progress.Ticker(stream, clock=clock)
    ticker.stage("clustering 1,000,000 findings")
    ticker.tick()
    assert stream.getvalue() == ""  # nothing before TICKER_DELAY
    clock.now += 2
    ticker.tick()
    clock.now += 1
    ticker.tick()
    ticker.stop()
    assert stream.getvalue() == (
        "\r\x1b[Kquorum: clustering 1,000,000 findings ... 2 s"
        "\r\x1b[Kquorum: clustering 1,000,000 findings ... 3 s"
        "\r\x1b[K"
    )


def test_a_stage_with_its_own_display_hides_the_line() -> None:
    stream, clock = Terminal(), Clock()
    ticker = progress.Ticker(stream, clock=clock)
    ticker.stage("planning the review of 5 findings")
    clock.now += 2
    ticker.tick()
    ticker.stage("")  # posting: rich draws its spinner
    ticker.tick()
    assert stream.getvalue() == "\r\x1b[Kquorum: planning the review of 5 findings ... 2 s\r\x1b[K"


def slow_engine(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
    engine = getattr(module, name)

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.35)
        return engine(*args, **kwargs)

    monkeypatch.setattr(module, name, slow)


def test_a_long_consensus_prints_stage_lines_in_a_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.1)
    slow_engine(monkeypatch, consensus, "compute_consensus")
    assert main(["consensus", THREE_BOTS, "--bots", "3", "--format", "json"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert 1 <= len(lines) <= 4
    assert all(STAGE_LINE.fullmatch(line) for line in lines), lines


def test_a_long_review_says_it_is_planning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.1)
    slow_engine(monkeypatch, review, "review")
    assert main(["review", THREE_BOTS, "--bots", "3", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "quorum: planning the review of 3 findings ... 0 s\n" in err


@pytest.mark.parametrize("command", ["consensus", "review"])
def test_a_short_run_prints_nothing(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, THREE_BOTS, "--bots", "3", "--format", "json"]) == 1
    assert capsys.readouterr().err == ""
