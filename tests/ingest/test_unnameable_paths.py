"""Issue 33 item 4: a path with a control or bidi character names no file of a pull request
and displays as another one; every reader counts its finding as skipped, and nothing of it
reaches an output. Paths outside the repository are kept, with a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_quorum import ingest
from review_quorum.cli import main
from review_quorum.ingest.base import Source
from review_quorum.ingest.paths import outside_repository

BIDI = "app/\u202efdp.exe"  # displays as app/exe.pdf
UNNAMEABLE = [BIDI, "app/a\x00.py", "app/a\n.py", "app/a\u200b.py", "app/a\u2028.py"]


def documents(path: str) -> dict[str, str]:
    """One finding at `path` in every format that names files."""
    location = {"path": path, "range": {"start": {"line": 3}}}
    return {
        "sarif": json.dumps(
            {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "Bandit"}}, "results": [
                {"ruleId": "B1", "message": {"text": "Use of eval."}, "locations": [
                    {"physicalLocation": {"artifactLocation": {"uri": path},
                                          "region": {"startLine": 3}}}]}]}]}
        ),
        "rdjson": json.dumps(
            {"source": {"name": "lint"},
             "diagnostics": [{"message": "x", "location": location, "severity": "ERROR"}]}
        ),
        "rdjsonl": json.dumps({"message": "x", "location": location, "severity": "ERROR"}),
        "gitlab": json.dumps(
            [{"description": "x", "check_name": "c", "fingerprint": "f", "severity": "major",
              "location": {"path": path, "lines": {"begin": 3}}}]
        ),
        "native": json.dumps(
            [{"bot": "a", "severity": "high", "category": "security", "title": "t",
              "evidence": {"file": path, "line": 3}}]
        ),
        "github-comments": json.dumps(
            [{"id": 1, "user": {"login": "Copilot", "type": "Bot"}, "body": "A bug here.",
              "path": path, "line": 3}]
        ),
    }  # fmt: skip


@pytest.mark.parametrize("path", UNNAMEABLE, ids=["bidi", "nul", "newline", "zwsp", "lsep"])
@pytest.mark.parametrize("format", list(documents("x")))
def test_every_reader_counts_a_finding_at_an_unnameable_path_as_skipped(
    format: str, path: str
) -> None:
    batch = ingest.read(Source("in", documents(path)[format].encode()), format)
    assert batch.findings == []
    (skipped,) = batch.skipped
    assert f"file path {path!r} holds a control or invisible character" in skipped.reason
    assert not skipped.not_a_finding  # a broken record, counted as such


def test_checkstyle_too() -> None:
    xml = (
        '<?xml version="1.0"?><checkstyle><file name="' + BIDI + '"><error line="3" '
        'severity="error" message="x" source="a.b"/></file></checkstyle>'
    )
    batch = ingest.read(Source("in.xml", xml.encode()), "checkstyle")
    assert batch.findings == [] and len(batch.skipped) == 1


def test_printable_non_ascii_paths_are_read() -> None:
    for path in ["docs/é.md", "src/日本.py", "a b/c.py", "a\u00a0b.py"]:
        batch = ingest.read(Source("in", documents(path)["native"].encode()), "native")
        assert [f.file for f in batch.findings] == [path]


@pytest.mark.parametrize("output_format", ["markdown", "json", "sarif", "github-review"])
def test_no_output_carries_the_bidi_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], output_format: str
) -> None:
    findings = tmp_path / "findings.json"
    records = [
        {"bot": bot, "severity": "high", "category": "security", "title": "Use of eval",
         "evidence": {"file": file, "line": 3}}
        for bot in ("a", "b") for file in (BIDI, "app/ok.py")
    ]  # fmt: skip
    findings.write_text(json.dumps(records))
    diff = tmp_path / "pr.diff"
    diff.write_text("--- a/app/ok.py\n+++ b/app/ok.py\n@@ -1,0 +1,3 @@\n+a\n+b\n+c\n")
    status = main(
        ["review", "--diff", str(diff), "--bots", "a,b", "--format", output_format,
         "--gate-level", "none", str(findings)]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0
    assert "\u202e" not in out + err
    assert "2 input record(s) skipped" in err


@pytest.mark.parametrize(
    ("path", "outside"),
    [
        ("/etc/passwd", True),
        ("C:/work/a.py", True),
        ("//server/share/a.py", True),
        ("../a.py", True),
        ("..", True),
        ("https://example.com/a.py", True),
        ("javascript:alert(1)", True),
        ("src/a.py", False),
        ("..a/b.py", False),
        ("", False),
    ],
)
def test_outside_repository(path: str, outside: bool) -> None:
    assert outside_repository(path) is outside


def test_paths_outside_the_repository_are_kept_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        {"bot": "a", "severity": "high", "category": "security", "title": f"t{n}",
         "evidence": {"file": file, "line": 3}}
        for n, file in enumerate(["/etc/passwd", "../x.py", "https://e.example/a.py", "src/a.py"])
    ]  # fmt: skip
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps(records))
    assert main(["consensus", "--bots", "1", "--format", "json", str(findings)]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["findings"]) == 4
    assert (
        "warning: 3 findings name a path outside the repository (absolute, ../, URL or UNC), "
        "such as '../x.py'"
    ) in err
