"""`quorum score`: exact JSON and markdown, thresholds, the cap, strict input, the join."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from review_quorum.cli import main

MIXED = str(FIXTURES / "score.mixed-dispositions.json")
INVALID = str(FIXTURES / "score.invalid-records.json")
DRAFTER = str(FIXTURES / "score.drafter.json")
VERIFIER = str(FIXTURES / "score.verifier.json")
SCORING_KEYS = ("score", "band", "disposition", "forced", "reason", "breakdown")


@pytest.fixture(autouse=True)
def _no_threshold_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFIDENCE_THRESHOLD", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["score", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def summary_of(document: dict[str, Any]) -> dict[str, list[tuple[str, int, int, str]]]:
    return {
        group: [(entry["file"], entry["line"], entry["score"], entry["band"]) for entry in entries]
        for group, entries in document.items()
    }


def test_json_output_groups_every_record_with_its_scoring_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, MIXED)
    assert (status, err) == (0, "")
    document = json.loads(out)
    assert list(document) == ["inline", "summary", "audit", "dropped"]
    assert summary_of(document) == {
        "inline": [
            ("src/auth/session.py", 41, 31, "weak"),
            ("src/billing/invoice.py", 118, 100, "strong"),
        ],
        "summary": [
            ("src/billing/invoice.py", 140, 52, "weak"),
            ("src/jobs/worker.py", 9, 26, "negligible"),
        ],
        "audit": [("src/api/upload.py", 77, 0, "negligible")],
        "dropped": [
            ("src/api/upload.py", 90, 0, "negligible"),
            ("src/legacy/report.py", 12, 0, "negligible"),
        ],
    }
    records = json.loads(Path(MIXED).read_text())
    billing = document["inline"][1]
    assert billing == {
        **records[1],
        "score": 100,
        "band": "strong",
        "disposition": "inline",
        "forced": False,
        "reason": "rule 4 (threshold): score 100 is at or above the threshold 55",
        "breakdown": {"subtotal": 100, "concordance": 5, "severity_distance": 0, "gate": None},
    }
    assert billing["ticket"] == "BILL-7"  # extra keys pass through
    assert [entry["reason"] for entry in document["summary"]] == [
        "rule 5 (lower confidence): score 52 is below the threshold 55 but at least 30",
        "rule 6 (visibility floor): score 26 is negligible but severity is medium",
    ]
    assert document["inline"][0]["forced"] is True
    assert document["dropped"][1]["breakdown"] == {
        "subtotal": 0,
        "concordance": 0,
        "severity_distance": 0,
        "gate": "scope",
    }
    every = [entry for entries in document.values() for entry in entries]
    assert len(every) == len(records)
    assert all(list(entry)[-6:] == list(SCORING_KEYS) for entry in every)


def test_markdown_output_is_the_review_body(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, MIXED, "--format", "markdown")
    assert (status, err) == (0, "")
    assert out == (
        "<!-- review-quorum:summary -->\n"
        "## Review assessment: 🟡 NEEDS ATTENTION\n"
        "\n"
        "**2** posted inline · **2** lower-confidence · **1** dismissed security · **2** dropped\n"
        "\n"
        "_Posting threshold 55; at most 5 non-forced inline comments._\n"
        "\n"
        "### 2 findings posted inline\n"
        "\n"
        "- **LOW** Session token compared with == instead of a constant-time check — "
        "`src/auth/session.py:41` — confidence weak, 31/100\n"
        "- **MEDIUM** Discount applied twice when the coupon is reused — "
        "`src/billing/invoice.py:118` — confidence strong, 100/100\n"
        "\n"
        "### 2 lower-confidence findings (not posted inline)\n"
        "\n"
        "- **LOW** Network error swallowed by a bare except — `src/billing/invoice.py:140` — "
        "confidence weak, 52/100\n"
        "- **MEDIUM** Temporary file may never be removed — `src/jobs/worker.py:9` — "
        "confidence negligible, 26/100\n"
        "\n"
        "### 1 dismissed security finding (review manually)\n"
        "\n"
        "- **LOW** Path traversal through the upload name — `src/api/upload.py:77` — "
        "dismissed by the verifier\n"
    )


def dispositions(out: str) -> dict[str, list[int]]:
    return {
        group: [entry["line"] for entry in entries] for group, entries in json.loads(out).items()
    }


@pytest.mark.parametrize(
    ("argv", "env", "inline"),
    [
        ([], None, [41, 118]),
        (["--threshold", "strong"], None, [41, 118]),
        (["--threshold", "weak"], None, [41, 118, 140]),
        (["--threshold", "52"], None, [41, 118, 140]),
        ([], "weak", [41, 118, 140]),
        ([], " WEAK ", [41, 118, 140]),
        (["--threshold", "moderate"], "weak", [41, 118]),  # the flag wins over the environment
        ([], "", [41, 118]),
    ],
)
def test_threshold_from_flag_or_environment(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: str | None,
    inline: list[int],
) -> None:
    if env is not None:
        monkeypatch.setenv("CONFIDENCE_THRESHOLD", env)
    status, out, err = run(capsys, MIXED, *argv)
    assert (status, err) == (0, "")
    assert dispositions(out)["inline"] == inline


@pytest.mark.parametrize(
    ("argv", "env", "warning"),
    [
        (
            ["--threshold", "banana"],
            None,
            "quorum: warning: --threshold 'banana' is not a band name (strong, moderate, medium, "
            "weak) or a number: using the default 55 (moderate)\n",
        ),
        (
            [],
            "0x10",
            "quorum: warning: CONFIDENCE_THRESHOLD '0x10' is not a band name (strong, moderate, "
            "medium, weak) or a number: using the default 55 (moderate)\n",
        ),
    ],
)
def test_an_unrecognized_threshold_warns_and_uses_55(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: str | None,
    warning: str,
) -> None:
    if env is not None:
        monkeypatch.setenv("CONFIDENCE_THRESHOLD", env)
    status, out, err = run(capsys, MIXED, *argv)
    assert (status, err) == (0, warning)
    assert dispositions(out)["inline"] == [41, 118]


@pytest.mark.parametrize(
    ("cap", "inline", "summary"), [("0", [41], [118, 140, 9]), ("1", [41, 118], [140, 9])]
)
def test_the_cap_never_counts_forced_findings(
    capsys: pytest.CaptureFixture[str], cap: str, inline: list[int], summary: list[int]
) -> None:
    status, out, _ = run(capsys, MIXED, "--cap", cap)
    assert status == 0
    assert dispositions(out)["inline"] == inline
    assert dispositions(out)["summary"] == summary


def test_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "scored.json"
    status, out, _ = run(capsys, MIXED, "-o", str(target))
    assert (status, out) == (0, "")
    assert dispositions(target.read_text())["audit"] == [77]


def test_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    records = Path(MIXED).read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(records)))
    status, out, _ = run(capsys, "-")
    assert status == 0
    assert dispositions(out)["dropped"] == [90, 12]


def test_every_bad_record_is_reported_and_nothing_is_scored(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "never.json"
    status, out, err = run(capsys, INVALID, "-o", str(target))
    assert (status, out) == (2, "")
    assert not target.exists()
    assert err == (
        f"quorum: error: {INVALID}: 8 problems in 3 records; nothing was scored\n"
        f'  {INVALID}:/0/line: must be a positive integer, not "1e2"\n'
        f'  {INVALID}:/0/verdict: "MAYBE" is not one of CONFIRMED, LIKELY, DISMISSED\n'
        f"  {INVALID}:/2/line: must be a positive integer, not true\n"
        f"  {INVALID}:/2/category: missing (required)\n"
        f'  {INVALID}:/2/verifier_severity: "urgent" is not one of high, medium, low\n'
        f'  {INVALID}:/2/in_diff: must be true or false (or the strings "true"/"false"), '
        'not "yes"\n'
        f'  {INVALID}:/2/in_changed_code: must be true or false (or the strings "true"/"false"), '
        "not 1\n"
        f"  {INVALID}:/3: must be an object, not an array\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[{"file": "a.py",', ":line 1 column 18: invalid JSON: unexpected end of data"),
        (b'{"findings": []}', ":/: expected a JSON array of finding records, not an object"),
    ],
)
def test_a_broken_file_is_one_error_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    assert run(capsys, str(path)) == (2, "", f"quorum: error: {path}{message}\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give FILE, or both --drafter D.json and --verifier V.json"),
        (["--drafter", DRAFTER], "give FILE, or both --drafter D.json and --verifier V.json"),
        ([MIXED, "--verifier", VERIFIER], "give FILE or --drafter/--verifier, not both"),
    ],
)
def test_input_choice_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out, err) == (2, "", f"quorum: error: {message}\n")


@pytest.mark.parametrize("cap", ["-1", "two", "1.5"])
def test_the_cap_must_be_a_whole_number(capsys: pytest.CaptureFixture[str], cap: str) -> None:
    status, out, err = run(capsys, MIXED, "--cap", cap)
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"quorum score: error: argument --cap: expected a whole number >= 0, not {cap!r}"
    )


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "no/such/file.json")
    assert (status, err) == (2, "quorum: error: no/such/file.json: no such file\n")


def test_drafter_and_verifier_are_joined_and_unmatched_ones_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "--drafter", DRAFTER, "--verifier", VERIFIER)
    assert status == 0
    document = json.loads(out)
    assert summary_of(
        {key: document[key] for key in ("inline", "summary", "audit", "dropped")}
    ) == {
        "inline": [
            ("src/cache/store.py", 23, 100, "strong"),
            ("src/http/client.py", 58, 57, "moderate"),
        ],
        "summary": [],
        "audit": [],
        "dropped": [("src/cache/store.py", 23, 0, "negligible")],
    }
    assert document["inline"][0]["verifier_details"] == "store() releases the lock before writing."
    assert document["unmatched"] == {
        "findings": [
            {"source": DRAFTER, "pointer": "/findings/3", "file": "src/http/client.py", "line": 90}
        ],
        "verdicts": [
            {"source": VERIFIER, "pointer": "/verdicts/3", "file": "src/http/server.py", "line": 12}
        ],
    }
    assert err == (
        f"quorum: warning: {DRAFTER}:/findings/3 (src/http/client.py:90): drafter finding got "
        "no verdict (not scored)\n"
        f"quorum: warning: {VERIFIER}:/verdicts/3 (src/http/server.py:12): verdict matches no "
        "drafter finding\n"
    )


def test_joined_markdown_notes_what_did_not_match(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "--drafter", DRAFTER, "--verifier", VERIFIER, "--format", "markdown"
    )
    assert status == 0
    assert out.splitlines()[3:10] == [
        "**2** posted inline · **1** dropped",
        "",
        "_Posting threshold 55; at most 5 non-forced inline comments._",
        "_1 drafter finding(s) got no verifier verdict and were not scored._",
        "_1 verifier verdict(s) matched no drafter finding._",
        "",
        "### 2 findings posted inline",
    ]
    assert out.splitlines()[1] == "## Review assessment: 🔴 CRITICAL"


def test_bad_drafter_and_verifier_records_are_all_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    drafter = tmp_path / "d.json"
    verifier = tmp_path / "v.json"
    drafter.write_text(json.dumps({"findings": [{"file": "a.py", "line": 1}]}))
    verifier.write_text(json.dumps({"verdicts": [{"verdict": "SURE"}]}))
    status, out, err = run(capsys, "--drafter", str(drafter), "--verifier", str(verifier))
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert (
        lines[0]
        == f"quorum: error: {drafter}, {verifier}: 11 problems in 2 records; nothing was scored"
    )
    assert f"  {drafter}:/findings/0/severity: missing (required)" in lines
    assert (
        f'  {verifier}:/verdicts/0/verdict: "SURE" is not one of CONFIRMED, LIKELY, DISMISSED'
        in lines
    )


# --- docs/scoring.md runs as documented ----------------------------------------------------


def documented_examples() -> list[tuple[str, str, str]]:
    """(language, command line, expected output) for each example in docs/scoring.md."""
    section = (Path(__file__).resolve().parents[2] / "docs" / "scoring.md").read_text("utf-8")
    examples = []
    for block in section.split("```")[1::2]:
        language, _, body = block.partition("\n")
        if language == "sh":
            examples += [("sh", line, "") for line in body.splitlines() if line]
        elif language == "console":
            for chunk in body.split("$ ")[1:]:
                command, _, output = chunk.partition("\n")
                examples.append(("console", command, output))
    return examples


@pytest.mark.parametrize(("language", "command", "output"), documented_examples())
def test_documented_examples(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    command: str,
    output: str,
) -> None:
    import shlex

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    words = shlex.split(command)
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        monkeypatch.setenv(name, value)
    assert words[0] == "quorum"
    assert main(words[1:]) == 0
    out = capsys.readouterr().out
    if language == "console":
        assert out == output
    else:
        assert json.loads(out)["inline"]


def test_the_scoring_doc_has_examples() -> None:
    assert {language for language, _, _ in documented_examples()} == {"sh", "console"}
