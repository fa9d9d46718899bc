"""Regression tests for issue 18's "exit 3 and resource exhaustion" reproductions.

Each case once ended in exit 3 (a TypeError, a RecursionError, a BrokenPipeError, an
OSError), in gigabytes of memory, or in a truncated output file; each is now exit 2 with a
message naming the file and position, or a quiet, documented exit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

FINDINGS = str(FIXTURES / "review.findings.json")
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
