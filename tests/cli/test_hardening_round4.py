"""Issue 33: what a hostile or unlucky user passes on the command line (items 7, 9 and 10)."""

from __future__ import annotations

import codecs
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from history.history_support import HEAD
from review_quorum import config
from review_quorum.cli import common, main
from review_quorum.errors import ConfigError

FINDING = {
    "bot": "bandit",
    "severity": "medium",
    "category": "security",
    "title": "Possible SQL injection through string-based query",
    "evidence": {"file": "app/db.py", "line": 10},
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "QUORUM_HISTORY_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def findings(tmp_path: Path) -> str:
    path = tmp_path / "findings.json"
    path.write_text(json.dumps([FINDING]), encoding="utf-8")
    return str(path)


# --- 7. a newline in a history path or a login, a number no pull request has ------------


def test_a_newline_in_quorum_history_db_is_refused(
    findings: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("QUORUM_HISTORY_DB", "x\n.db")
    argv = ["review", findings, "--bots", "1", "--repo", "o/r", "--pr", "7", "--head-sha", HEAD]
    assert main([*argv, "--db-default"]) == 2
    assert capsys.readouterr().err == (
        'quorum: error: $QUORUM_HISTORY_DB is "x\\n.db": a history path or URL holds no '
        "newline or control character\n"
    )
    assert main(["stats"]) == 2
    assert "$QUORUM_HISTORY_DB" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["findings.json"]


def test_a_newline_in_db_is_refused_before_the_run(
    findings: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["review", findings, "--bots", "1", "--repo", "o/r", "--pr", "7", "--head-sha", HEAD]
    assert main([*argv, "--db", "h\n.db", "-o", "out.md"]) == 2
    assert "a history path or URL holds no newline or control character" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["findings.json"]
    assert main(["stats", "--db", "h\t.db"]) == 2
    assert "holds no newline or control character" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["review", "--pr", "99999999999999999999999"],
        ["review", "--pr", "2147483648"],
        ["review", "--pr", "0"],
        ["post", "plan.json", "--pr", "99999999999999999999999"],
        ["history", "show", "--pr", "99999999999999999999999"],
        ["review", "--gitlab", "--mr", "99999999999999999999999"],
    ],
)
def test_numbers_no_pull_request_has_are_refused(
    findings: str, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main([*argv, findings] if argv[0] == "review" else argv) == 2
    err = capsys.readouterr().err
    assert "from 1 to 2147483647, not " in err
    assert "Traceback" not in err


def test_the_largest_pull_request_number_is_accepted(
    findings: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["review", findings, "--bots", "1", "--repo", "o/r", "--pr", "2147483647"]
    assert main([*argv, "--head-sha", HEAD, "-o", "out.md"]) == 0


@pytest.mark.parametrize("login", ["me\nyou", "me you", "bot\u202e", ""])
def test_a_bot_login_that_is_not_one_word_is_refused(
    findings: str, capsys: pytest.CaptureFixture[str], login: str
) -> None:
    assert main(["review", findings, "--bots", "1", "--bot-login", login]) == 2
    assert "argument --bot-login: expected a login (one word" in capsys.readouterr().err


# --- 9. the same comments count the same, merged into one file or as three -------------

ENDPOINTS = [
    FIXTURES / "comments" / name
    for name in (
        "github.pull-request-comments.json",
        "github.pull-request-reviews.json",
        "github.issue-comments.json",
    )
]


def consensus_json(capsys: pytest.CaptureFixture[str], *files: str) -> dict[str, Any]:
    assert main(["consensus", "--bots", "5", "--format", "json", *files]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_skipped_records_count_the_same_merged_or_separate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merged = tmp_path / "all.json"  # what `jq -s add` makes of the three endpoints
    merged.write_text(json.dumps([r for path in ENDPOINTS for r in json.loads(path.read_text())]))
    together = consensus_json(capsys, str(merged))
    apart = consensus_json(capsys, *map(str, ENDPOINTS))
    assert len(apart["skipped"]) == len(together["skipped"]) == 8
    assert [s["reason"] for s in apart["skipped"]] == [s["reason"] for s in together["skipped"]][
        :2
    ] + [
        f"same finding as the inline comment at {ENDPOINTS[0]}:/0",
        *[s["reason"] for s in together["skipped"]][3:],
    ]
    assert [f["title"] for f in apart["findings"]] == [f["title"] for f in together["findings"]]
    copy = apart["skipped"][2]
    assert (copy["source"], copy["position"]) == (str(ENDPOINTS[1]), "/0")  # its own file


def test_comment_files_named_for_a_bot_are_read_on_their_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--bot NAME=FILE` attributes one file: it is not joined with the others."""
    argv = [
        "consensus",
        "--bots",
        "5",
        "--gate-level",
        "none",
        "--format",
        "json",
        str(ENDPOINTS[0]),
    ]
    assert main([*argv, "--bot", f"house={ENDPOINTS[1]}"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not any("same finding as" in s["reason"] for s in report["skipped"])


# --- 10. a configuration file in the encodings Windows tools write; bad categories -------


@pytest.mark.parametrize(
    "encoded",
    [
        b"\xef\xbb\xbf" + b'bots = 2\ngate-level = "none"\n',
        'bots = 2\ngate-level = "none"\n'.encode("utf-16"),  # with its byte-order mark
        codecs.BOM_UTF16_BE + 'bots = 2\ngate-level = "none"\n'.encode("utf-16-be"),
    ],
    ids=["utf-8-bom", "utf-16-le", "utf-16-be"],
)
def test_a_configuration_with_a_byte_order_mark_is_read(tmp_path: Path, encoded: bytes) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text('bots = 2\ngate-level = "none"\n', encoding="utf-8")
    path = tmp_path / ".quorum.toml"
    path.write_bytes(encoded)
    assert config.load(path) == config.load(plain) != {}
    assert config.load(directory=tmp_path) == config.load(plain)


@pytest.mark.parametrize(
    ("encoded", "message"),
    [
        (
            "bots = 2\n".encode("utf-16-le"),
            "line 1 column 2: the file has NUL bytes: it looks like UTF-16 LE without a "
            "byte-order mark",
        ),
        (b"# caf\xe9\nbots = 2\n", "line 1 column 6: not UTF-8 (byte 0xe9"),
    ],
)
def test_a_configuration_in_another_encoding_names_file_and_position(
    tmp_path: Path, encoded: bytes, message: str
) -> None:
    path = tmp_path / "q.toml"
    path.write_bytes(encoded)
    with pytest.raises(ConfigError) as raised:
        config.load(path)
    assert str(raised.value).startswith(f"{path}:{message}")


def test_a_bad_category_names_the_file(
    findings: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "q.toml"
    path.write_text('[categories]\nB101 = "style"\n')
    assert main(["review", "--config", str(path), findings]) == 2
    assert capsys.readouterr().err.startswith(
        f"quorum: error: {path}: bad value for 'categories': "
    )
    with pytest.raises(ConfigError, match=r"key 'B101': unknown category 'style' \(expected"):
        config.load(path)


# --- 12. memory: each file's bytes go once its findings are read ------------------------


def big_inputs(tmp_path: Path, format: str, size: int) -> list[str]:
    """Three files of `format`, each with one finding and `size` bytes the reader skips."""
    bulk = "x" * size  # a member the reader skips, as a code flow or a help text
    paths = []
    for number in range(3):
        if format == "sarif":
            document: object = {
                "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "Bandit"}},
                "properties": {"bulk": bulk},
                "results": [{"ruleId": f"B{number}", "message": {"text": "Use of eval."},
                             "locations": [{"physicalLocation": {
                                 "artifactLocation": {"uri": "a.py"},
                                 "region": {"startLine": 3}}}]}]}]}  # fmt: skip
        else:  # the bulk not in the first record, which detection parses on its own
            document = [{**FINDING, "title": f"Finding {number}"}, {**FINDING, "bulk": bulk}]
        path = tmp_path / f"in{number}.{format}.json"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("format", ["sarif", "native"])
def test_reading_many_files_keeps_their_findings_not_their_bytes(
    tmp_path: Path, format: str
) -> None:
    """Issue 33 item 12: peak memory follows the biggest file, not the sum of the files."""
    size = 8_000_000
    files = common.InputFiles(paths=tuple(big_inputs(tmp_path, format, size)))
    tracemalloc.start()
    try:
        batch = common.load_inputs(files)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(batch.findings) == (3 if format == "sarif" else 6)
    assert peak < 1.5 * size  # one file's bytes at a time (two would be 16 MB)
