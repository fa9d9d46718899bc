"""The typed SARIF path against the generic one: same findings, same Skipped, same errors.

`sarif_typed.read` returns None when its msgspec decode refuses a document; whenever it
does not, its Batch must equal the generic path's (`sarif.read_parsed`) record for record.
Checked on every SARIF fixture, the example analyser outputs, the shared real-world files
(skipped without ../shared) and Hypothesis-generated documents that mix well-formed and
ill-typed values in every member the reader looks at. Detection must not parse SARIF
whose head shows a top-level ``"runs": [``, and must still find SARIF written otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, REPO_ROOT, examples, shared_path
from review_quorum import ingest
from review_quorum.errors import InputError
from review_quorum.ingest import sarif, sarif_typed
from review_quorum.ingest.base import Batch, ReadOptions, Source
from sarif_documents import documents

SARIF_FIXTURES = sorted((FIXTURES / "ingest").glob("sarif.*.json"))
EXAMPLES = sorted((REPO_ROOT / "examples" / "pr-review" / "analysers").glob("*.sarif"))
# fixtures whose ill-typed members make the typed decode hand the whole file over
GENERIC_ONLY = {"sarif.bad-records.json"}
SETTINGS = settings(
    max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def both_paths(data: bytes, options: ReadOptions | None = None) -> tuple[Batch | None, Batch]:
    typed = sarif_typed.read(Source("x.sarif", data, options))
    return typed, sarif.read_parsed(Source("x.sarif", data, options))


def assert_same(typed: Batch, generic: Batch) -> None:
    assert typed.skipped == generic.skipped
    assert typed.findings == generic.findings


@pytest.mark.parametrize("path", SARIF_FIXTURES + EXAMPLES, ids=lambda path: path.name)
def test_fixtures_read_the_same_by_both_paths(path: Path) -> None:
    typed, generic = both_paths(path.read_bytes(), ReadOptions(root="/tmp/fixproj"))
    if path.name in GENERIC_ONLY:
        assert typed is None
    else:
        assert typed is not None, "the typed decode should take this file"
        assert_same(typed, generic)
    assert generic.findings or generic.skipped


@pytest.mark.parametrize("folder", ["fixtures/sarif", "corpora/securibench-micro-js/sarif"])
def test_shared_real_world_files_read_the_same_by_both_paths(folder: str) -> None:
    paths = sorted(shared_path(*folder.split("/")).glob("*.sarif"))
    assert paths
    for path in paths:
        typed, generic = both_paths(path.read_bytes())
        assert typed is not None, f"{path.name}: the typed decode should take this file"
        assert_same(typed, generic)
        assert len(generic.findings) > 50, path.name


RULES = [
    {"id": "r1", "shortDescription": {"text": "Rule one."}},
    {
        "id": "r2",
        "messageStrings": {"m1": {"text": "Say {0}."}},
        "properties": {"precision": "low"},
    },
]
PHYSICAL = {"artifactLocation": {"uri": "src/a.py"}, "region": {"startLine": 3, "endLine": 5}}
SHAPES: dict[str, dict[str, Any]] = {
    "plain": {"locations": [{"physicalLocation": PHYSICAL}]},
    "snippet without a start line": {
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "a.py"},
                    "region": {"snippet": {"text": "x"}},
                }
            }
        ]
    },
    "no region": {"locations": [{"physicalLocation": {"artifactLocation": {"uri": "b.py"}}}]},
    "no artifact": {"locations": [{"physicalLocation": {"region": {"startLine": 2}}}]},
    "start line 0": {"locations": [{"physicalLocation": {"region": {"startLine": 0}}}]},
    "end before start": {
        "locations": [{"physicalLocation": {"region": {"startLine": 4, "endLine": 2}}}]
    },
    "artifact index": {"locations": [{"physicalLocation": {"artifactLocation": {"index": 1}}}]},
    "artifact index out of range": {
        "locations": [{"physicalLocation": {"artifactLocation": {"index": 7}}}]
    },
    "logical only": {"locations": [{"logicalLocations": [{"fullyQualifiedName": "m.f"}]}]},
    "logical and physical": {
        "locations": [{"physicalLocation": PHYSICAL, "logicalLocations": [{"name": "g"}]}]
    },
    "no locations": {"locations": []},
    "base id": {
        "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "c.py", "uriBaseId": "SRC"}}}
        ]
    },
    "rule index": {"ruleIndex": 1},
    "reference by index": {"rule": {"index": 1}},
    "reference with null id": {"rule": {"id": None, "index": 0}},
    "message id": {"message": {"id": "m1", "arguments": ["it"]}, "ruleId": "r2"},
    "empty sentence": {"message": {"text": "."}},
    "result properties": {"properties": {"security-severity": "9.5", "tags": ["CWE-89"]}},
    "rank": {"rank": 40},
    "rank out of range": {"rank": 400},
    "kind pass": {"kind": "pass"},
    "level none": {"level": "none"},
    "suppressed": {"suppressions": [{"kind": "inSource"}]},
    "suppression rejected": {"suppressions": [{"kind": "external", "status": "rejected"}]},
    "baseline absent": {"baselineState": "absent"},
    "fingerprints": {"partialFingerprints": {"b": "2", "a": "1"}},
}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES)
def test_each_result_shape_reads_the_same_by_both_paths(shape: dict[str, Any]) -> None:
    result = {"ruleId": "r1", "message": {"text": "Found it. Details."}, **shape}
    run = {
        "tool": {"driver": {"name": "Tool", "rules": RULES}},
        "artifacts": [{"location": {"uri": "zero.py"}}, {"location": {"uri": "one.py"}}],
        "originalUriBaseIds": {"SRC": {"uri": "file:///repo/src/"}},
        "results": [result, result],
    }
    typed, generic = both_paths(orjson.dumps({"version": "2.1.0", "runs": [run]}))
    assert typed is not None
    assert_same(typed, generic)


OPTIONS = st.builds(
    ReadOptions,
    bot=st.sampled_from([None, "mybot"]),
    root=st.sampled_from([None, "/repo"]),
)


@SETTINGS
@given(documents(with_odd=False), OPTIONS)
def test_well_typed_documents_take_the_typed_path_with_the_generic_result(
    document: dict[str, Any], options: ReadOptions
) -> None:
    typed, generic = both_paths(json.dumps(document).encode(), options)
    assert typed is not None
    assert_same(typed, generic)


@SETTINGS
@given(documents(with_odd=True), OPTIONS)
def test_any_document_reads_as_the_generic_path_reads_it(
    document: dict[str, Any], options: ReadOptions
) -> None:
    data = json.dumps(document).encode()  # orjson cannot write integers beyond 64 bits
    try:
        expected: Batch | str = sarif.read_parsed(Source("x.sarif", data, options))
    except InputError as err:
        expected = str(err)
    typed = sarif_typed.read(Source("x.sarif", data, options))
    if typed is not None:
        assert isinstance(expected, Batch), expected
        assert_same(typed, expected)
    try:
        batch: Batch | str = sarif.READER.read(Source("x.sarif", data, options))
    except InputError as err:
        batch = str(err)
    if isinstance(batch, Batch):
        assert isinstance(expected, Batch), expected
        assert_same(batch, expected)
    else:
        assert batch == expected


def test_a_title_that_is_no_sentence_falls_back_to_the_rule_every_time() -> None:
    # the per-run title cache once kept the empty title and used it for the next result
    result = {"ruleId": "r1", "message": {"text": "."}}
    rule = {"id": "r1", "shortDescription": {"text": "Rule one."}}
    run = {"tool": {"driver": {"name": "t", "rules": [rule]}}, "results": [result, result]}
    data = orjson.dumps({"version": "2.1.0", "runs": [run]})
    for batch in both_paths(data):
        assert batch is not None
        assert [finding.title for finding in batch.findings] == ["Rule one", "Rule one"]


def test_detection_reads_no_json_when_the_head_shows_sarif() -> None:
    source = Source("scan.sarif", (FIXTURES / "ingest" / "sarif.semgrep-shop.json").read_bytes())
    assert ingest.detect_format(source) == "sarif"
    batch = ingest.read(source)
    assert source.parsed() is None  # no orjson parse: the typed path decoded the bytes
    assert len(batch.findings) == 4


@pytest.mark.parametrize(
    ("data", "detected", "parsed"),
    [
        (b'{"version": "2.1.0", "runs": []}', True, False),
        (b'\xef\xbb\xbf\n {"$schema": "s", "version" : "2.1.0", "runs" :[]}', True, False),
        (b'{"note": "say \\"runs\\": [ here", "n": -1.5e3, "runs": []}', True, False),
        (b'{"properties": {"a": {"b": 1}}, "runs": [], "version": "2.1.0"}', True, True),
        (b'{"inlineExternalProperties": [{"runs": 1}], "runs": []}', True, True),
        (b'{"data": {"runs": []}}', False, True),
        (b'{"runs": 5}', False, True),
        (b'{"runs": {"a": []}}', False, True),
        (b'{"diagnostics": [], "runs": "x"}', False, True),
        (b'[{"runs": []}]', False, False),
    ],
)
def test_detection_by_head_or_else_by_parsing(data: bytes, detected: bool, parsed: bool) -> None:
    source = Source("x", data)
    assert sarif.READER.detect(source) is detected
    assert (source.parsed() is not None) is parsed


def test_a_document_parsed_already_is_read_without_decoding_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(source: Source) -> Batch | None:
        raise AssertionError("the typed path decoded a document that was parsed already")

    monkeypatch.setattr(sarif_typed, "read", refuse)
    source = Source("x.sarif", (FIXTURES / "ingest" / "sarif.ruff-shop.json").read_bytes())
    source.json()
    assert len(sarif.READER.read(source).findings) == 8


def test_broken_json_with_a_sarif_head_names_the_position() -> None:
    source = Source("cut.sarif", b'{"version": "2.1.0", "runs": [{"results": [')
    assert ingest.detect_format(source) == "sarif"
    with pytest.raises(InputError, match=r"cut\.sarif:line 1 column 44: invalid JSON"):
        ingest.read(source)


def test_invalid_utf8_in_a_member_the_reader_skips_is_read_by_the_typed_path() -> None:
    # the known difference: msgspec does not check what it skips, orjson checks everything
    rule = b'{"id": "r1", "help": {"text": "caf\xe9"}}'
    data = (
        b'{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t", "rules": ['
        + rule
        + b']}}, "results": [{"ruleId": "r1", "message": {"text": "Found."}}]}]}'
    )
    assert [f.title for f in sarif.READER.read(Source("x.sarif", data)).findings] == ["Found"]
    with pytest.raises(InputError, match=r"^x\.sarif:line 1 column 109: not UTF-8"):
        sarif.read_parsed(Source("x.sarif", data))


# --- boundary examples beside the comparisons above ----------------------------------------


def one_result(region: dict[str, Any], **result: Any) -> bytes:
    location = {"physicalLocation": {"artifactLocation": {"uri": "a.py"}, "region": region}}
    document = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "t"}},
                "results": [{"message": {"text": "Found."}, "locations": [location], **result}],
            }
        ],
    }
    return orjson.dumps(document)


LINE_EDGES = [
    ({"startLine": 1}, (1, None), ""),
    ({"startLine": 2147483647}, (2147483647, None), ""),
    ({"startLine": 2147483647, "endLine": 2147483647}, (2147483647, 2147483647), ""),
    ({"startLine": 4, "endLine": 4}, (4, 4), ""),
    ({"startLine": 4, "endLine": 3}, None, "endLine must be an integer >= startLine, not 3"),
    ({"startLine": 0}, None, "startLine must be a positive integer, not 0"),
    (
        {"startLine": 2147483648},
        None,
        "evidence for 'a.py': line must be at most 2147483647, not 2147483648",
    ),
    (
        {"startLine": 2**63 - 1},
        None,
        "evidence for 'a.py': line must be at most 2147483647, not 9223372036854775807",
    ),
]


@pytest.mark.parametrize(("region", "lines", "reason"), LINE_EDGES)
def test_line_numbers_at_the_edges_read_the_same_by_both_paths(
    region: dict[str, Any], lines: tuple[int, int | None] | None, reason: str
) -> None:
    typed, generic = both_paths(one_result(region))
    assert typed is not None
    assert_same(typed, generic)
    assert [(f.line, f.evidence.end_line) for f in generic.findings] == ([lines] if lines else [])
    assert [s.reason for s in generic.skipped] == ([reason] if reason else [])


@pytest.mark.parametrize("rank", [0, 100, 100.0, -1, 0.5])
def test_ranks_at_the_edges_read_the_same_by_both_paths(rank: float) -> None:
    typed, generic = both_paths(one_result({"startLine": 3}, rank=rank))
    assert typed is not None
    assert_same(typed, generic)
    # a rank is a priority: it is checked, never read as the finding's confidence
    assert [f.confidence for f in generic.findings] == [1.0]
    # it orders findings instead, as a priority on a 0-1 scale (-1: none stated)
    assert [f.priority for f in generic.findings] == [-1.0 if rank == -1 else rank / 100]


@pytest.mark.parametrize("rank", [100.5, -0.5, 101])
def test_a_rank_beyond_the_edges_is_skipped_by_both_paths(rank: float) -> None:
    typed, generic = both_paths(one_result({"startLine": 3}, rank=rank))
    assert typed is not None
    assert_same(typed, generic)
    assert [s.reason for s in generic.skipped] == [
        f"rank must be a number from 0 to 100, not {rank!r}"
    ]


def test_an_integer_beyond_64_bits_is_left_to_the_generic_path() -> None:
    data = one_result({"startLine": 0}).replace(b'"startLine":0', f'"startLine":{2**64}'.encode())
    typed, generic = both_paths(data)
    assert typed is None
    assert [s.reason for s in generic.skipped] == [
        "startLine must be a positive integer, not 1.8446744073709552e+19"
    ]
