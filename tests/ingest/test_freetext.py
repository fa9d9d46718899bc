"""Free-text reviewer lines: tags and paths on word boundaries, skips, detection as the fallback."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from review_quorum import ingest
from review_quorum.errors import InputError, Skipped
from review_quorum.ingest import freetext
from review_quorum.ingest.base import ReadOptions, Source
from review_quorum.ingest.bots import ParsedFinding
from review_quorum.ingest.freetext import READER, parse_line
from review_quorum.model import Severity

REVIEW = FIXTURES / "comments" / "freetext.llm-review.md"
H, M, L, C = Severity.HIGH, Severity.MEDIUM, Severity.LOW, Severity.CRITICAL
INFO = Severity.INFO


def test_reads_the_example_review() -> None:
    batch = READER.read(Source("review.md", REVIEW.read_bytes()))
    assert [
        (f.finding_id, f.bot, f.severity, f.category, f.title, f.file, f.line, f.evidence.end_line)
        for f in batch.findings
    ] == [
        ("line 5", "reviewer", H, "security",
         "SQL injection: the month is formatted into the query string", "src/ledger/report.py", 42,
         None),
        ("line 6", "reviewer", H, "resource_leak", "cursor is not closed when write_rows raises",
         "src/ledger/export.py", 33, None),
        ("line 7", "reviewer", M, "concurrency", "race condition on the shared retry counter",
         "src/ledger/sync.py", 42, 48),
        ("line 8", "reviewer", L, "documentation", "typo in the --month help text",
         "src/ledger/cli.py", 12, None),
        ("line 9", "reviewer", C, "security", "webhook secret compared with ==",
         "src/ledger/webhooks.py", 18, None),
        ("line 10", "reviewer", INFO, "other", "the example output is out of date", "docs/usage.md",
         None, None),
        ("line 11", "reviewer", C, "other", "runs the service as root", "Dockerfile", 3, None),
        ("line 13", "reviewer", M, "other", "see notes", "", None, None),
        ("line 15", "reviewer", H, "other",
         "The refund handler trusts the client-supplied amount in src/ledger/refunds.py:40 and "
         "later lines", "src/ledger/refunds.py", 40, None),
        ("line 22", "reviewer", M, "other", "rounding differs from the invoice module",
         "src/ledger/money.py", 7, None),
    ]  # fmt: skip
    assert batch.skipped == [
        Skipped("review.md", "line 12", "severity tag without a finding message")
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[high] src/a.py:42 message", (H, "src/a.py", 42, None, "message")),
        ("HIGH: src/a.py:42: message", (H, "src/a.py", 42, None, "message")),
        ("- **[medium]** `src/a.py:42-48` message", (M, "src/a.py", 42, 48, "message")),
        ("src/a.py:42: [low] message", (L, "src/a.py", 42, None, "message")),
        ("src/a.py:42: low: message", (L, "src/a.py", 42, None, "message")),
        ("**High**: a.py:3 message", (H, "a.py", 3, None, "message")),
        ("**High:** a.py:3 message", (H, "a.py", 3, None, "message")),
        ("(critical) a.go:3:14 message", (C, "a.go", 3, None, "message")),
        ("1) [nit] ./pkg/b.rs#L4-L9 message", (L, "pkg/b.rs", 4, 9, "message")),
        ("* [ ] [major] web\\app.ts:8 message", (H, "web/app.ts", 8, None, "message")),
        ("[info] README.md message", (INFO, "README.md", None, None, "message")),
        ("[high] message mentions lib/x.py:7 later", (H, "lib/x.py", 7, None,
                                                      "message mentions lib/x.py:7 later")),
        ("[high] message without any location", (H, "", None, None,
                                                 "message without any location")),
        ("[high] os.path is misused here", (H, "", None, None, "os.path is misused here")),
        ("[medium] 2024/01/02 is the cutoff", (M, "", None, None, "2024/01/02 is the cutoff")),
        ("[high] https://example.com/a:80 is down", (H, "", None, None,
                                                     "https://example.com/a:80 is down")),
        ("[low] src/a.py:9 - **bold** and `code`. Second sentence.",
         (L, "src/a.py", 9, None, "bold and code")),
    ],
)  # fmt: skip
def test_finding_lines(line: str, expected: tuple[object, ...]) -> None:
    draft = parse_line(line)
    assert isinstance(draft, ParsedFinding)
    assert (draft.severity, draft.file, draft.line, draft.end_line, draft.title) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Some prose about highlights and os.path.",
        "highlight: src/a.py:1 not a tag",
        "[highlight] src/a.py:1 not a tag either",
        "Note: src/a.py:3 notes are not severities",
        "src/a.py:3 a location without a tag",
        "The high road is src/a.py:3",
        "",
        "   ",
    ],
)
def test_prose_lines_are_ignored(line: str) -> None:
    assert parse_line(line) is None


@pytest.mark.parametrize("line", ["[high]", "HIGH:", "**[low]**   ", "[medium] 42", "[high] ---"])
def test_a_tag_without_a_message_is_skipped(line: str) -> None:
    assert parse_line(line) == "severity tag without a finding message"


@pytest.mark.parametrize(
    ("line", "category"),
    [
        ("[high] [security] a.py:1 looks fine", "security"),
        ("[high] [logic_error] a.py:1 looks fine", "logic_error"),
        ("[high] (error-handling) a.py:1 looks fine", "error_handling"),
        ("[high] [Data Integrity] a.py:1 looks fine", "data_integrity"),
        ("[high] a.py:1 the lock is taken twice, a deadlock", "concurrency"),
        ("[high] [not-a-category] a.py:1 looks fine", "other"),
    ],
)
def test_category_tag_or_keyword_guess(line: str, category: str) -> None:
    draft = parse_line(line)
    assert isinstance(draft, ParsedFinding)
    assert draft.category == category


def test_a_severity_heading_tags_the_list_items_under_it() -> None:
    text = "## High\n- a.py:1 first\n## Notes\n- a.py:2 second\n### Low priority\n- b.py:3 third"
    batch = READER.read(Source("r.md", text.encode()))
    assert [(f.severity, f.file, f.line) for f in batch.findings] == [
        (H, "a.py", 1),
        (L, "b.py", 3),
    ]


def test_fenced_blocks_are_not_read() -> None:
    text = "```yaml\nhigh: 5\n[high] a.py:1 inside a fence\n```\n[low] b.py:2 outside"
    batch = READER.read(Source("r.md", text.encode()))
    assert [(f.file, f.finding_id) for f in batch.findings] == [("b.py", "line 5")]


def test_bot_and_root_options() -> None:
    text = b"[high] /repo/src/a.py:3 absolute path\n"
    batch = READER.read(Source("r.txt", text, ReadOptions(bot="claude", root="/repo")))
    assert [(f.bot, f.file) for f in batch.findings] == [("claude", "src/a.py")]


def test_text_that_is_not_utf8_is_an_error_naming_line_and_column() -> None:
    with pytest.raises(InputError) as caught:
        READER.read(Source("r.txt", b"\xef\xbb\xbf[high] a.py:3 ok\n[low] a.py:4 caf\xe9 broken\n"))
    assert str(caught.value) == (
        "r.txt:line 2 column 17: not UTF-8 (byte 0xe9: invalid continuation byte); quorum "
        "reads UTF-8 (with or without a byte-order mark) and UTF-16 with one: convert a "
        "Latin-1 or Windows-1252 file to UTF-8 first"
    )


def test_utf16_with_a_byte_order_mark_reads_as_utf8() -> None:
    text = "[high] a.py:3 café broken\n"
    for data in (text.encode("utf-16"), b"\xfe\xff" + text.encode("utf-16-be")):
        batch = READER.read(Source("r.txt", data))
        assert [(f.file, f.line, f.title) for f in batch.findings] == [("a.py", 3, "café broken")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (REVIEW.read_bytes(), "freetext"),
        (b"[high] src/a.py:42 message\n", "freetext"),
        (b'{"bot": "a", "severity": "high", "category": "other", "title": "t"}\n' * 2, "native"),
        (b'[{"bot": "a", "severity": "high", "category": "other", "title": "t"}]', "native"),
    ],
)
def test_detection(data: bytes, expected: str) -> None:
    assert ingest.detect_format(Source("x", data)) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"just prose without findings\n",
        b"<?xml version='1.0'?><report>[high] a.py:1 in XML</report>",
        b'{"broken": "[high] a.py:1"',
        b"\x00\x01\x02 binary",
        b"",
    ],
)
def test_content_without_finding_lines_or_in_another_format_is_not_free_text(data: bytes) -> None:
    assert not READER.detect(Source("x", data))


NOT_A_FINDING_LINE = (
    "x:line 1: no line looks like a finding ('[high] path:line message') and it is not "
    "JSON or XML; pass --input-format freetext to read it as a review without findings"
)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"just prose without findings\n", NOT_A_FINDING_LINE),
        (b"\x00\x01 binary", NOT_A_FINDING_LINE),
        (b"ok\n\xff", "x:line 2 column 1: not UTF-8 (byte 0xff: invalid start byte)"),
        (
            b"<?xml version='1.0'?><report/>",
            "x:line 1: XML whose root element is not <checkstyle>",
        ),
    ],
)
def test_undetectable_content_is_an_input_error_saying_where(data: bytes, message: str) -> None:
    with pytest.raises(InputError) as caught:
        ingest.detect_format(Source("x", data))
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("data", [b"", b"\n \n", b"\xef\xbb\xbf"])
def test_an_empty_file_holds_no_findings(data: bytes) -> None:
    assert ingest.read(Source("x", data)).findings == []


@pytest.mark.parametrize("data", [b"[1, 2]", b'{"a": 1}', b"<?xml version='1.0'?><checkstyle/>"])
def test_json_or_xml_read_as_free_text_is_an_error(data: bytes) -> None:
    with pytest.raises(InputError, match=r"^x:line 1: the file is (JSON|XML), not free text"):
        READER.read(Source("x", data))


def test_an_invalid_draft_becomes_a_skipped_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(lines: object) -> list[tuple[int, ParsedFinding]]:
        return [(1, ParsedFinding(Severity.LOW, "other", "t", "a.py", line=5, end_line=2))]

    monkeypatch.setattr(freetext, "parse_lines", broken)
    batch = READER.read(Source("r.txt", b"anything"))
    assert batch.findings == []
    assert [(s.position, "end_line 2" in s.reason) for s in batch.skipped] == [("line 1", True)]
