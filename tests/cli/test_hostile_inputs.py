"""Hostile inputs through the whole command line, one property test per reader.

Each test takes a small valid document in one format, replaces one value anywhere in it
(or the text of one line) by something hostile (nesting about 1,000 levels deep, numbers
far beyond 64 bits or negative, every JSON type, long and control-character text), writes
it in an encoding a Windows or Unix tool writes, and runs `quorum` on it. The run must
end in 0, 1 or 2, never 3; a 2 must name the file and a position in it. Encodings
quorum reads (UTF-8 with or without a byte-order mark, UTF-16 LE/BE with one) must give
exactly the UTF-8 result; the others must be refused with an error that names them.
"""

from __future__ import annotations

import codecs
import copy
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from review_quorum.cli import main
from verified import DEFAULTS

SETTINGS = settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
SENTINEL = "\u0000hostile\u0000"

# --- hostile values --------------------------------------------------------------------

_deep_arrays = st.integers(1, 1100).map(lambda depth: "[" * depth + "1" + "]" * depth)
_deep_objects = st.integers(1, 1100).map(lambda depth: '{"a":' * depth + "1" + "}" * depth)
_numbers = st.one_of(
    st.integers(-(10**40), 10**40).map(str),
    st.sampled_from(
        ["0", "-1", "1", "2147483647", "2147483648", "9223372036854775808", "1e308", "-0.0"]
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
)
_texts = st.one_of(
    st.text(max_size=30),
    st.integers(-(10**40), 10**40).map(str),
    st.sampled_from(["", " ", "1e2", "true", "null", "ERROR", "high", "../../etc/passwd"]),
    st.integers(1, 5000).map(lambda size: "9" * size),
)
_shallow = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=5,
)
HOSTILE_JSON = st.one_of(
    _deep_arrays,
    _deep_objects,
    _numbers,
    _texts.map(lambda text: json.dumps(text, ensure_ascii=False)),
    st.sampled_from(["null", "true", "false", "[]", "{}", '""']),
    _shallow.map(lambda value: json.dumps(value, ensure_ascii=False)),
)
HOSTILE_TEXT = st.one_of(
    _texts,
    _numbers,
    _deep_arrays,
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
)


def json_paths(value: object, prefix: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """The path of every value inside `value` (object members and array elements)."""
    children: Any = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        yield (*prefix, key)
        yield from json_paths(child, (*prefix, key))


def replaced(template: object, path: tuple[object, ...], hostile: str) -> str:
    """`template` as JSON text with the value at `path` replaced by the JSON text `hostile`."""
    document = copy.deepcopy(template)
    holder: Any = document
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = SENTINEL
    text = json.dumps(document, ensure_ascii=False, indent=1)
    return text.replace(json.dumps(SENTINEL, ensure_ascii=False), hostile)


def hostile_document(template: object) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(list(json_paths(template))), HOSTILE_JSON).map(
        lambda pair: replaced(template, *pair)
    )


def hostile_lines(lines: list[str]) -> st.SearchStrategy[str]:
    """One line of a line-based input replaced, or hostile text spliced into it."""

    def build(index: int, cut: int, hostile: str, whole: bool) -> str:
        changed = list(lines)
        line = changed[index]
        changed[index] = hostile if whole else line[:cut] + hostile + line[cut:]
        return "\n".join(changed) + "\n"

    return st.builds(
        build,
        st.integers(0, len(lines) - 1),
        st.integers(0, 60),
        HOSTILE_TEXT,
        st.booleans(),
    )


# --- encodings -----------------------------------------------------------------------

READABLE: dict[str, Callable[[str], bytes]] = {
    "UTF-8": lambda text: text.encode("utf-8", "surrogatepass"),
    "UTF-8 with BOM": lambda text: codecs.BOM_UTF8 + text.encode("utf-8", "surrogatepass"),
    "UTF-16 LE with BOM": lambda text: codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
    "UTF-16 BE with BOM": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
}
REFUSED: dict[str, tuple[Callable[[str], bytes], str]] = {
    "UTF-32 with BOM": (lambda text: text.encode("utf-32"), "UTF-32"),
    "UTF-16 LE without BOM": (lambda text: text.encode("utf-16-le"), "UTF-16"),
    "UTF-16 BE without BOM": (lambda text: text.encode("utf-16-be"), "UTF-16"),
}
LEGACY: dict[str, Callable[[str], bytes]] = {
    "Windows-1252": lambda text: text.encode("cp1252", "replace"),
    "Latin-1": lambda text: text.encode("latin-1", "replace"),
}
ENCODINGS = st.sampled_from([*READABLE, *REFUSED, *LEGACY])


# --- running quorum ------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], command: list[str], data: bytes) -> tuple[int, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "input.data"
        path.write_bytes(data)
        status = main([command[0], str(path), *command[1:]])
        out, err = capsys.readouterr()
        out = out.replace(str(path), "INPUT")
        err = err.replace(str(path), "INPUT")
    assert status in (0, 1, 2), err
    if status == 2:
        assert re.search(r"INPUT:(line \d+|/)", err), err
    return status, out + err


def check(capsys: pytest.CaptureFixture[str], command: list[str], text: str, encoding: str) -> None:
    """The outcome of `quorum` on `text` in `encoding` is allowed and agrees with UTF-8."""
    expected = run(capsys, command, READABLE["UTF-8"](text))
    if encoding == "UTF-16 LE with BOM" and text.startswith("\0"):
        # FF FE 00 00 is UTF-32 LE's byte-order mark: such bytes are refused as UTF-32
        status, output = run(capsys, command, READABLE["UTF-16 LE with BOM"](text))
        assert (status, "UTF-32" in output) == (2, True)
    elif encoding in READABLE:
        assert run(capsys, command, READABLE[encoding](text)) == expected
    elif encoding in REFUSED:
        encode, name = REFUSED[encoding]
        status, output = run(capsys, command, encode(text))
        assert status == 2
        assert name in output
    else:  # a legacy encoding may happen to be valid UTF-8: only the outcome is checked
        run(capsys, command, LEGACY[encoding](text))


def test_a_utf16_file_that_starts_with_nul_reads_as_utf32(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """UTF-16 LE's mark and a NUL are the bytes of UTF-32 LE's mark: refused as UTF-32,
    naming the file and position (hypothesis found the case; no reader may guess)."""
    status, output = run(capsys, CONSENSUS, READABLE["UTF-16 LE with BOM"]("\0{}"))
    assert status == 2
    assert "INPUT:line 1 column 1: the file is UTF-32" in output


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "CONFIDENCE_THRESHOLD"):
        monkeypatch.delenv(name, raising=False)


# --- the readers ---------------------------------------------------------------------

CONSENSUS = ["consensus", "--bots", "4", "--format", "json"]

SARIF: dict[str, Any] = {
    "version": "2.1.0",
    "runs": [
        {
            "tool": {
                "driver": {
                    "name": "Bandit",
                    "rules": [
                        {
                            "id": "B608",
                            "defaultConfiguration": {"level": "warning"},
                            "properties": {"tags": ["security"], "security-severity": "7.5"},
                        }
                    ],
                }
            },
            "originalUriBaseIds": {"SRC": {"uri": "file:///work/"}},
            "results": [
                {
                    "ruleId": "B608",
                    "ruleIndex": 0,
                    "level": "error",
                    "message": {"text": "Possible SQL injection. Built from a string."},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "app/db.py", "uriBaseId": "SRC"},
                                "region": {"startLine": 67, "endLine": 68},
                            }
                        }
                    ],
                    "partialFingerprints": {"primaryLocationLineHash": "abc:1"},
                    "rank": 80,
                },
                {
                    "ruleId": "B105",
                    "message": {"text": "Hard-coded password."},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": "file:///work/app/auth.py"},
                                "region": {"startLine": 12},
                            }
                        }
                    ],
                },
            ],
        }
    ],
}
RDJSON: dict[str, Any] = {
    "source": {"name": "ruff"},
    "severity": "WARNING",
    "diagnostics": [
        {
            "message": "Possible SQL injection",
            "location": {
                "path": "app/db.py",
                "range": {"start": {"line": 67}, "end": {"line": 68}},
            },
            "severity": "ERROR",
            "code": {"value": "S608"},
        },
        {
            "message": "Unused import",
            "location": {"path": "app/cli.py", "range": {"start": {"line": 6}}},
            "code": {"value": "F401"},
        },
    ],
}
GITLAB: list[Any] = [
    {
        "description": "S608 Possible SQL injection",
        "check_name": "S608",
        "fingerprint": "f1",
        "severity": "major",
        "engine_name": "ruff",
        "categories": ["Security"],
        "location": {"path": "app/db.py", "lines": {"begin": 67, "end": 68}},
    },
    {
        "description": "Unused import",
        "check_name": "F401",
        "severity": "minor",
        "location": {"path": "app/cli.py", "positions": {"begin": {"line": 6}, "end": {"line": 6}}},
    },
]
NATIVE: list[Any] = [
    {
        "bot": "semgrep",
        "finding_id": "sql",
        "severity": "high",
        "category": "security",
        "title": "SQL query built from an f-string",
        "evidence": {"file": "app/db.py", "line": 67, "end_line": 68, "snippet": "", "symbol": ""},
        "confidence": 0.9,
    },
    {
        "bot": "coderabbit",
        "severity": "medium",
        "category": "resource_leak",
        "title": "File handle never closed",
        "evidence": {"file": "app/export.py", "line": 27},
    },
]
COMMENTS: list[Any] = [
    {
        "id": 1001,
        "pull_request_review_id": 900,
        "user": {"login": "copilot-pull-request-reviewer[bot]", "id": 1, "type": "Bot"},
        "body": "The cursor is never closed when `write_rows` raises; use a with block.",
        "path": "src/export.py",
        "line": 33,
        "original_line": 33,
        "start_line": None,
        "side": "RIGHT",
        "in_reply_to_id": None,
        "html_url": "https://github.com/example/repo/pull/7#discussion_r1001",
    },
    {
        "id": 1002,
        "pull_request_review_id": 901,
        "user": {"login": "sourcery-ai[bot]", "id": 2, "type": "Bot"},
        "body": "**issue (bug_risk):** The loop skips the first page when pages start at 1.",
        "path": "src/db.py",
        "line": 59,
        "start_line": 58,
        "side": "RIGHT",
        "in_reply_to_id": None,
    },
]
SCORE: list[Any] = [
    {**DEFAULTS, "category": "security", "issue": "Token compared with ==", "details": "Fix."},
    {**DEFAULTS, "line": "118", "verdict": "LIKELY", "in_diff": "true"},  # the loose forms
]
FREE_TEXT = [
    "## High",
    "- src/ledger/export.py:34 cursor leaks when write_rows raises",
    "[medium] [security] app/db.py:67-68 SQL built from an f-string",
    "HIGH: app/auth.py:12: hard-coded signing key",
    "Some prose that is not a finding.",
]
CHECKSTYLE = [
    '<?xml version="1.0" encoding="{encoding}"?>',
    '<checkstyle version="4.3">',
    '<file name="src/files.js">',
    '<error line="6" column="16" severity="warning" message="Non literal fs filename"'
    ' source="eslint.rules.security/detect-non-literal-fs-filename" />',
    '<error line="7" severity="error" message="unused is never used"'
    ' source="eslint.rules.no-unused-vars" />',
    "</file>",
    "</checkstyle>",
]


def _plan() -> dict[str, Any]:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "plan.json"
        main(
            [
                "review",
                str(fixtures / "review.findings.json"),
                "--bots",
                "4",
                "--format",
                "json",
                "-o",
                str(out),
            ]
        )
        plan: dict[str, Any] = json.loads(out.read_text())
    return plan


PLAN = _plan()
POST = ["post", "--dry-run", "--repo", "example/repo", "--pr", "7"]


def lines_of(records: list[Any]) -> list[str]:
    return [json.dumps(record) for record in records]


# each reader: hostile documents in its format, and the command that reads them
CASES: dict[str, tuple[st.SearchStrategy[str], list[str]]] = {
    "sarif": (hostile_document(SARIF), CONSENSUS),
    "rdjson": (hostile_document(RDJSON), CONSENSUS),
    "rdjsonl": (hostile_lines(lines_of(RDJSON["diagnostics"])), CONSENSUS),
    "gitlab": (hostile_document(GITLAB), CONSENSUS),
    "native": (hostile_document(NATIVE), CONSENSUS),
    "native jsonl": (hostile_lines(lines_of(NATIVE)), CONSENSUS),
    "github comments": (hostile_document(COMMENTS), CONSENSUS),
    "free text": (hostile_lines(FREE_TEXT), CONSENSUS),
    "quorum score records": (hostile_document(SCORE), ["score"]),
    "post plan": (hostile_document(PLAN), POST),
}


@pytest.mark.parametrize("reader", list(CASES))
@SETTINGS
@given(data=st.data())
def test_hostile_input(
    capsys: pytest.CaptureFixture[str], reader: str, data: st.DataObject
) -> None:
    documents, command = CASES[reader]
    text = data.draw(documents, label="text")
    check(capsys, command, text, data.draw(ENCODINGS, label="encoding"))


@SETTINGS
@given(
    value=HOSTILE_TEXT,
    spot=st.sampled_from(['line="6"', 'severity="warning"', 'name="src/files.js"', "message="]),
    nesting=st.integers(0, 1100),
    encoding=ENCODINGS,
)
def test_checkstyle(
    capsys: pytest.CaptureFixture[str], value: str, spot: str, nesting: int, encoding: str
) -> None:
    from xml.sax.saxutils import quoteattr

    def document(declared: str) -> str:
        lines = list(CHECKSTYLE)
        lines[0] = lines[0].format(encoding=declared)
        attribute = spot.split("=")[0]
        replacement = f"{attribute}={quoteattr(value)}"
        lines[3] = lines[3].replace(spot, replacement + (" " if spot.endswith("=") else ""), 1)
        lines.insert(2, "<x>" * nesting + "</x>" * nesting)
        return "\n".join(lines)

    if encoding.startswith("UTF-16") and encoding in READABLE:
        # the declaration names the encoding: compared with its UTF-8 twin
        expected = run(capsys, CONSENSUS, READABLE["UTF-8"](document("UTF-8")))
        assert run(capsys, CONSENSUS, READABLE[encoding](document("UTF-16"))) == expected
    else:
        check(capsys, CONSENSUS, document("UTF-8"), encoding)
