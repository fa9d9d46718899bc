"""`--format terminal` fills the terminal's width (COLUMNS honoured), and reads at 80."""

from __future__ import annotations

import json
import os

import pytest

from cli.test_review_cli import readme_example_arguments
from review_quorum.cli import main


def example(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main([*readme_example_arguments(), *extra]) == 1
    return capsys.readouterr().out


@pytest.fixture
def titles(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [
        finding["title"] for finding in json.loads(example(capsys, "--format", "json"))["findings"]
    ]


def test_at_80_columns_each_title_reads_whole_below_its_finding(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], titles: list[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    lines = example(capsys, "--format", "terminal").splitlines()
    assert max(len(line) for line in lines) == 80
    assert lines[:5] == [
        "Review assessment: CRITICAL",
        "",
        "placed   severity  where             bots       level               confidence",
        "    title",
        "─" * 80,
    ]
    assert (
        lines[5] == "inline   high      app/auth.py:18    5/6 (83%)  confirmed           100 strong"
    )
    wrapped = " ".join(line.strip() for line in lines[5:] if line.startswith("    "))
    for title in titles:
        assert title in wrapped  # whole, in the words the bot wrote
    assert lines[-1] == "Gate (confirmed): failed, 8 blocking; 8 input record(s) skipped"


def test_a_wide_terminal_gets_one_row_per_finding(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], titles: list[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    lines = example(capsys, "--format", "terminal").splitlines()
    assert 120 < max(len(line) for line in lines) <= 200
    placed = ("  inline ", "  summary ", "  audit ", "  dropped ")
    rows = [line for line in lines if line.startswith(placed)]
    assert len(rows) == len(titles)
    assert rows[0].split()[:5] == ["inline", "high", "app/auth.py:18", "MD5", "is"]
    assert lines[0].strip() == "Review assessment: CRITICAL"


@pytest.mark.parametrize(
    ("columns", "widest"),
    [
        ("99999999999999999999", 10_000),  # rich could not pad to it: OverflowError
        ("9" * 5000, 10_000),  # int() refused it
        ("\u00b2", 120),  # a digit int() does not take: not a width, as "abc" is not
        ("0009", 9),
    ],
)
def test_a_columns_value_of_no_terminal_is_bounded_or_ignored(
    monkeypatch: pytest.MonkeyPatch, columns: str, widest: int
) -> None:
    from review_quorum.cli.review import terminal_width

    def no_terminal(descriptor: int) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    monkeypatch.setenv("COLUMNS", columns)
    assert terminal_width(fallback=120) == widest


def test_a_table_as_wide_as_the_widest_terminal_is_drawn(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "99999999999999999999")
    lines = example(capsys, "--format", "terminal").splitlines()
    assert lines[-1] == "Gate (confirmed): failed, 8 blocking; 8 input record(s) skipped"
