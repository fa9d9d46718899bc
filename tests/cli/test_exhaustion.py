"""Regression tests for issue 18's "exit 3 and resource exhaustion" reproductions.

Each case once ended in exit 3 (a TypeError, a RecursionError, a BrokenPipeError, an
OSError), in gigabytes of memory, or in a truncated output file; each is now exit 2 with a
message naming the file and position, or a quiet, documented exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO_ROOT
from review_quorum.cli import main

FINDINGS = str(FIXTURES / "review.findings.json")
NATIVE = str(REPO_ROOT / "examples" / "native" / "findings.json")
HUGE = "99999999999999999999999"
DEEP = "[" * 1000 + "]" * 1000


def quorum(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- an absurd bot count --------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["review", "--format", "json"],
        ["review", "--format", "sarif"],
        ["consensus", "--format", "json"],
    ],
)
@pytest.mark.parametrize(
    ("bots", "shown"),
    [(HUGE, f'"{HUGE}"'), ("10001", '"10001"'), ("9" * 5000, '"' + "9" * 58 + "…")],
)
def test_a_bot_count_beyond_the_bound_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], command: list[str], bots: str, shown: str
) -> None:
    assert quorum(capsys, *command, FINDINGS, "--bots", bots) == (
        2,
        "",
        f"quorum: error: --bots: expected at most 10,000 bots, not {shown}\n",
    )


def test_the_bound_itself_is_a_bot_count(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["consensus", FINDINGS, "--bots", "010000", "--gate-level", "none", "--format", "json"]
    status, out, _ = quorum(capsys, *argv)
    assert (status, {f["bots_ran"] for f in json.loads(out)["findings"]}) == (0, {10_000})


def test_a_bot_count_beyond_the_bound_in_the_config_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "quorum.toml"
    config.write_text(f"[tool.quorum]\nbots = {HUGE}\n")
    status, out, err = quorum(
        capsys, "review", FINDINGS, "--config", str(config), "--format", "json"
    )
    assert (status, out) == (2, "")
    assert err == (
        f"quorum: error: {config}: bad value for 'bots': 99999999… (23 digits): "
        "expected at most 10,000 bots\n"
    )


# --- nesting and chains that once recursed ----------------------------------------------


def sarif_with_a_base_chain(length: int) -> str:
    bases: dict[str, object] = {"B0": {"uri": "file:///work/shop/"}}
    bases.update({f"B{i}": {"uri": f"d{i}/", "uriBaseId": f"B{i - 1}"} for i in range(1, length)})
    location = {"artifactLocation": {"uri": "a.py", "uriBaseId": f"B{length - 1}"}}
    result = {
        "ruleId": "B1",
        "message": {"text": "x"},
        "locations": [{"physicalLocation": location}],
    }
    run = {"tool": {"driver": {"name": "Bandit"}}, "originalUriBaseIds": bases, "results": [result]}
    return json.dumps({"version": "2.1.0", "runs": [run]})


def test_a_thousand_chained_sarif_bases_are_refused_at_the_first_too_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.sarif"
    path.write_text(sarif_with_a_base_chain(1000))
    assert quorum(capsys, "consensus", str(path), "--bots", "1", "--format", "json") == (
        2,
        "",
        f"quorum: error: {path}:/runs/0/originalUriBaseIds/B32: "
        "a uriBaseId chain of more than 32 bases\n",
    )


def test_a_chain_of_32_sarif_bases_is_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chain.sarif"
    path.write_text(sarif_with_a_base_chain(32))
    status, out, _ = quorum(capsys, "consensus", str(path), "--bots", "1", "--format", "json")
    folders = "/".join(f"d{i}" for i in range(1, 32))
    assert (status, [f["file"] for f in json.loads(out)["findings"]]) == (0, [f"{folders}/a.py"])


@pytest.mark.parametrize(
    "text",
    [
        "bots = " + DEEP[400:-400] + "\n",
        'root = "x"\n\n[tool.other]\nkey = ' + "{a = " * 600 + "1" + "}" * 600 + "\n",
    ],
)
def test_a_config_nested_600_deep_names_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text(text)
    line = text.count("\n", 0, text.index("[" * 10 if "[[" in text else "{a")) + 1
    assert quorum(capsys, "review", FINDINGS, "--config", str(config)) == (
        2,
        "",
        f"quorum: error: {config}: line {line}: arrays and tables nested more than 64 deep\n",
    )


def test_brackets_in_config_strings_and_comments_are_not_nesting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".quorum.toml"
    brackets = "[" * 100
    config.write_text(
        f"# {brackets}\nroot = \"{brackets}\\\"\"\nthreshold = '''\n{brackets}'''\n"
        f'gate-level = "none"\n'
    )
    status, _, _ = quorum(capsys, "review", FINDINGS, "--config", str(config), "--bots", "3")
    assert status == 0


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ('{"format": ' + DEEP + "}", "/format: expected 'review-quorum-profile', not [[[…]]]"),
        (
            '{"format": "review-quorum-profile", "version": ' + DEEP + "}",
            "/version: unsupported version [[[…]]]",
        ),
        (
            '{"format": "review-quorum-profile", "version": 1, "sources": [{"bot": "b", '
            '"reliability": ' + DEEP + "}]}",
            "/sources/0/reliability: must be a number strictly between 0 and 1, not [[[…]]]",
        ),
    ],
)
def test_a_profile_value_nested_1000_deep_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: str, message: str
) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(document)
    assert quorum(capsys, "review", FINDINGS, "--bots", "3", "--profile", str(profile)) == (
        2,
        "",
        f"quorum: error: {profile}:{message}\n",
    )


# --- a labels range of a hundred billion lines ------------------------------------------

LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from review_quorum.cli import main
sys.exit(main(sys.argv[1:]))
"""


def quorum_in_a_gibibyte(*argv: str) -> subprocess.CompletedProcess[str]:
    """`quorum ARGV` in a child limited to 1 GiB of address space: what once grew to
    12 GB fails fast there (MemoryError, exit 3) instead of eating the machine."""
    return subprocess.run(
        [sys.executable, "-c", LIMITED, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds memory on Linux")
@pytest.mark.parametrize("command", ["evaluate", "calibrate"])
def test_a_labels_range_of_a_hundred_billion_lines_fits_in_a_gibibyte(
    tmp_path: Path, command: str
) -> None:
    labels = tmp_path / "big.labels.jsonl"
    labels.write_text(
        '{"file":"app/store.py","start_line":1,"end_line":100000000000,"real":true}\n'
    )
    argv = [command, str(labels), NATIVE, "--labels-format", "jsonl", "--bots", "4"]
    done = quorum_in_a_gibibyte(*argv, *(["--format", "json"] if command == "evaluate" else []))
    assert (done.returncode, done.stderr) == (0, "")
    document = json.loads(done.stdout)
    if command == "evaluate":
        rows = [(row["name"], row["true"]) for row in document["rows"] if row["kind"] == "source"]
    else:
        rows = [(source["bot"], source["true"]) for source in document["sources"]]
    assert rows == [("bandit", 1), ("coderabbit", 1), ("copilot", 0), ("semgrep", 1)]
