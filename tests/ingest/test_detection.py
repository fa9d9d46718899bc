"""Detection reads one record of an array, never the whole document (SPEC 6: auto-detected)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from conftest import FIXTURES
from review_quorum.errors import InputError
from review_quorum.ingest import detect_format, read
from review_quorum.ingest.base import Source, first_element

INGEST = FIXTURES / "ingest"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"[]", []),
        (b" \r\n [ \t] ", []),
        (b"[1, 2]", [1]),
        (b'[{"a": "x,]}\\"", "b": [1, {}]}, 3]', [{"a": 'x,]}"', "b": [1, {}]}]),
        (b"[[1, [2]], [3]]", [[1, [2]]]),
        (b'["s\\\\"]', ["s\\"]),
        (b'[{"a": 1}][{"a": 2}]', [{"a": 1}]),  # pages back to back
        (b'[{"a": 1', None),  # cut inside the first element
        (b"[1 2]", None),
        (b'{"a": []}', None),
        (b"[", None),
        (b"", None),
    ],
)
def test_first_element_parses_only_the_first_record(data: bytes, expected: object) -> None:
    assert first_element(data) == expected


@pytest.mark.parametrize(
    ("path", "format"),
    [
        (FIXTURES / "native.three-bots.json", "native"),
        (INGEST / "gitlab.ruff-shop.json", "gitlab"),
        (FIXTURES / "comments" / "github.pull-request-comments.json", "github-comments"),
    ],
)
def test_arrays_are_detected_without_parsing_the_document(path: Path, format: str) -> None:
    source = Source(path.name, path.read_bytes())
    assert detect_format(source) == format
    assert source.parsed() is None  # the reader parses it once, its own way


@pytest.mark.parametrize(
    ("name", "format", "line"),
    [("native.three-bots.json", "native", 25), ("ingest/gitlab.ruff-shop.json", "gitlab", 40)],
)
def test_a_file_broken_after_its_first_record_names_the_line_and_column(
    name: str, format: str, line: int
) -> None:
    records = orjson.loads((FIXTURES / name).read_bytes())
    data = orjson.dumps(records[:2], option=orjson.OPT_INDENT_2)[:-3] + b"\n  }x\n]"
    source = Source("broken.json", data)
    assert detect_format(source) == format
    with pytest.raises(InputError) as raised:
        read(source)
    assert str(raised.value) == (
        f"broken.json:line {line} column 4: invalid JSON: unexpected character, expected ',' or ']'"
    )
