"""Issue 33 item 2: a repeated JSON key that would replace findings is an error naming the
file, line and column, in every JSON format quorum reads; a key name inside a string, or a
repeat that replaces no finding, is read as before; an escaped spelling of a key is seen."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from review_quorum.errors import InputError
from review_quorum.ingest import duplicates, read, sarif_typed
from review_quorum.ingest.base import Source

RESULT = (
    '{"ruleId": "B1", "message": {"text": "Use of eval."}, "locations": [{"physicalLocation":'
    ' {"artifactLocation": {"uri": "a.py"}, "region": {"startLine": 3}}}]}'
)
# an argument of an unexpected type makes the typed decode refuse the file: the generic path reads
ODD_RESULT = RESULT.replace('"Use of eval."}', '"Use of eval.", "arguments": [1]}')
RUN = '{"tool": {"driver": {"name": "Bandit"}}, "results": [' + RESULT + "]}"
ODD_RUN = '{"tool": {"driver": {"name": "Bandit"}}, "results": [' + ODD_RESULT + "]}"
TOOL_ONLY = '{"tool": {"driver": {"name": "Ruff"}}}'


def refused(name: str, text: str) -> InputError:
    with pytest.raises(InputError) as raised:
        read(Source(name, text.encode()))
    return raised.value


def at(text: str, needle: str, occurrence: int = 2) -> str:
    """ "line L column C" of the `occurrence`-th `needle` in `text`."""
    offset = -1
    for _ in range(occurrence):
        offset = text.index(needle, offset + 1)
    start = text.rfind("\n", 0, offset) + 1
    return f"line {text.count(chr(10), 0, start) + 1} column {offset - start + 1}"


def assert_repeat(error: InputError, name: str, where: str, key: str, pointer: str) -> None:
    assert (error.source, error.position) == (name, where)
    assert f'key "{key}" appears more than once in the object at {pointer};' in error.message
    assert "keep only the last" in error.message


# --- SARIF -------------------------------------------------------------------------------


@pytest.mark.parametrize("run", [RUN, ODD_RUN], ids=["typed", "generic"])
@pytest.mark.parametrize(
    ("template", "pointer", "key", "repeat"),
    [
        ('{{"version": "2.1.0", "runs": [{run}], "runs": []}}', "/", "runs", 2),
        ('{{"runs": [{run}, {run}], "version": "2.1.0", "runs": [{run}]}}', "/", "runs", 2),
        ('{{"version": "2.1.0", "runs": [{run}, {run_without}]}}', "/runs/1", "results", 3),
        ('{{"version": "2.1.0", "runs": [{tool_only}, {run_without}]}}', "/runs/1", "results", 2),
        ('{{"version": "2.1.0", "runs": [{run_escaped}]}}', "/runs/0", "results", 0),
        ('{{"runs": [{tool_only}], "runs": [{run}]}}', "/", "runs", 2),
    ],
    ids=[
        "runs-then-empty",
        "runs-then-fewer",
        "results-then-empty",
        "a-run-without",
        "escaped",
        "tools-then-runs",
    ],
)
def test_a_repeated_key_that_would_replace_findings_is_an_error(
    run: str, template: str, pointer: str, key: str, repeat: int
) -> None:
    run_without = run[:-1] + ', "results": []}'
    run_escaped = run[:-1] + ', "r\\u0065sults": []}'
    text = template.format(
        run=run, run_without=run_without, tool_only=TOOL_ONLY, run_escaped=run_escaped
    )
    error = refused("dup.sarif", text)
    where = at(text, f'"{key}"', repeat) if repeat else at(text, '"r\\u0065sults"', 1)
    assert_repeat(error, "dup.sarif", where, key, pointer)


def test_the_repeat_is_placed_by_line_and_column_in_a_pretty_file() -> None:
    run = json.dumps(json.loads(ODD_RUN), indent=2).replace("\n", "\n    ")
    run = run[: run.rindex("}")].rstrip() + ',\n      "results": []\n    }'
    text = '{\n  "version": "2.1.0",\n  "runs": [\n    ' + run + "\n  ]\n}\n"
    error = refused("pretty.sarif", text)
    assert_repeat(error, "pretty.sarif", at(text, '"results"'), "results", "/runs/0")
    assert error.position == f"line {text.count(chr(10), 0, text.rindex('results')) + 1} column 7"


@pytest.mark.parametrize("run", [RUN, ODD_RUN], ids=["typed", "generic"])
def test_repeated_keys_that_replace_no_findings_are_read(run: str) -> None:
    """A repeat inside a property bag, or of the version, loses no finding."""
    bag = '"properties": {"owner": "a", "owner": "b"}, "results": ['
    text = '{"version": "2.1.0", "version": "2.1.0", "runs": [' + run.replace('"results": [', bag)
    batch = read(Source("ok.sarif", (text + "]}").encode()))
    assert [(f.bot, f.file, f.line) for f in batch.findings] == [("bandit", "a.py", 3)]


@pytest.mark.parametrize("run", [RUN, ODD_RUN], ids=["typed", "generic"])
def test_key_names_in_strings_and_bags_are_no_repeat(run: str) -> None:
    """``"results"`` as a message, a quoted word in bot text and a property bag's key raise
    the count of the bytes: the exact check then finds no repeat, and the file is read."""
    noisy = run.replace('"text": "Use of eval."', '"text": "results"')
    noisy = noisy.replace('"B1"', '"say \\"results\\" and \\"runs\\""')
    noisy = noisy.replace('"results": [', '"properties": {"results": 1}, "results": [', 1)
    text = '{"version": "2.1.0", "runs": [' + noisy + ", " + TOOL_ONLY + "]}"
    batch = read(Source("ok.sarif", text.encode()))
    assert [(f.bot, f.file, f.line) for f in batch.findings] == [("bandit", "a.py", 3)]


def test_the_generic_cases_do_take_the_generic_path() -> None:
    text = '{"version": "2.1.0", "runs": [' + ODD_RUN + "]}"
    assert sarif_typed.read(Source("odd.sarif", text.encode())) is None
    assert len(read(Source("odd.sarif", text.encode())).findings) == 1


# --- native findings ---------------------------------------------------------------------

RECORD = (
    '{"bot": "a", "severity": "high", "category": "security", "title": "SQL injection", '
    '"evidence": {"file": "app.py", "line": 3}}'
)
ODD_RECORD = RECORD.replace('"bot": "a"', '"bot": "a", "finding_id": 7.5')  # not typed
HIGH = '"severity": "high"'
NATIVE_REPEATS = {
    "severity": RECORD.replace(HIGH, HIGH + ', "severity": "low"'),
    "escaped": RECORD.replace(HIGH, HIGH + ', "s\\u0065verity": "low"'),
    "escaped-first": RECORD.replace(HIGH, '"s\\u0065verity": "low", ' + HIGH),
}


@pytest.mark.parametrize("first", [RECORD, ODD_RECORD], ids=["typed", "record-by-record"])
@pytest.mark.parametrize("repeat", list(NATIVE_REPEATS))
def test_a_native_record_that_repeats_its_severity_is_an_error(first: str, repeat: str) -> None:
    text = "[\n" + first + ",\n" + NATIVE_REPEATS[repeat] + "\n]"
    error = refused("dup.json", text)
    # the escaped severity comes second; escaped first, the literal one repeats it
    needle = '"s\\u0065verity"' if repeat == "escaped" else '"severity"'
    occurrence = {"escaped": 1, "escaped-first": 2}.get(repeat, 3)
    assert_repeat(error, "dup.json", at(text, needle, occurrence), "severity", "/1")
    assert error.position.startswith("line 3 ")


def test_a_jsonl_record_that_repeats_a_key_is_an_error_on_its_line() -> None:
    text = RECORD + "\n\n" + ODD_RECORD + "\n" + NATIVE_REPEATS["severity"] + "\n"
    error = refused("dup.jsonl", text)
    assert error.source == "dup.jsonl"
    column = NATIVE_REPEATS["severity"].index('"severity": "low"') + 1
    assert error.position == f"line 4 column {column}"
    assert 'key "severity" appears more than once in the object at /;' in error.message


@pytest.mark.parametrize("jsonl", [False, True], ids=["array", "jsonl"])
def test_native_key_names_in_titles_and_values_are_read(jsonl: bool) -> None:
    """A title quoting ``"severity"`` is escaped in the bytes; a category or symbol whose
    value is ``severity`` counts as the key would: the exact check finds no repeat."""
    records = [
        RECORD.replace("SQL injection", 'the \\"severity\\" field, \\"evidence\\"'),
        RECORD.replace('"line": 3}', '"line": 3, "symbol": "severity"}'),
        RECORD.replace('"category": "security"', '"category": "evidence"'),
    ]
    text = "\n".join(records) if jsonl else "[" + ",".join(records) + "]"
    batch = read(Source("ok.json", text.encode()))
    assert [f.title for f in batch.findings][0] == 'the "severity" field, "evidence"'
    assert len(batch.findings) == 3 and not batch.skipped


@pytest.mark.parametrize("jsonl", [False, True], ids=["record-by-record", "jsonl"])
def test_a_record_the_typed_path_refuses_counts_once(jsonl: bool) -> None:
    """A record that decodes typed but is no finding (an unknown severity) is read again as
    JSON: its keys are counted once, so a repeat in the next record is still seen."""
    unknown = RECORD.replace('"high"', '"urgent"')
    records = [unknown, NATIVE_REPEATS["severity"]]
    text = "\n".join(records) if jsonl else "[" + ",".join(records) + "]"
    error = refused("dup.json", text)
    assert error.position == at(text, '"severity"', 3)


@pytest.mark.parametrize("screened", [False, True], ids=["screen-passes", "exact-check-runs"])
def test_a_repeat_of_a_field_not_checked_keeps_the_last_value(screened: bool) -> None:
    """The documented choice: a repeated title is read (the last one), as JSON readers do,
    also when a category named ``severity`` sends the file to the exact check."""
    record = RECORD.replace('"title": "SQL injection"', '"title": "a", "title": "b"')
    if screened:
        record = record.replace('"category": "security"', '"category": "severity"')
    text = "[" + record + "]"
    assert [f.title for f in read(Source("ok.json", text.encode())).findings] == ["b"]


@pytest.mark.parametrize("layout", ["array", "jsonl"])
def test_records_without_severity_do_not_hide_a_repeat_in_another(layout: str) -> None:
    """The screen compares with the records that hold the key, not with all records (a
    record without severity is a counted skip; a line that is no object holds nothing)."""
    bare = RECORD.replace(HIGH + ", ", "")
    other = '"no severity"' if layout == "array" else "[1]"
    records = [RECORD, bare, other, NATIVE_REPEATS["severity"]]
    text = "\n".join(records) if layout == "jsonl" else "[" + ",".join(records) + "]"
    error = refused("dup.json", text)
    pointer = "/" if layout == "jsonl" else "/3"
    assert_repeat(error, "dup.json", at(text, '"severity"', 3), "severity", pointer)


def test_a_repeated_evidence_keeps_the_last_as_json_readers_do() -> None:
    """The documented choice: a native record's other fields are not checked."""
    repeated = RECORD.replace(HIGH, HIGH + ', "evidence": {"file": "b.py", "line": 9}')
    finding = read(Source("ok.json", f"[{repeated}]".encode())).findings[0]
    assert (finding.file, finding.line) == ("app.py", 3)


# --- rdjson, rdjsonl, GitLab Code Quality ---------------------------------------------------

DIAGNOSTIC = (
    '{"message": "unused import", "severity": "ERROR", '
    '"location": {"path": "a.py", "range": {"start": {"line": 2}}}}'
)


@pytest.mark.parametrize(
    ("text", "key", "pointer"),
    [
        ('{"diagnostics": [' + DIAGNOSTIC + '], "diagnostics": []}', "diagnostics", "/"),
        (
            '{"diagnostics": [' + DIAGNOSTIC.replace("ERROR", 'ERROR", "severity": "INFO') + "]}",
            "severity",
            "/diagnostics/0",
        ),
        (
            '{"severity": "ERROR", "diagnostics": ['
            + DIAGNOSTIC.replace('"location"', '"location": null, "location"')
            + "]}",
            "location",
            "/diagnostics/0",
        ),
        ('{"diagnostics": [{"message": "m"}],\n "diagnostics": []}', "diagnostics", "/"),
    ],
    ids=["diagnostics", "severity", "location", "bare-diagnostics"],
)
def test_rdjson_repeats_are_errors(text: str, key: str, pointer: str) -> None:
    error = refused("dup.rdjson", text)
    assert_repeat(error, "dup.rdjson", at(text, f'"{key}"'), key, pointer)


def test_rdjsonl_repeats_are_errors_on_their_line() -> None:
    """A line without severity does not hide a repeat on another."""
    repeated = DIAGNOSTIC.replace('"ERROR"', '"ERROR", "severity": "INFO"')
    bare = DIAGNOSTIC.replace('"severity": "ERROR", ', "")
    error = refused("dup.rdjsonl", bare + "\n" + repeated + "\n")
    column = repeated.index('"severity": "INFO"') + 1
    assert error.position == f"line 2 column {column}"
    assert 'key "severity" appears more than once' in error.message


ISSUE = (
    '{"description": "Unused variable", "check_name": "F841", "fingerprint": "f1", '
    '"severity": "major", "location": {"path": "a.py", "lines": {"begin": 4}}}'
)


def test_gitlab_code_quality_repeats_are_errors() -> None:
    """An issue without severity, or one that is no object, does not hide a repeat."""
    repeated = ISSUE.replace('"major"', '"major", "severity": "info"')
    bare = ISSUE.replace('"severity": "major", ', "")
    text = "[" + ISSUE + ', "no severity, no location",' + bare + ",\n" + repeated + "]"
    error = refused("dup.json", text)
    assert_repeat(error, "dup.json", at(text, '"severity"', 3), "severity", "/3")


def test_code_quality_and_rdjson_read_key_names_in_their_text() -> None:
    issue = ISSUE.replace("Unused variable", 'set \\"severity\\" and location')
    issue = issue.replace('"f1"', '"severity"')
    batch = read(Source("ok.json", f"[{issue}]".encode()))
    assert [f.line for f in batch.findings] == [4]
    diagnostic = DIAGNOSTIC.replace("unused import", "location")
    batch = read(Source("ok.rdjson", ('{"diagnostics": [' + diagnostic + "]}").encode()))
    assert [f.line for f in batch.findings] == [2]


# --- GitHub comment files ------------------------------------------------------------------

COMMENT = {
    "id": 11,
    "user": {"login": "coderabbitai[bot]", "type": "Bot"},
    "body": "_⚠️ Potential issue_\n\n**SQL injection in `find_user`.**\n\nUse parameters.",
    "path": "app.py",
    "line": 7,
    "commit_id": "c" * 40,
}


def comment_text(**replace: str) -> str:
    text = json.dumps(COMMENT)
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    ("old", "new", "key", "pointer"),
    [
        ('"body"', '"body": "", "body"', "body", "/1"),
        ('"user"', '"user": {"login": "someone"}, "user"', "user", "/1"),
        ('"login"', '"login": "someone", "login"', "login", "/1/user"),
        ('"type"', '"type": "User", "type"', "type", "/1/user"),
        ('"line"', '"line": 1, "line"', "line", "/1"),
    ],
)
def test_a_comment_that_repeats_who_what_or_where_is_an_error(
    old: str, new: str, key: str, pointer: str
) -> None:
    text = "[" + comment_text() + ",\n" + comment_text(**{old: new}) + "]"
    error = refused("comments.json", text)
    assert_repeat(error, "comments.json", at(text, f'"{key}"', 3), key, pointer)
    untyped = comment_text(**{', "type": "Bot"': ""})  # a user without a type hides nothing
    text = "[" + untyped + ",\n" + comment_text(**{old: new}) + "]"
    occurrence = 2 if key == "type" else 3
    assert refused("comments.json", text).position == at(text, f'"{key}"', occurrence)


def test_comment_pages_are_checked_whichever_way_gh_wrote_them() -> None:
    repeated = comment_text(**{'"body"': '"body": "", "body"'})
    slurped = "[[" + comment_text() + "],\n[" + repeated + "]]"
    error = refused("slurp.json", slurped)
    assert_repeat(error, "slurp.json", at(slurped, '"body"', 3), "body", "/1/0")
    paginated = "[" + comment_text() + "]\n[" + repeated + "]"
    error = refused("pages.json", paginated)
    assert_repeat(error, "pages.json", at(paginated, '"body"', 3), "body", "/1/0")
    paginated = "[" + repeated + "]\n[" + comment_text() + "]"
    error = refused("pages.json", paginated)
    assert_repeat(error, "pages.json", at(paginated, '"body"', 2), "body", "/0/0")


def test_a_repeated_line_beside_githubs_subject_type_line_is_an_error() -> None:
    # every review comment GitHub returns holds "line" as a value too
    typed = comment_text(**{'"line": 7': '"line": 7, "subject_type": "line"'})
    text = "[" + typed + ",\n" + comment_text(**{'"line"': '"line": 1, "line"'}) + "]"
    error = refused("comments.json", text)
    assert_repeat(error, "comments.json", at(text, '"line"', 4), "line", "/1")


def test_githubs_review_comments_pay_only_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    # real review comments (the README example's) hold "subject_type": "line" each: the
    # screen still rules a repeat out, so the file is not walked a second time
    def walk(*args: object, **options: object) -> None:
        raise AssertionError("the file was walked for a repeated key")

    monkeypatch.setattr(duplicates, "repeated_key", walk)
    path = Path(__file__).resolve().parents[2] / "examples/pr-review/bots/pulls-comments.json"
    data = path.read_bytes()
    assert data.count(b'"subject_type": "line"') > 1
    assert read(Source(path.name, data)).findings


def test_a_comment_quoting_key_names_is_read() -> None:
    quoted = comment_text(**{"Use parameters.": 'The \\"body\\" and \\"user\\" keys: \\"line\\"'})
    text = "[" + quoted + "]"
    batch = read(Source("comments.json", text.encode()))
    assert [(f.bot, f.line) for f in batch.findings] == [("coderabbit", 7)]


# --- the screen itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "most", "expected"),
    [
        (b'{"runs": []}', {"runs": 1}, False),
        (b'{"runs": [], "runs": []}', {"runs": 1}, True),
        (b'{"runs": [], "x": "\\n"}', {"runs": 1}, False),  # a backslash, no escaped letter
        (b'{"runs": [], "x": "\\u00e9 \\u003c"}', {"runs": 1}, False),  # no letter of "runs"
        (b'{"runs": [], "r\\u0075ns": []}', {"runs": 1}, True),
        (b'{"runs": [], "r\\u0055ns": []}', {"runs": 1}, False),  # "U" is no letter of "runs"
        (b'{"runs": [], "\\u0072uns": []}', {"runs": 1}, True),
        (b'{"runs": [], "ru\\u006Es": []}', {"runs": 1}, True),  # upper-case hex digits
        (b'{"runs": [], "x": "\\u0073"}', {"runs": 1}, True),  # any such escape: checked
        # escapes looked at one by one (a long file, few escapes) or searched (many)
        (b'{"runs": [], "x": "\\u00e9' + b" " * 9000 + b'\\u0072"}', {"runs": 1}, True),
        (b'{"runs": [], "x": "\\u00e9' + b" " * 9000 + b'\\u00e8"}', {"runs": 1}, False),
        (b'{"runs": [], "x": "' + b" " * 9000 + b'", "ru\\u006Es": []}', {"runs": 1}, True),
        (b'{"runs": [], "x": "' + b" " * 9000 + b'\\u00e9\\u0072"}', {"runs": 1}, True),
        (b'{"runs": [], "x": "' + b"\\u00e9" * 200 + b'", "\\u0072uns": 1}', {"runs": 1}, True),
        (b'{"runs": [], "x": "' + b"\\u00e9" * 200 + b'"}', {"runs": 1}, False),
        (b'{"runs": [], "x": "' + b"\\u00e9" * 200 + b'", "ru\\u006Es": 1}', {"runs": 1}, True),
        # the key's word as a value, or as a key inside a string, is no second key
        (b'[{"line": 3, "subject_type": "line"}]', {"line": 1}, False),
        (b'[{"line": 3, "x": ["line", "line"]}, {"y": {"z": "line"}}]', {"line": 1}, False),
        (b'[{"line": 3, "body": "a \\"line\\": 4"}]', {"line": 1}, False),
        # a repeated key is followed by a colon however it is spaced
        (b'[{"line": 3, "line" : 4, "subject_type": "line"}]', {"line": 1}, True),
        (b'[{"line":3,"subject_type":"line","line"\t\r\n:4}]', {"line": 1}, True),
        (b'[{"line": 3, "subject_type": "line"}, {"line": 4}]', {"line": 1}, True),
    ],
)
def test_the_screen_sends_every_possible_repeat_to_the_exact_check(
    data: bytes, most: dict[str, int], expected: bool
) -> None:
    assert duplicates.may_repeat(data, most) is expected


def test_the_screen_refuses_keys_it_cannot_see_escaped() -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        duplicates.may_repeat(b'{"x": "\\n"}', {"a/b": 0})


def test_the_exact_check_leaves_broken_json_to_the_reader() -> None:
    shape = duplicates.Shape((), keys=("a",))
    assert duplicates.repeated_key("x", b'{"a": 1, "b": ', shape) is None
    assert duplicates.repeated_key("x", b'{"b": 1, "b": 2}', shape) is None  # not checked
    assert duplicates.repeated_key("x", b'{"a": 1, "a": 2}', shape) is not None
    assert duplicates.repeated_key("x", b'{"a": {"b": 1, "b": 2}}', shape) is None


def test_a_check_of_every_object_reads_key_names_in_text_and_places_a_deep_repeat() -> None:
    ok = b'{"a": {"b": "\\"a\\": \\"b\\""}, "c": [{"d": 1}, {"d": 2}]}'
    duplicates.check_everywhere("plan.json", ok)
    deep = b'{"a": 1,\n "c": [{"d": 1}, {"d": 2,\n  "d": 3}]}'
    with pytest.raises(InputError) as raised:
        duplicates.check_everywhere("plan.json", deep)
    assert raised.value.position == "line 3 column 3"
    assert "in the object at /c/1;" in raised.value.message
    duplicates.check_everywhere("plan.json", b'{"a": 1, "a": ')  # broken: the reader says so
    with pytest.raises(InputError, match="line 1 column 10"):
        duplicates.check_everywhere("plan.json", b'{"a": 1, "a": 2}')


@pytest.mark.parametrize(
    ("shape", "data", "repeated"),
    [
        (duplicates.Shape(("a", "b"), keys="x"), b'{"a": {"x": 1, "x": 2}}', False),
        (duplicates.Shape(("a", "b"), keys="x"), b'{"a": {"b": {"x": 1, "x": 2}}}', True),
        (duplicates.Shape((duplicates.EACH,), keys="x"), b'{"a": {"x": 1, "x": 2}}', False),
        (duplicates.Shape((duplicates.EACH,), keys="x"), b'[{"x": 1, "x": 2}]', True),
    ],
)
def test_only_the_objects_of_a_shape_are_checked(
    shape: duplicates.Shape, data: bytes, repeated: bool
) -> None:
    """An object on the way to those that matter is walked, not checked; `EACH` is an
    array's elements, never an object's members."""
    assert (duplicates.repeated_key("x", data, shape) is not None) is repeated


def _spied_searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Where the screen starts a search by regular expression, one entry per search."""
    searches: list[int] = []
    escape = duplicates._escape

    class Spy:
        def __init__(self, pattern: re.Pattern[bytes]) -> None:
            self.pattern = pattern

        def search(self, data: bytes, at: int) -> re.Match[bytes] | None:
            searches.append(at)
            return self.pattern.search(data, at)

    monkeypatch.setattr(duplicates, "_escape", lambda keys: Spy(escape(keys)))
    return searches


def _text(escapes: list[bytes], gap: int) -> bytes:
    filler = b" " * gap
    return b'{"runs": [], "x": "' + filler.join(escapes) + b'"}'


@pytest.mark.parametrize("last", [b"\\u00e8", b"\\u0072"])
def test_sparse_escapes_are_looked_at_one_by_one_to_the_end(
    monkeypatch: pytest.MonkeyPatch, last: bytes
) -> None:
    """One escape per 2 KB (a non-ASCII letter in every tenth title): each is looked at,
    however many there are, and the file is never searched again."""
    searches = _spied_searches(monkeypatch)
    data = _text([b"\\u00e9"] * 300 + [last], gap=2048)
    assert duplicates.may_repeat(data, {"runs": 1}) is (last == b"\\u0072")
    assert searches == []


@pytest.mark.parametrize("last", [b"\\u00e8", b"\\u0072"])
def test_dense_escapes_are_searched_after_sixteen(
    monkeypatch: pytest.MonkeyPatch, last: bytes
) -> None:
    searches = _spied_searches(monkeypatch)
    data = _text([b"\\u00e9"] * 300 + [last], gap=900)
    assert duplicates.may_repeat(data, {"runs": 1}) is (last == b"\\u0072")
    assert searches == [data.index(b"\\u00e9") + 15 * (900 + 6)]


def test_escapes_turning_dense_are_searched_from_there(monkeypatch: pytest.MonkeyPatch) -> None:
    searches = _spied_searches(monkeypatch)
    sparse = _text([b"\\u00e9"] * 40, gap=4096)[:-2]
    data = sparse + b" " + b" ".join([b"\\u00e9"] * 100) + b' \\u0072"}'
    assert duplicates.may_repeat(data, {"runs": 1}) is True
    assert len(searches) == 1 and searches[0] > len(sparse)
    assert duplicates.may_repeat(data.replace(b"\\u0072", b"\\u00e8"), {"runs": 1}) is False


def test_dense_escapes_after_a_long_plain_start_are_searched_after_sixteen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """How dense escapes are is measured from the first one, not from the file's start."""
    searches = _spied_searches(monkeypatch)
    escapes = _text([b"\\u00e9"] * 40, 10).removeprefix(b'{"runs": [], ')
    data = b'{"runs": [], "plain": "' + b"x" * 100_000 + b'", ' + escapes
    assert duplicates.may_repeat(data, {"runs": 1}) is False
    assert searches == [data.index(b"\\u00e9") + 15 * 16]
