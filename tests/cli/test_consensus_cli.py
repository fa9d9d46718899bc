"""`quorum consensus`: exact output, exit codes, warnings and bad input (issue 2, item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

THREE_BOTS = str(FIXTURES / "native.three-bots.json")
JSONL = str(FIXTURES / "native.jsonl-with-bad-records.jsonl")


def test_markdown_output_and_gate_failure(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["consensus", "--model", "agreement", THREE_BOTS, "--bots", "3"])
    out, err = capsys.readouterr()
    assert status == 1
    assert out == (
        "### Consensus: 2 findings from 3 bots\n"
        "\n#### Confirmed (1)\n\n"
        "- **HIGH** SQL query built with an f-string — `app/db.py:12` "
        "[detected by 2/3 bots, agreement 67%] — bandit, semgrep\n"
        "\n#### Unverified (1)\n\n"
        "- **LOW** Loop stops one page early — `app/paging.py:7` "
        "[detected by 1/3 bots, agreement 33%] — copilot\n"
    )
    assert err == ""


@pytest.mark.parametrize(
    ("bots", "gate", "status"),
    [
        ("3", "confirmed", 1),
        ("4", "confirmed", 0),
        ("4", "needs-verification", 1),
        ("9", "needs-verification", 0),
        ("9", "unverified", 1),
        ("3", "none", 0),
    ],
)
def test_gate_levels(bots: str, gate: str, status: int) -> None:
    assert (
        main(
            ["consensus", "--model", "agreement", THREE_BOTS, "--bots", bots, "--gate-level", gate]
        )
        == status
    )


def test_json_output_has_every_field_and_full_members(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "consensus",
            "--model",
            "agreement",
            THREE_BOTS,
            "--bots",
            "bandit,semgrep,copilot,ruff",
            "--format",
            "json",
        ]
    )
    document = json.loads(capsys.readouterr().out)
    assert document["bots_ran"] == 4
    assert document["skipped"] == []
    first = document["findings"][0]
    assert first["detected_by"] == ["bandit", "semgrep"]
    assert first["agreement_ratio"] == 0.5
    assert first["level"] == "needs-verification"
    assert [m["finding_id"] for m in first["members"]] == ["B608", "sql-fstring"]
    assert list(first) == [
        "file", "line", "end_line", "category", "title", "severity", "detected_by",
        "detected_by_count", "bots_ran", "agreement_ratio", "max_confidence",
        "consensus_score", "level", "members",
    ]  # fmt: skip


def test_missing_bots_warns_that_agreement_is_over_stated(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["consensus", "--model", "agreement", THREE_BOTS])
    assert capsys.readouterr().err == (
        "quorum: warning: --bots not given: agreement is measured against the 3 bot(s) with "
        "findings only, which over-states it\n"
    )


def test_bots_lower_than_seen_warns(capsys: pytest.CaptureFixture[str]) -> None:
    main(["consensus", "--model", "agreement", THREE_BOTS, "--bots", "2", "--gate-level", "none"])
    assert capsys.readouterr().err == (
        "quorum: warning: bots_ran=2 is lower than the 3 distinct bots in the input; "
        "agreement is capped at 100%\n"
    )


def test_bot_names_missing_a_seen_bot_warn(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "consensus",
            "--model",
            "agreement",
            THREE_BOTS,
            "--bots",
            "bandit,semgrep",
            "--gate-level",
            "none",
        ]
    )
    assert capsys.readouterr().err == "quorum: warning: --bots does not list copilot\n"


def test_jsonl_bad_records_are_skipped_with_line_numbers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "consensus",
            "--model",
            "agreement",
            JSONL,
            "--bots",
            "1",
            "--format",
            "json",
            "--gate-level",
            "none",
        ]
    )
    document = json.loads(capsys.readouterr().out)
    assert status == 0
    assert len(document["findings"]) == 2
    assert [(s["position"], s["reason"]) for s in document["skipped"]] == [
        (
            "line 3",
            "finding '#3' from 'ruff': unknown severity \"severe\" "
            "(expected one of info, low, medium, high, critical)",
        ),
        ("line 4", "invalid JSON at column 75: unexpected end of data"),
        ("line 5", "record must be an object, not list"),
    ]


def test_a_broken_file_is_an_error_naming_file_and_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(FIXTURES / "native.truncated.json")
    assert main(["consensus", "--model", "agreement", path, "--input-format", "native"]) == 2
    assert capsys.readouterr() == (
        "",
        f"quorum: error: {path}:line 2 column 27: invalid JSON: unexpected end of data\n",
    )


def test_a_missing_file_is_an_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["consensus", "--model", "agreement", "no/such/file.json"]) == 2
    assert capsys.readouterr() == ("", "quorum: error: no/such/file.json: no such file\n")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--line-window", "-1", "argument --line-window: expected a number >= 0, not -1"),
        ("--title-overlap", "nan", "argument --title-overlap: expected a number from 0 to 1, "
         "not 'nan'"),
        ("--bots", "0", '--bots: expected at least 1 bot, not "0"'),
    ],
)  # fmt: skip
def test_bad_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    assert main(["consensus", "--model", "agreement", THREE_BOTS, option, value]) == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"error: {message}")


def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "consensus.md"
    main(["consensus", "--model", "agreement", THREE_BOTS, "--bots", "3", "-o", str(out)])
    assert out.read_text().startswith("### Consensus: 2 findings from 3 bots")
    assert capsys.readouterr().out == ""


def test_single_line_jsonl_is_detected_as_native(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text('{"bot": "a", "severity": "low", "category": "x", "title": "one line"}\n')
    assert (
        main(
            ["consensus", "--model", "agreement", str(path), "--bots", "1", "--gate-level", "none"]
        )
        == 0
    )
    assert capsys.readouterr().out == (
        "### Consensus: 1 finding from 1 bot\n\n#### Confirmed (1)\n\n"
        "- **LOW** one line — *global* [detected by 1/1 bot, agreement 100%] — a\n"
    )


def test_a_byte_order_mark_and_leading_blank_lines_are_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(
        b'\xef\xbb\xbf\n  [{"bot": "a", "severity": "low", "category": "x", "title": "bom"}]\n'
    )
    assert (
        main(
            ["consensus", "--model", "agreement", str(path), "--bots", "1", "--gate-level", "none"]
        )
        == 0
    )
    assert capsys.readouterr().out == (
        "### Consensus: 1 finding from 1 bot\n\n#### Confirmed (1)\n\n"
        "- **LOW** bom — *global* [detected by 1/1 bot, agreement 100%] — a\n"
    )
