"""Regression tests built from the reproductions of issue 13, each with its exact outcome.

Valid but deeply nested JSON, numbers beyond any line number, native paths as tools write
them, command lines that cannot be meant, truncated files under detection, and files in
the encodings Windows and Unix tools write.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO_ROOT
from review_quorum import ingest
from review_quorum.cli import common, main, progress

DEEP = "[" * 1000 + "1" + "]" * 1000
EXAMPLE = REPO_ROOT / "examples" / "pr-review"
BANDIT = str(EXAMPLE / "analysers" / "bandit.sarif")
PR_DIFF = str(EXAMPLE / "pr.diff")
NATIVE_EXAMPLE = str(REPO_ROOT / "examples" / "native" / "findings.json")
EMPTY_REVIEW = "pass --allow-empty to accept an empty review"


def quorum(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


SCORE_RECORD = (
    '{{"file": "a.py", "line": {line}, "category": "security", "verdict": "CONFIRMED", '
    '"evidence_strength": "direct", "context_completeness": "full", "drafter_severity": '
    '"high", "verifier_severity": "high", "in_diff": true, "in_changed_code": true}}'
)

# --- 1. valid JSON nested 1,000 levels deep in a field --------------------------------

DEEP_CASES = [
    (
        "gitlab.json",
        '[{"check_name": "x", "description": "d", "severity": ' + DEEP + ', "location": '
        '{"path": "a.py", "lines": {"begin": 1}}}]',
        ["consensus"],
        "{path}:/0: unknown severity [[[…]]] (expected info, minor, major, critical, blocker)",
    ),
    (
        "sarif.json",
        '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "Bandit"}}, "results": '
        '[{"ruleId": "B1", "message": {"text": "x"}, "locations": [{"physicalLocation": '
        '{"artifactLocation": {"uri": "a.py"}, "region": {"startLine": ' + DEEP + "}}}]}]}]}",
        ["consensus"],
        "{path}:/runs/0/results/0/locations/0/physicalLocation/region: "
        "startLine must be a positive integer, not [[[…]]]",
    ),
    (
        "comments.json",
        '[{"id": 1, "user": {"login": "copilot-pull-request-reviewer[bot]"}, "body": "A bug.",'
        ' "path": "a.py", "line": ' + DEEP + "}]",
        ["consensus"],
        "{path}:/0: field 'line' must be a positive integer or null, not [[[…]]]",
    ),
]


@pytest.mark.parametrize(("name", "text", "command", "first_line"), DEEP_CASES)
def test_deep_nesting_in_a_field_is_a_skipped_record_not_a_crash(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    command: list[str],
    first_line: str,
) -> None:
    path = write(tmp_path, name, text)
    status, out, err = quorum(capsys, *command, path)
    assert (status, out) == (2, "")
    assert err == (
        f"quorum: error: {first_line.format(path=path)}\n"
        f"no finding could be read from any input file (1 broken record); {EMPTY_REVIEW}\n"
    )


def test_deep_nesting_in_a_plan_start_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = plan_with_a_comment(tmp_path, capsys)
    plan["github_review"]["comments"][0]["start_line"] = "DEEP"
    path = write(tmp_path, "plan.json", json.dumps(plan).replace('"DEEP"', DEEP))
    assert quorum(capsys, "post", path, "--dry-run", "--repo", "o/r", "--pr", "7") == (
        2,
        "",
        f"quorum: error: {path}:/github_review/comments/0/start_line: expected a whole "
        "number >= 1\n",
    )


def plan_with_a_comment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out = tmp_path / "plan.json"
    findings = str(FIXTURES / "review.findings.json")
    main(["review", findings, "--bots", "3", "--format", "json", "-o", str(out)])
    capsys.readouterr()
    plan: dict[str, Any] = json.loads(out.read_text())
    assert plan["github_review"]["comments"][0]["start_line"] == 9
    return plan


# --- 2. integers beyond any line number ------------------------------------------------

CHECKSTYLE_HUGE_LINE = (
    '<?xml version="1.0"?><checkstyle><file name="a.py">'
    '<error line="1000000000000000000000000000000" severity="error" message="Huge." source="x"/>'
    '<error line="{digits}" severity="error" message="Thousands of digits." source="x"/>'
    '<error line="3" severity="error" message="Fine." source="x"/>'
    "</file></checkstyle>"
)


@pytest.mark.parametrize("output", ["json", "sarif", "github-review", "markdown", "terminal"])
def test_a_huge_checkstyle_line_is_skipped_and_every_format_renders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    path = write(tmp_path, "lint.xml", CHECKSTYLE_HUGE_LINE.format(digits="9" * 5000))
    argv = ["review", path, "--bots", "1", "--model", "agreement", "--format", output]
    status, out, err = quorum(capsys, *argv)  # one bot of one: the seed model gates on it
    assert status == 1
    assert "Fine" in out
    assert "Huge" not in out
    assert err == "quorum: warning: 2 input record(s) skipped (listed in the JSON report)\n"


def test_huge_checkstyle_lines_are_skipped_with_their_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "lint.xml", CHECKSTYLE_HUGE_LINE.format(digits="9" * 5000))
    main(["review", path, "--bots", "1", "--format", "json"])
    skipped = json.loads(capsys.readouterr().out)["skipped"]
    assert [(item["position"], item["reason"]) for item in skipped] == [
        ("line 1", 'line must be at most 2147483647, not "1000000000000000000000000000000"'),
        ("line 1", 'line must be at most 2147483647, not "' + "9" * 58 + "…"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('"' + "1" * 40 + '"', 'must be at most 2147483647, not "' + "1" * 40 + '"'),
        ("2147483648", "must be at most 2147483647, not 2147483648"),
        ('"' + "9" * 5000 + '"', 'must be at most 2147483647, not "' + "9" * 58 + "…"),
        ("-3", "must be a positive integer, not -3"),
        (DEEP, "must be a positive integer, not [[[…]]]"),
    ],
)
def test_a_score_line_beyond_any_line_number_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    path = write(tmp_path, "score.json", "[" + SCORE_RECORD.format(line=line) + "]")
    assert quorum(capsys, "score", path) == (
        2,
        "",
        f"quorum: error: {path}: 1 problem in 1 record; nothing was scored\n"
        f"  {path}:/0/line: {message}\n",
    )


def test_the_largest_line_number_renders_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = SCORE_RECORD.format(line=2147483647)
    path = write(tmp_path, "score.json", f"[{record}]")
    status, out, _ = quorum(capsys, "score", path)
    assert status == 0
    assert json.loads(out)["inline"][0]["line"] == 2147483647


# --- 3. native paths become repository-relative ----------------------------------------


@pytest.mark.parametrize(
    "file",
    [
        "./app/db.py",
        "app\\\\db.py",
        "/work/checkout/app/db.py",
        "file:///work/checkout/app/db.py",
        "/home/runner/work/stockroom/stockroom/app/db.py",
    ],
)
def test_native_paths_merge_with_an_analysers_and_stay_in_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str
) -> None:
    record = (
        '[{"bot": "mybot", "severity": "high", "category": "security", '
        f'"title": "SQL injection via f-string", "evidence": {{"file": "{file}", "line": 67}}}}]'
    )
    native = write(tmp_path, "n.json", record)
    argv = ["review", native, BANDIT, "--bots", "2", "--diff", PR_DIFF, "--format", "json"]
    status, out, _ = quorum(capsys, *argv, "--root", "/work/checkout")
    found = [f for f in json.loads(out)["findings"] if f["line"] == 67]
    assert status == 1
    assert [(f["file"], f["detected_by"], f["disposition"]) for f in found] == [
        ("app/db.py", ["bandit", "mybot"], "inline")
    ]


# --- 4. command lines that cannot be meant ----------------------------------------------


@pytest.mark.parametrize(
    ("bots", "message"),
    [
        ("-2", '--bots: "-2" is a number, not a bot name; a count must be >= 1'),
        ("a,,b", '--bots: an empty bot name in "a,,b"'),
        ("a,b,", '--bots: an empty bot name in "a,b,"'),
        ("2.5", '--bots: "2.5" is a number, not a bot name; a count must be >= 1'),
        ("coderabbit, 3", '--bots: "3" is a number, not a bot name; a count must be >= 1'),
        ("0", '--bots: expected at least 1 bot, not "0"'),
    ],
)
def test_a_bots_typo_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], bots: str, message: str
) -> None:
    assert quorum(capsys, "review", NATIVE_EXAMPLE, "--bots", bots) == (
        2,
        "",
        f"quorum: error: {message}\n",
    )


@pytest.mark.parametrize("command", ["review", "consensus"])
def test_no_input_files_is_a_usage_error_unless_allowed(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert quorum(capsys, command, "--bots", "3") == (
        2,
        "",
        "quorum: error: no input files: name at least one FILE (or --bot NAME=FILE), "
        "or pass --allow-empty for an empty review\n",
    )
    status, out, _ = quorum(capsys, command, "--bots", "3", "--allow-empty", "--format", "json")
    assert (status, json.loads(out)["findings"]) == (0, [])


def test_a_wrongly_forced_format_reads_nothing_and_fails(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = quorum(capsys, "review", BANDIT, "--bots", "3", "--input-format", "native")
    assert (status, out) == (2, "")
    assert err.splitlines()[:3] == [
        f"quorum: error: {BANDIT}:line 1: invalid JSON at column 2: unexpected end of data",
        f"no finding could be read from any input file (450 broken records); {EMPTY_REVIEW}",
        f"  {BANDIT}:line 2: invalid JSON at column 9: unexpected content after document",
    ]
    assert err.splitlines()[-1] == "  ... and 444 more"


@pytest.mark.parametrize(
    ("forced", "message"),
    [
        ("rdjson", "/: expected an rdjson object with 'diagnostics'"),
        ("freetext", "line 1: the file is JSON, not free text; drop --input-format to detect it"),
        ("gitlab", "/: expected a JSON array of Code Quality issues"),
    ],
)
def test_other_wrongly_forced_formats_are_errors(
    capsys: pytest.CaptureFixture[str], forced: str, message: str
) -> None:
    assert quorum(capsys, "review", BANDIT, "--bots", "3", "--input-format", forced) == (
        2,
        "",
        f"quorum: error: {BANDIT}:{message}\n",
    )


def test_allow_empty_accepts_inputs_of_which_nothing_could_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "n.json", '[{"bot": "a", "severity": "high"}]')
    status, out, err = quorum(capsys, "consensus", path, "--bots", "1", "--allow-empty")
    assert (status, out) == (0, "### Consensus\n\nNo findings.\n\n1 input record(s) skipped.\n")
    assert err == "quorum: warning: 1 input record skipped (listed in the output)\n"


def test_inputs_that_are_deliberately_no_findings_are_an_empty_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    human = '[{"id": 1, "user": {"login": "octocat", "type": "User"}, "body": "LGTM"}]'
    path = write(tmp_path, "comments.json", human)
    status, out, _ = quorum(capsys, "consensus", path, "--bots", "2", "--format", "json")
    assert status == 0
    assert [item["reason"] for item in json.loads(out)["skipped"]] == [
        "comment by a human/unknown author"
    ]


@pytest.mark.parametrize("content", [b"", b"\n\n"])
def test_an_empty_diff_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    diff = write(tmp_path, "pr.diff", content)
    assert quorum(capsys, "review", NATIVE_EXAMPLE, "--bots", "4", "--diff", diff) == (
        2,
        "",
        f"quorum: error: {diff}:line 1: the diff is empty: no file changed, "
        "so nothing could be in scope\n",
    )


# --- 5. broken files under detection, and encodings -------------------------------------


def test_a_truncated_native_file_names_the_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "t.json", (FIXTURES / "native.three-bots.json").read_bytes()[:300])
    assert quorum(capsys, "consensus", path) == (
        2,
        "",
        f"quorum: error: {path}:line 5 column 11: invalid JSON: unexpected end of data\n",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"version": "2.1.0"}',
            "/: a JSON object with neither 'runs' (SARIF) nor 'diagnostics' (rdjson)",
        ),
        (
            '{"version": "2.1.0", "runs": {}}',
            "/runs: expected an array of runs (SARIF), not an object",
        ),
        ('[{"a": 1}]', '/0: an array of items in no format quorum reads (the first is {"a": 1})'),
        ('[{"check_name": "x",', "line 1 column 21: invalid JSON: unexpected end of data"),
    ],
)
def test_json_of_no_known_format_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = write(tmp_path, "x.json", text)
    choices = "sarif, rdjson, rdjsonl, gitlab, checkstyle, github-comments, native, freetext"
    status, out, err = quorum(capsys, "consensus", path)
    assert (status, out) == (2, "")
    expected = f"quorum: error: {path}:{message}"
    if not message.startswith("line"):
        expected += f"; pass --input-format ({choices})"
    assert err == expected + "\n"


ENCODED = {
    "UTF-8 with BOM": codecs.BOM_UTF8 + "[high] a.py:3 café\n".encode(),
    "UTF-16 LE with BOM (PowerShell >)": "[high] a.py:3 café\n".encode("utf-16"),
    "UTF-16 BE with BOM": codecs.BOM_UTF16_BE + "[high] a.py:3 café\n".encode("utf-16-be"),
}


@pytest.mark.parametrize("data", ENCODED.values(), ids=ENCODED.keys())
def test_utf8_with_a_bom_and_utf16_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes
) -> None:
    path = write(tmp_path, "review.txt", data)
    argv = ["consensus", path, "--bots", "1", "--model", "agreement", "--format", "json"]
    status, out, _ = quorum(capsys, *argv)
    finding = json.loads(out)["findings"][0]
    assert (status, finding["file"], finding["line"], finding["title"]) == (1, "a.py", 3, "café")


READS = "quorum reads UTF-8 (with or without a byte-order mark) and UTF-16 with one"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            '[{"bot": "a"}]'.encode("utf-32"),
            "line 1 column 1: the file is UTF-32 (it starts with a UTF-32 byte-order mark); "
            + READS,
        ),
        (
            '[{"bot": "a"}]'.encode("utf-16-le"),
            "line 1 column 2: the file has NUL bytes: it looks like UTF-16 LE without a "
            "byte-order mark; " + READS,
        ),
        (
            '[{"bot": "a"}]'.encode("utf-16-be"),
            "line 1 column 1: the file has NUL bytes: it looks like UTF-16 BE without a "
            "byte-order mark; " + READS,
        ),
        (
            "[high] a.py:3 café\n".encode("cp1252"),
            "line 1 column 18: not UTF-8 (byte 0xe9: invalid continuation byte); "
            + READS
            + ": convert a Latin-1 or Windows-1252 file to UTF-8 first",
        ),
        (
            codecs.BOM_UTF16_LE + b"[\x00{\x00\x00\xd8",
            "line 1 column 3: invalid UTF-16 LE: unexpected end of data",
        ),
    ],
)
def test_other_encodings_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, message: str
) -> None:
    path = write(tmp_path, "in.json", data)
    assert quorum(capsys, "consensus", path, "--bots", "1") == (
        2,
        "",
        f"quorum: error: {path}:{message}\n",
    )


# --- 6. endless input, flags, progress ----------------------------------------------------


def test_an_endless_input_is_an_error_not_memory_exhaustion(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "MAX_INPUT_BYTES", 1 << 20)
    assert quorum(capsys, "consensus", "/dev/zero", "--bots", "1") == (
        2,
        "",
        "quorum: error: /dev/zero: more than 1,048,576 bytes: quorum reads no more from one "
        "input\n",
    )


def test_a_file_over_the_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(common, "MAX_INPUT_BYTES", 10)
    path = write(tmp_path, "big.json", "[" + " " * 10 + "]")
    assert quorum(capsys, "consensus", path, "--bots", "1")[2] == (
        f"quorum: error: {path}: more than 10 bytes: quorum reads no more from one input\n"
    )


@pytest.mark.parametrize("value", ["2", "-0.1", "nan", "inf", "1.0000001"])
def test_title_overlap_is_a_fraction(capsys: pytest.CaptureFixture[str], value: str) -> None:
    status, out, err = quorum(capsys, "consensus", NATIVE_EXAMPLE, "--title-overlap", value)
    assert (status, out) == (2, "")
    assert err.splitlines()[-1] == (
        f"quorum consensus: error: argument --title-overlap: expected a number from 0 to 1, "
        f"not {value!r}"
    )


def test_long_inputs_show_a_line_per_file_in_a_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(progress, "PROGRESS_BYTES", 1)
    status, _, err = quorum(capsys, "consensus", NATIVE_EXAMPLE, "--bots", "4", "--format", "json")
    assert status == 1
    size = Path(NATIVE_EXAMPLE).stat().st_size
    assert re.sub(r"\(\d+\.\d s\)", "(T)", err).splitlines() == [
        f"quorum: reading 1 input file(s), {size / 1e6:.0f} MB ...",
        f"quorum: read {NATIVE_EXAMPLE} (T)",
    ]


def test_short_inputs_show_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert quorum(capsys, "consensus", NATIVE_EXAMPLE, "--bots", "4")[2] == ""


# --- 9. exit statuses ----------------------------------------------------------------------


def test_ctrl_c_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ingest, "read", interrupted)
    assert quorum(capsys, "consensus", NATIVE_EXAMPLE, "--bots", "4") == (
        130,
        "",
        "quorum: interrupted\n",
    )
