"""Profiles and label files are read in the encodings inputs are (docs/inputs.md): UTF-16
with a byte-order mark, as PowerShell's `>` writes, reads exactly as UTF-8 does."""

from __future__ import annotations

import codecs
import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

LABELS = FIXTURES / "labels"
THREE_BOTS = str(FIXTURES / "native.three-bots.json")
PROFILE = {
    "format": "review-quorum-profile",
    "version": 1,
    "origin": "test",
    "sources": [
        {"bot": "bandit", "rule": None, "reliability": 0.5},
        {"bot": "semgrep", "rule": None, "reliability": 0.6},
        {"bot": "copilot", "rule": None, "reliability": 0.3},
    ],
}
ENCODINGS = {
    "UTF-16 LE": codecs.BOM_UTF16_LE,
    "UTF-16 BE": codecs.BOM_UTF16_BE,
    "UTF-8 with BOM": codecs.BOM_UTF8,
}


def encoded(text: str, encoding: str) -> bytes:
    codec = {"UTF-16 LE": "utf-16-le", "UTF-16 BE": "utf-16-be"}.get(encoding, "utf-8")
    return ENCODINGS[encoding] + text.encode(codec)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write_profiles(tmp_path: Path, encoding: str) -> None:
    """The same profile twice: `plain/profile.json` in UTF-8, `encoded/` in `encoding`."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "encoded").mkdir()
    (tmp_path / "plain" / "profile.json").write_text(json.dumps(PROFILE), encoding="utf-8")
    (tmp_path / "encoded" / "profile.json").write_bytes(encoded(json.dumps(PROFILE), encoding))


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_a_profile_reads_in_every_input_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    write_profiles(tmp_path, encoding)
    results = []
    for folder in ("plain", "encoded"):
        profile = str(tmp_path / folder / "profile.json")
        argv = ["consensus", THREE_BOTS, "--model", "reliability", "--profile", profile]
        status, out, err = run([*argv, "--bots", "3", "--format", "json"], capsys)
        results.append((status, out.replace(folder, "FOLDER"), err))
    assert results[0] == results[1]
    assert results[1][0] == 1  # the gate fails on the confirmed finding: read, and scored


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_calibrate_reads_its_base_profile_in_every_input_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    write_profiles(tmp_path, encoding)
    labels = [str(LABELS / "lines.labels.jsonl"), str(LABELS / "lines.findings.json")]
    results = []
    for folder in ("plain", "encoded"):
        profile = str(tmp_path / folder / "profile.json")
        status, out, err = run(["calibrate", *labels, "--bots", "2", "--profile", profile], capsys)
        results.append((status, out, err.replace(folder, "FOLDER")))
    assert results[0] == results[1]
    assert results[1][0] == 0


def copy_encoded(source: Path, target: Path, encoding: str) -> None:
    target.write_bytes(encoded(source.read_text(encoding="utf-8"), encoding))


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize(
    ("labels", "extra"),
    [
        ("owasp.expectedresults.csv", ["owasp.findings.json", "--bots", "2"]),
        ("lines.labels.jsonl", ["lines.findings.json", "--bots", "2"]),
        ("review-bots/units.jsonl", ["--judge", "judge-a"]),
    ],
)
def test_labels_read_in_every_input_encoding(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    encoding: str,
    labels: str,
    extra: list[str],
) -> None:
    plain, recoded = tmp_path / "plain", tmp_path / "encoded"
    shutil.copytree(LABELS, plain)
    shutil.copytree(LABELS, recoded)
    for path in [recoded / labels, *(recoded / "review-bots").iterdir()]:
        copy_encoded(plain / path.relative_to(recoded), path, encoding)
    results = []
    for folder in (plain, recoded):
        inputs = [str(folder / item) if item.endswith(".json") else item for item in extra]
        for command in ("evaluate", "calibrate"):
            status, out, err = run([command, str(folder / labels), *inputs], capsys)
            results.append((command, status, out.replace(str(folder), "FOLDER"), err))
    assert results[:2] == results[2:]
    assert [status for _, status, _, _ in results] == [0, 0, 0, 0]


def test_utf16_without_a_mark_is_still_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_bytes('{"file": "a.py", "line": 1, "real": true}\n'.encode("utf-16-le"))
    findings = str(LABELS / "lines.findings.json")
    status, _, err = run(["evaluate", str(labels), findings, "--bots", "2"], capsys)
    assert status == 2
    assert err.startswith(f"quorum: error: {labels}:line 1 column 2: the file has NUL bytes")


@pytest.mark.parametrize(
    ("name", "text", "command"),
    [
        ("labels.jsonl", '{"file": "caf\u00e9.py", "line": 1, "real": true}\n', "evaluate"),
        ("labels.csv", "# h\nBenchmarkTest00001,caf\u00e9,true,89\n", "evaluate"),
        (
            "profile.json",
            json.dumps({**PROFILE, "origin": "caf\u00e9"}, ensure_ascii=False),
            "profile",
        ),
    ],
)
def test_a_latin1_side_file_is_refused_as_not_utf8_at_its_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, command: str
) -> None:
    path = tmp_path / name
    path.write_bytes(text.encode("latin-1"))
    findings = str(LABELS / "lines.findings.json")
    if command == "profile":
        argv = ["consensus", THREE_BOTS, "--bots", "3", "--profile", str(path)]
    else:
        argv = ["evaluate", str(path), findings, "--bots", "2"]
    status, _, err = run(argv, capsys)
    line, column = (2, 23) if name.endswith(".csv") else (1, text.index("\u00e9") + 1)
    assert (status, err.splitlines()[-1]) == (
        2,
        f"quorum: error: {path}:line {line} column {column}: not UTF-8 (byte 0xe9: invalid "
        "continuation byte); quorum reads UTF-8 (with or without a byte-order mark) and "
        "UTF-16 with one: convert a Latin-1 or Windows-1252 file to UTF-8 first",
    )
