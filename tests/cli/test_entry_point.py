"""The `quorum` console script: the whole output arrives, then the process leaves at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

THREE_BOTS = str(FIXTURES / "native.three-bots.json")


def quorum(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "review_quorum", *arguments]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


def in_process(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = main(list(arguments))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    "arguments",
    [
        ("consensus", THREE_BOTS, "--bots", "3", "--format", "json"),  # gate fails: 1
        ("consensus", THREE_BOTS, "--format", "json", "--gate-level", "none"),  # warns: 0
        ("consensus", THREE_BOTS, "--bots", "3"),
        ("consensus", str(FIXTURES / "no-such-file.json")),  # bad input: 2
    ],
)
def test_the_console_script_says_what_main_says(
    capsys: pytest.CaptureFixture[str], arguments: tuple[str, ...]
) -> None:
    done = quorum(*arguments)
    assert (done.returncode, done.stdout, done.stderr) == in_process(capsys, *arguments)


def test_a_large_json_output_is_flushed_whole(tmp_path: Path) -> None:
    records = [
        {
            "bot": f"bot{index % 4}",
            "severity": "medium",
            "category": "security",
            "title": f"weak hash number {index}",
            "evidence": {"file": f"src/m{index % 50}.py", "line": index + 1},
        }
        for index in range(20_000)
    ]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(records))
    done = quorum("consensus", str(path), "--bots", "4", "--format", "json")
    assert done.returncode == 0
    document = json.loads(done.stdout)
    assert sum(len(finding["members"]) for finding in document["findings"]) == 20_000
    written = tmp_path / "out.json"
    done = quorum("consensus", str(path), "--bots", "4", "--format", "json", "-o", str(written))
    assert (done.returncode, done.stdout) == (0, "")
    assert json.loads(written.read_text()) == document


def test_version_is_looked_up_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert in_process(capsys, "--version") == (0, f"quorum {version('review-quorum')}\n", "")
    done = quorum("consensus", THREE_BOTS, "--bots", "3", "--gate-level", "none")
    assert done.returncode == 0


def _broken_threshold(args: object) -> int:
    raise RuntimeError("a bug")


@pytest.mark.parametrize(
    ("argv", "environment", "traceback"),
    [
        (["threshold", "0.5"], {}, False),
        (["--debug", "threshold", "0.5"], {}, True),
        (["threshold", "0.5"], {"QUORUM_DEBUG": "1"}, True),
        (["threshold", "0.5"], {"QUORUM_DEBUG": "0"}, False),
    ],
)
def test_an_internal_error_shows_its_traceback_only_when_asked(
    argv: list[str],
    environment: dict[str, str],
    traceback: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from review_quorum.cli import threshold

    monkeypatch.delenv("QUORUM_DEBUG", raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(threshold, "run", _broken_threshold)
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert ("Traceback (most recent call last)" in err) is traceback
    assert "quorum: internal error: RuntimeError: a bug" in err
    assert ("run with --debug" in err) is not traceback
