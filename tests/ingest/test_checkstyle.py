"""Checkstyle XML input, parsed safely."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import FIXTURES
from review_quorum.errors import InputError
from review_quorum.ingest import checkstyle, detect_format
from review_quorum.ingest.base import Batch, ReadOptions, Source

INGEST = FIXTURES / "ingest"
ENTITY_REASON = "entities can expand without bound or read other files"


def read_file(name: str, **options: Any) -> Batch:
    return checkstyle.READER.read(
        Source(name, (INGEST / name).read_bytes(), ReadOptions(**options))
    )


def test_eslint_checkstyle_output() -> None:
    batch = read_file("checkstyle.eslint-files.xml", root="/tmp/eslintproj")
    assert batch.skipped == []
    assert [
        (f.bot, f.finding_id, f.severity.label, f.category, f.file, f.line) for f in batch.findings
    ] == [
        (
            "eslint",
            "security/detect-non-literal-fs-filename",
            "medium",
            "security",
            "src/files.js",
            6,
        ),
        ("eslint", "no-unused-vars", "high", "maintainability", "src/files.js", 7),
        ("eslint", "security/detect-object-injection", "medium", "security", "src/files.js", 12),
        ("eslint", "security/detect-unsafe-regex", "medium", "security", "src/files.js", 16),
        (
            "eslint",
            "security/detect-eval-with-expression",
            "medium",
            "security",
            "src/files.js",
            17,
        ),
        ("eslint", "no-eval", "medium", "security", "src/files.js", 17),
    ]
    assert batch.findings[1].title == "'unused' is assigned a value but never used"


def test_checkstyle_shape_severities_lines_and_skipped_errors() -> None:
    batch = read_file("checkstyle.checkstyle-java.xml")
    prefix = "com.puppycrawl.tools.checkstyle.checks."
    assert [
        (
            f.bot,
            f.finding_id.removeprefix(prefix),
            f.severity.label,
            f.category,
            f.title,
            f.file,
            f.line,
        )
        for f in batch.findings
    ] == [
        (
            "checkstyle",
            "javadoc.MissingJavadocMethodCheck",
            "medium",
            "documentation",
            "Missing a Javadoc comment",
            "src/main/java/shop/Order.java",
            12,
        ),
        (
            "checkstyle",
            "coding.HiddenFieldCheck",
            "high",
            "maintainability",
            "'total' hides a field",
            "src/main/java/shop/Order.java",
            30,
        ),
        (
            "checkstyle",
            "NewlineAtEndOfFileCheck",
            "low",
            "other",
            "File does not end with a newline",
            "src/main/java/shop/Order.java",
            None,
        ),
        (
            "checkstyle",
            "naming.MemberNameCheck",
            "medium",
            "maintainability",
            "No severity given",
            "C:/build/shop/src/main/java/shop/Cart.java",
            7,
        ),
    ]
    assert [(s.source, s.position, s.reason) for s in batch.skipped] == [
        (
            "checkstyle.checkstyle-java.xml",
            "line 8",
            "severity 'ignore': the tool was told not to report it",
        ),
        ("checkstyle.checkstyle-java.xml", "line 9", 'line must be a whole number, not "forty"'),
        (
            "checkstyle.checkstyle-java.xml",
            "line 10",
            'unknown severity "fatal" (expected error, warning or info)',
        ),
        (
            "checkstyle.checkstyle-java.xml",
            "line 12",
            "an <error> outside any <file> has no file to point at",
        ),
    ]


def test_root_and_bot_options() -> None:
    batch = read_file("checkstyle.checkstyle-java.xml", root="C:\\build\\shop", bot="java-lint")
    assert {f.bot for f in batch.findings} == {"java-lint"}
    assert batch.findings[-1].file == "src/main/java/shop/Cart.java"


@pytest.mark.parametrize(
    ("name", "position", "message"),
    [
        (
            "checkstyle.billion-laughs.xml",
            "line 3",
            f'refused the XML entity declaration "lol": {ENTITY_REASON}',
        ),
        (
            "checkstyle.external-entity.xml",
            "line 3",
            f'refused the XML entity declaration "secret": {ENTITY_REASON}',
        ),
        ("checkstyle.malformed.xml", "line 5 column 5", "invalid XML: mismatched tag"),
    ],
)
def test_unsafe_and_malformed_xml_is_refused_naming_file_and_position(
    name: str, position: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        read_file(name)
    assert (caught.value.source, caught.value.position, caught.value.message) == (
        name,
        position,
        message,
    )


@pytest.mark.parametrize(
    ("data", "position", "message"),
    [
        (b"<pmd><file/></pmd>", "line 1", "root element is <pmd>, not <checkstyle>"),
        (
            b"<checkstyle>\n\xff\xfe</checkstyle>",
            "line 2 column 1",
            "not UTF-8 (byte 0xff: invalid start byte); quorum reads UTF-8 (with or without a "
            "byte-order mark) and UTF-16 with one: convert a Latin-1 or Windows-1252 file to "
            "UTF-8 first",
        ),
        (
            b'<?xml version="1.0" encoding="ISO-8859-1"?><checkstyle>\n\x00\xff</checkstyle>',
            "line 2 column 1",
            "invalid XML: not well-formed (invalid token)",
        ),
        (b"<checkstyle><file name='a'>", "line 1 column 28", "invalid XML: no element found"),
        (b"", "line 1 column 1", "invalid XML: no element found"),
        (
            b'<?xml version="1.0" encoding="U-TF-8"?><checkstyle/>',
            "line 1",
            "unusable XML encoding: unknown encoding: U-TF-8",
        ),
    ],
)
def test_other_broken_documents(data: bytes, position: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        checkstyle.READER.read(Source("lint.xml", data))
    assert (caught.value.position, caught.value.message) == (position, message)


def test_an_external_dtd_is_never_fetched() -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE checkstyle SYSTEM "http://127.0.0.1:9/x.dtd">\n'
        b'<checkstyle version="1"><file name="a.js"><error line="1" message="m" source="s"/>'
        b"</file></checkstyle>"
    )
    batch = checkstyle.READER.read(Source("lint.xml", data))
    assert [(f.file, f.line, f.title) for f in batch.findings] == [("a.js", 1, "m")]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ((INGEST / "checkstyle.eslint-files.xml").read_bytes(), "checkstyle"),
        ((INGEST / "checkstyle.checkstyle-java.xml").read_bytes(), "checkstyle"),
        (b'\xef\xbb\xbf<?xml version="1.0"?>\n<checkstyle/>', "checkstyle"),
    ],
)
def test_detection_by_content(data: bytes, expected: str) -> None:
    assert detect_format(Source("lint.txt", data)) == expected
    assert not checkstyle.READER.detect(Source("checkstyle.xml", b"<pmd/>"))
