"""Robustness of the comment and free-text readers: mutated files and fuzzed bodies.

Whatever the input, reading ends in an `InputError` naming the file and a position, or in
a batch whose skipped records point into the file; untouched records keep their findings.
That the parsers stay linear on a megabyte of adversarial markup is measured by
`bench/bot_comments.py`, not asserted here: timings do not belong in the unit suite.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples
from review_quorum import ingest
from review_quorum.errors import InputError
from review_quorum.ingest import freetext
from review_quorum.ingest.base import Batch, Source
from review_quorum.ingest.bots import BY_NAME, PARSERS, Comment, CommentKind
from review_quorum.ingest.bots.generic import GenericParser
from review_quorum.ingest.github_comments import READER
from review_quorum.model import Severity

COMMENTS = FIXTURES / "comments"
NAME = "mutated.json"
SETTINGS = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


def _base() -> list[dict[str, Any]]:
    files: tuple[str, ...] = ("github.pull-request-comments.json",)
    files += ("github.pull-request-reviews.json", "github.issue-comments.json")
    return [record for name in files for record in json.loads((COMMENTS / name).read_bytes())]


BASE = _base()


def _ids_by_record(batch: Batch) -> dict[int, set[str]]:
    by_id = {str(record["id"]): index for index, record in enumerate(BASE)}
    found: dict[int, set[str]] = {}
    for finding in batch.findings:
        record_id = finding.finding_id.split("#")[0].rsplit(":", 1)[1]
        found.setdefault(by_id[record_id], set()).add(finding.finding_id)
    return found


BASELINE = _ids_by_record(READER.read(Source(NAME, orjson.dumps(BASE))))
NEST = "\u0000nest\u0000"
KEYS = [
    ("user",),
    ("user", "login"),
    ("body",),
    ("path",),
    ("line",),
    ("start_line",),
    ("original_line",),
    ("id",),
    ("in_reply_to_id",),
    ("state",),
    ("pull_request_review_id",),
]
DELETE = object()
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.integers(min_value=2**64, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.lists(st.integers(min_value=0, max_value=9), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(min_value=0, max_value=9), max_size=2),
    st.just(NEST),
    st.just(DELETE),
)


def _serialise(records: list[Any], depth: int) -> bytes:
    text = json.dumps(records, allow_nan=True)
    return text.replace(json.dumps(NEST), "[" * depth + "]" * depth).encode()


def _outcome(data: bytes) -> Batch | None:
    """Read `data` forced and detected; both may only fail with an InputError naming the file."""
    attempts: tuple[Callable[[], Batch], ...] = (
        lambda: READER.read(Source(NAME, data)),
        lambda: ingest.read(Source(NAME, data)),
    )
    for attempt in attempts:
        try:
            batch = attempt()
        except InputError as err:
            assert err.source == NAME
            assert err.position or "cannot tell the input format" in err.message
            continue
        assert all(skipped.source == NAME for skipped in batch.skipped)
        assert all(skipped.position.startswith(("/", "line ")) for skipped in batch.skipped)
        assert all(isinstance(finding.severity, Severity) for finding in batch.findings)
    try:
        return READER.read(Source(NAME, data))
    except InputError:
        return None


@SETTINGS
@given(
    index=st.integers(min_value=0, max_value=len(BASE) - 1),
    key=st.sampled_from(KEYS),
    value=JUNK,
    depth=st.sampled_from([3, 2000]),
)
def test_a_mutated_field_spoils_only_its_own_record(
    index: int, key: tuple[str, ...], value: object, depth: int
) -> None:
    records = json.loads(json.dumps(BASE))
    target = records[index]
    if len(key) == 2:
        target = target.get(key[0]) if isinstance(target.get(key[0]), dict) else target
    if value is DELETE:
        target.pop(key[-1], None)
    else:
        target[key[-1]] = value
    batch = _outcome(_serialise(records, depth))
    if batch is not None:
        found = _finding_ids(batch)
        for other, ids in BASELINE.items():
            if other != index:
                assert ids <= found, (other, ids - found)


def _finding_ids(batch: Batch) -> set[str]:
    return {finding.finding_id for finding in batch.findings}


@SETTINGS
@given(index=st.integers(min_value=0, max_value=len(BASE) - 1), value=JUNK)
def test_a_record_replaced_by_junk_is_skipped(index: int, value: object) -> None:
    records: list[Any] = json.loads(json.dumps(BASE))
    records[index] = None if value is DELETE else value
    batch = _outcome(_serialise(records, 5))
    if batch is not None:
        found = _finding_ids(batch)
        assert all(ids <= found for other, ids in BASELINE.items() if other != index)


@SETTINGS
@given(data=st.data())
def test_truncated_or_corrupted_bytes_end_in_input_error_or_a_batch(data: st.DataObject) -> None:
    raw = orjson.dumps(BASE)
    position = data.draw(st.integers(min_value=0, max_value=len(raw)))
    mutation = data.draw(st.sampled_from(["truncate", "bad-utf8", "delete-byte", "garbage"]))
    if mutation == "truncate":
        mutated = raw[:position]
    elif mutation == "bad-utf8":
        mutated = raw[:position] + data.draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"]))
        mutated += raw[position:]
    elif mutation == "delete-byte":
        mutated = raw[:position] + raw[position + 1 :]
    else:
        mutated = raw[:position] + data.draw(st.binary(min_size=1, max_size=8)) + raw[position:]
    _outcome(mutated)


FRAGMENTS = [
    "_⚠️ Potential issue_ | _🟠 Major_\n",
    "**Title here.**\n",
    "**Label:** ",
    "```suggestion\nfix()\n```\n",
    "```\n",
    "~~~markdown\n",
    "<details>\n",
    "<summary>🤖 Prompt for AI Agents</summary>\n",
    "<summary>🧹 Nitpick comments (1)</summary><blockquote>\n",
    "<summary>src/a.py (1)</summary><blockquote>\n",
    "`3-9`: ",
    "</blockquote></details>\n",
    "</details>\n",
    "In `@src/a.py` around lines 3 - 9, ",
    "> ",
    "---\n",
    "**issue (bug_risk):** ",
    "## Individual Comments\n### Comment 1\n",
    '<location path="src/a.py" line_range="2-4" />\n',
    "<issue_to_address>\n",
    "![high](https://x/high.svg) ",
    "![security-low](https://x/s.svg) ",
    "<summary>Comments suppressed due to low confidence (1)</summary>\n**src/a.py:7**\n* ",
    "<h3>Code Review by Qodo</h3>\n",
    '<img alt="Action required">\n',
    "<summary>  1.  Bug <code>🐞 Bug</code> <code>⛨ Security</code></summary>\n",
    "[src/a.py[R1-2]](x)\n",
    "## PR Code Suggestions\n<tr><td rowspan=1>Security</td>\n",
    "<details><summary>Fix it</summary>\n",
    "## CodeQL / Rule\n",
    "[Show more details](https://x/code-scanning/7)\n",
    "[high] src/a.py:3 bad thing\n",
    "word ",
    "\n\n",
    "0",
    "\u202e",
    "### Title\n",
    "<!-- **High Severity** -->\n",
    "<!-- LOCATIONS START\nsrc/a.py#L3-L9\nsrc/b.py#L1\nLOCATIONS END -->\n",
    "<!-- DESCRIPTION START -->\n",
    "Path: src/a.py\nLine: 3:9\n",
    "<details><summary>Prompt To Fix With AI</summary>\n",
    "<details><summary>Additional Comments (1)</summary>\n**`src/a.py`**\n",
    '<img alt="P1" src="x">',
    "**<sub><sub>![P2 Badge](https://x/p2)</sub></sub>  Title**\n",
    "https://github.com/o/r/blob/0123456789abcdef/src/a.py#L3-L4\n",
    "### 1. **[Critical] Title** `src/a.py:3-4`\n",
    "## ✅ Good parts\n",
    '<!-- devin-review-comment {"id": "BUG_1", "file_path": "src/a.py", "start_line": 2} -->\n',
    "🔴 **Title**\n",
    "`src/a.py:3` text. ",
    "**Severity: high**\n",
    '<!-- metadata:{"confidence":7} -->\nP1: ',
    "✅ Addressed in [`abc1234`](x)\n",
    "## Nitpicks 🔍\n- [ ] <a href='x#diff-" + "b" * 64 + "R2-R3'><strong>T</strong></a><br>t\n",
    "![kody code-review](https://img.shields.io/badge/kody-x) "
    "![Bug](https://img.shields.io/badge/Bug-x) "
    "![high](https://img.shields.io/badge/severity_level-high-x)\n",
    "<!-- kody-codereview -->",
    "🟡 **Medium** `a.py:4`\n",
    "<!-- CODOKI_INLINE -->\n⚠️ **High**: ",
    "**Quality Gate failed**",
]
BODIES = st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join) | st.text(max_size=200)


@SETTINGS
@given(
    body=BODIES,
    login=st.sampled_from([*sorted(PARSERS), "kodus", "unknown-reviewer[bot]"]),
    kind=st.sampled_from(list(CommentKind)),
    line=st.one_of(st.none(), st.integers(min_value=1, max_value=10**6)),
)
def test_parsers_accept_any_body(
    body: str, login: str, kind: CommentKind, line: int | None
) -> None:
    parser = PARSERS.get(login) or BY_NAME.get(login) or GenericParser(login)
    parsed = parser.parse(Comment(kind, login, body, "src/a.py", line, None))
    for draft in parsed.findings:
        assert draft.title and len(draft.title) <= 200 and "\n" not in draft.title
        assert draft.line is None or draft.line >= 1
        assert draft.end_line is None or (draft.line is not None and draft.end_line > draft.line)
    assert all(reason for reason in parsed.skipped)
    record = {"user": {"login": login}, "body": body, "path": "src/a.py", "line": line}
    batch = READER.read(Source(NAME, orjson.dumps([record])))
    assert len(batch.findings) + len(batch.skipped) >= 1


@SETTINGS
@given(text=BODIES)
def test_freetext_reads_any_text_or_names_where_it_is_not_text(text: str) -> None:
    try:
        batch = freetext.READER.read(Source("review.txt", text.encode("utf-8", "surrogatepass")))
    except InputError as err:  # NUL bytes, invalid UTF-8, or JSON rather than text
        assert (err.source, err.position.startswith("line ")) == ("review.txt", True)
        return
    assert all(skipped.position.startswith("line ") for skipped in batch.skipped)
