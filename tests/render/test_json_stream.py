"""Streamed JSON documents equal the whole document dumped at once, byte for byte."""

from __future__ import annotations

import tracemalloc

import msgspec
import orjson
import pytest

from review_quorum import Evidence, NormalizedFinding, Severity, compute_consensus
from review_quorum.errors import Skipped
from review_quorum.render.json_stream import MEMBERS, Stream, consensus_document, document
from review_quorum.render.serialize import consensus_data, skipped_data


def findings(count: int) -> list[NormalizedFinding]:
    return [
        NormalizedFinding(
            bot=f"bot{index % 3}",
            finding_id=str(index),
            severity=Severity(index % 5),
            category="security",
            title=f'weak "hash"\n<b>{index // 2}</b> \u2028 caf\u00e9',
            evidence=Evidence(file="a.py", line=index // 2 + 1 if index % 4 else None),
            confidence=0.5,
        )
        for index in range(count)
    ]


@pytest.mark.parametrize("model", ["agreement", "reliability"])
@pytest.mark.parametrize("count", [0, 1, 7])
@pytest.mark.parametrize("chunk", [1, 2, 3, 2000])
def test_consensus_document_is_the_whole_dump(count: int, chunk: int, model: str) -> None:
    consensus = compute_consensus(findings(count), bots_ran=4, model=model)  # type: ignore[arg-type]
    skipped = [Skipped("x.json", f"/{index}", "bad") for index in range(count % 3)]
    whole = {
        "bots_ran": 4,
        "findings": [consensus_data(finding) for finding in consensus],
        "skipped": [skipped_data(item) for item in skipped],
    }
    streamed = b"".join(consensus_document(consensus, 4, skipped, chunk=chunk))
    assert streamed == orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"


def test_plain_members_nest_like_the_whole_dump() -> None:
    members = [
        ("counts", {"inline": [1, {"deep": []}]}),
        ("items", Stream(range(3), lambda number: {"n": number, "list": [number]})),
        ("empty", Stream([], str)),
        ("text", "a\nb"),
    ]
    whole = {
        "counts": {"inline": [1, {"deep": []}]},
        "items": [{"n": number, "list": [number]} for number in range(3)],
        "empty": [],
        "text": "a\nb",
    }
    for chunk in (1, 2, 5):
        streamed = b"".join(document(members, chunk=chunk))
        assert streamed == orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(document([])) == b"{}\n"


@pytest.mark.parametrize("confidence", [1e16, -3e17, 1e20, 9.999e15, 1e-7, 0.1, 7])
def test_numbers_are_written_as_orjson_writes_them(confidence: float) -> None:
    """msgspec writes 1e16 as 1e16 where orjson writes 1e+16: an out-of-range confidence
    (kept as given) is still written as before, byte for byte."""
    lone = msgspec.structs.replace(findings(1)[0], confidence=confidence)
    consensus = compute_consensus([lone], bots_ran=2)
    whole = {"bots_ran": 2, "findings": [consensus_data(consensus[0])], "skipped": []}
    streamed = b"".join(consensus_document(consensus, 2, []))
    assert streamed == orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"
    assert orjson.dumps(confidence) in streamed


def cluster(count: int, bots: int = 8) -> list[NormalizedFinding]:
    """`count` reports of one issue without a line: one cluster of `count` members."""
    return [
        NormalizedFinding(
            bot=f"bot{index % bots}",
            finding_id=str(index),
            severity=Severity(index % 5),
            category="security",
            title="possible sql injection in build_query",
            evidence=Evidence(file="app.py", snippet=f"query {index}"),
            confidence=0.5,
        )
        for index in range(count)
    ]


@pytest.mark.parametrize("model", ["agreement", "reliability"])
@pytest.mark.parametrize("most", [1, 2, 5, 39, 40, 100])
def test_a_big_cluster_is_written_a_few_members_at_a_time(model: str, most: int) -> None:
    """A cluster of 40 members among small ones: no chunk holds more than `most` members
    or contributions, and the document is the whole dump's bytes."""
    alone = findings_alone(5)
    findings = [*alone[:3], *cluster(40), *alone[3:]]
    consensus = compute_consensus(findings, bots_ran=8, model=model)  # type: ignore[arg-type]
    assert sorted(len(finding.members) for finding in consensus) == [1, 1, 1, 1, 1, 40]
    chunks = [bytes(chunk) for chunk in consensus_document(consensus, 8, [], most=most)]
    whole = {"bots_ran": 8, "findings": [consensus_data(item) for item in consensus]}
    expected = orjson.dumps({**whole, "skipped": []}, option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(chunks) == expected
    assert max(chunk.count(b'"finding_id"') for chunk in chunks) == min(most, 45)
    if model == "reliability":
        assert max(chunk.count(b'"log_odds"') for chunk in chunks) == min(most, 45)


def findings_alone(count: int) -> list[NormalizedFinding]:
    """`count` findings in files of their own: a cluster of one each."""
    return [
        msgspec.structs.replace(
            item, finding_id=f"alone-{index}", evidence=Evidence(file=f"b{index}.py", line=1)
        )
        for index, item in enumerate(findings(count))
    ]


def test_writing_a_big_cluster_holds_memory_for_a_few_members() -> None:
    """Writing one cluster of 4 x MEMBERS members holds at most about MEMBERS members'
    Structs and text at once (about 2 KB a member), not the whole cluster's."""
    consensus = compute_consensus(cluster(4 * MEMBERS), bots_ran=8)
    tracemalloc.start()
    try:
        written = sum(len(chunk) for chunk in consensus_document(consensus, 8, []))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert written > 4 * MEMBERS * 500
    assert peak < MEMBERS * 3_000


def test_small_findings_fill_each_chunk_up_to_the_members_bound() -> None:
    """Twelve findings alone, at most five members a chunk: five, five and two."""
    consensus = compute_consensus(findings_alone(12), bots_ran=8)
    chunks = [bytes(chunk) for chunk in consensus_document(consensus, 8, [], most=5)]
    counts = [chunk.count(b'"finding_id"') for chunk in chunks]
    assert [count for count in counts if count] == [5, 5, 2]


@pytest.mark.parametrize("model", ["agreement", "reliability"])
def test_a_big_cluster_on_a_line_keeps_its_furthest_end_line(model: str) -> None:
    """A later member's span sets the cluster's end line, written in pieces or not."""
    members = [
        msgspec.structs.replace(
            finding,
            evidence=Evidence(file="app.py", line=10, end_line=20 if index == 7 else None),
        )
        for index, finding in enumerate(cluster(12))
    ]
    consensus = compute_consensus(members, bots_ran=8, model=model)  # type: ignore[arg-type]
    assert [(finding.line, finding.end_line) for finding in consensus] == [(10, 20)]
    whole = {"bots_ran": 8, "findings": [consensus_data(consensus[0])], "skipped": []}
    streamed = b"".join(consensus_document(consensus, 8, [], most=5))
    assert streamed == orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"


def test_an_empty_part_of_a_big_cluster_is_written_empty() -> None:
    """A reliability finding whose contributions are empty (none is made so by the
    engine; a caller's own) writes `[]` for them, in pieces or not."""
    (finding,) = compute_consensus(cluster(12), bots_ran=8, model="reliability")
    bare = msgspec.structs.replace(finding, contributions=())
    whole = {"bots_ran": 8, "findings": [consensus_data(bare)], "skipped": []}
    streamed = b"".join(consensus_document([bare], 8, [], most=5))
    assert streamed == orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n"
    assert b'"contributions": []' in streamed
