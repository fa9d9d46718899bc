"""Hypothesis strategies for small SARIF documents, for tests that compare SARIF readers.

Every member the SARIF reader reads is drawn from three kinds of values: common ones,
unusual but well-typed ones (the typed path takes them and hands such a result to the
generic path when it must judge it), and ill-typed ones (the typed decode refuses the
whole file). Common values are drawn most often so that most documents hold findings;
`documents(with_odd=False)` never draws ill-typed values.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

Choice = tuple[list[Any], list[Any], list[Any]]
BIG = 2**70
TEXTS = ["Found a problem. Fix it.", "Use {0} and {1}.", "Avoid eval", "[link](1) here, e.g. x"]
ODD_TEXTS = [".", "", "  ", "a\nb"]


def pick(choice: Choice, with_odd: bool) -> st.SearchStrategy[Any]:
    common, unusual, odd = choice
    kinds = [common] * 6 + [unusual] * 2 + ([odd] if with_odd else [])
    return st.sampled_from([kind for kind in kinds if kind]).flatmap(st.sampled_from)


def members(
    with_odd: bool, required: tuple[str, ...] = (), /, **choices: Choice
) -> st.SearchStrategy[dict[str, Any]]:
    drawn = {name: pick(choice, with_odd) for name, choice in choices.items()}
    return st.fixed_dictionaries(
        {name: value for name, value in drawn.items() if name in required},
        optional={name: value for name, value in drawn.items() if name not in required},
    )


def locations(with_odd: bool) -> st.SearchStrategy[Any]:
    region = members(
        with_odd,
        ("snippet",),
        startLine=([1, 3, 12], [0, -2, None, 2**62], [True, 1.5, "3", BIG]),
        endLine=([12, 20], [1, 3, None], [False, "4", BIG]),
        snippet=([{"text": "x = 1"}], [{}, None], ["code", {"text": 5}]),
    )
    artifact = members(
        with_odd,
        ("uri",),
        uri=(["src/a.py", "file:///repo/src/b.py"], ["c%20d.py", "/abs/e.py", "../f", None], [7]),
        uriBaseId=(["SRC", "%SRCROOT%"], ["MISSING", None], [1]),
        index=([0, 1], [5, -1, None], ["0", BIG]),
    )
    odd = [st.sampled_from(["p", [1]])] if with_odd else []
    physical = st.fixed_dictionaries(
        {"artifactLocation": st.one_of(artifact, *odd)}, optional={"region": region}
    )
    logical = pick(
        (
            [[{"fullyQualifiedName": "pkg.f"}], [{"name": "g"}]],
            [[{"name": ""}], []],
            [[{"name": 3}], ["f"]],
        ),
        with_odd,
    )
    location = st.fixed_dictionaries(
        {}, optional={"physicalLocation": st.one_of(physical, *odd), "logicalLocations": logical}
    )
    return st.one_of(location, *odd)


RESULT: dict[str, Choice] = {
    "ruleId": (["r1", "r2", "e1"], ["r9", "r1/2", "", None], [5, ["r1"]]),
    "ruleIndex": ([0, 1], [7, -1, None], [True, 1.0, "0", BIG]),
    "rule": (
        [{"index": 1}, {"id": "e1", "toolComponent": {"index": 0}}],
        [None, {"id": "r2"}, {"id": None}, {"index": 0, "toolComponent": {"index": 3}}],
        ["r1", {"id": 3}, {"index": "1"}, {"toolComponent": {"index": BIG}}],
    ),
    "level": (["error", "warning", "note"], ["none", "bogus", None], [3, ["error"]]),
    "kind": (["fail"], ["pass", "notApplicable", "open", "review", "odd", None], [1]),
    "message": (
        [{"text": text} for text in TEXTS] + [{"id": "m1", "arguments": ["x", "y"]}],
        [None, {"id": "nope"}, {}] + [{"text": text} for text in ODD_TEXTS],
        ["text", {"text": 5}, {"id": "m1", "arguments": [1, 2]}, {"id": 4}],
    ),
    "fingerprints": (
        [{"a/v1": "f1"}, {"a/v1": "requires login"}, {"b": "f2", "a": "f3"}],
        [{}, None],
        [{"a": 5}, "fp", [1]],
    ),
    "partialFingerprints": ([{"p/v1": "p1"}], [None], [{"p": BIG}]),
    "suppressions": (
        [[]],
        [
            [{"kind": "inSource"}],
            [{"kind": "external", "status": "rejected"}],
            [{"status": "accepted"}],
            [{"kind": None}],
            None,
        ],
        ["no", ["x"], [{"kind": 5}]],
    ),
    "baselineState": (["new", "unchanged"], ["absent", None], [3]),
    "rank": ([50, 12.5], [0, 100, 101, -1, -5, None], ["50", True, BIG]),
    "properties": (
        [{}, {"issue_severity": "LOW"}, {"tags": ["security", "CWE-79: xss"]}],
        [
            {"security-severity": "9.1"},
            {"security-severity": 7},
            {"security-severity": 0.5},
            {"security-severity": "high"},
            {"precision": "high"},
            {"tags": "security"},
            {"cwe": "CWE-89"},
            None,
        ],
        ["bag", {"security-severity": True}, {"security-severity": [9]}, {"rank": BIG}],
    ),
}


def results(with_odd: bool) -> st.SearchStrategy[Any]:
    fields = members(with_odd, ("ruleId", "message"), **RESULT)
    located = st.lists(locations(with_odd), min_size=1, max_size=2)
    result = st.tuples(fields, st.one_of(st.just([]), located, located))
    record = result.map(lambda parts: {**parts[0], "locations": parts[1]} if parts[1] else parts[0])
    return st.one_of(record, st.sampled_from(["result", 5, None])) if with_odd else record


DESCRIPTOR: dict[str, Choice] = {
    "name": (["Rule name"], [None], [3]),
    "shortDescription": ([{"text": "Short one. More."}], [{"text": ""}, None], ["short"]),
    "fullDescription": ([{"text": "Full description."}], [None], []),
    "defaultConfiguration": ([{"level": "error"}, {"level": "note"}], [{"level": "odd"}], []),
    "messageStrings": ([{"m1": {"text": "Rule says {0} then {1}."}}], [None], []),
    "properties": (
        [{"tags": ["security"], "security-severity": "7.5"}, {"precision": "low"}],
        [None, {}],
        ["props", {"security-severity": False}],
    ),
}


def components(with_odd: bool) -> st.SearchStrategy[dict[str, Any]]:
    descriptors = st.lists(
        st.tuples(
            pick((["r1", "r2", "e1"], [None], [9]), with_odd), members(with_odd, **DESCRIPTOR)
        ).map(lambda parts: {"id": parts[0], **parts[1]} if parts[0] is not None else parts[1]),
        max_size=3,
    )
    return st.fixed_dictionaries(
        {
            "name": pick((["Semgrep OSS", "CodeQL"], ["", "  "], [5]), with_odd),
            "rules": st.one_of(descriptors, *([st.just("rules")] if with_odd else [])),
        },
        optional={"globalMessageStrings": st.just({"m1": {"text": "Global {0}."}})},
    )


def runs(with_odd: bool) -> st.SearchStrategy[dict[str, Any]]:
    tool = st.fixed_dictionaries(
        {"driver": components(with_odd)},
        optional={"extensions": st.lists(components(with_odd), max_size=2)},
    )
    return st.fixed_dictionaries(
        {
            "tool": tool,
            "results": st.lists(results(with_odd), min_size=1, max_size=5),
        },
        optional={
            "artifacts": pick(
                (
                    [[{"location": {"uri": "art/x.py"}}, {"location": {"uri": "y.py"}}]],
                    [[{}]],
                    ["a"],
                ),
                with_odd,
            ),
            "originalUriBaseIds": st.sampled_from(
                [{"SRC": {"uri": "file:///repo/src/"}}, {"SRC": {"uri": "x", "uriBaseId": "SRC"}}]
            ),
            "invocations": pick(
                ([[{"workingDirectory": {"uri": "file:///repo"}}]], [[{}]], [["inv"]]), with_odd
            ),
        },
    )


def documents(with_odd: bool) -> st.SearchStrategy[dict[str, Any]]:
    run_lists = st.lists(runs(with_odd), min_size=1, max_size=2)
    if with_odd:
        extra: list[Any] = [{"tool": {"driver": {"name": "t"}}, "results": "r"}, "run", {}]
        run_lists = run_lists | st.lists(st.sampled_from(extra), min_size=1, max_size=2)
    return st.fixed_dictionaries(
        {"runs": run_lists},
        optional={
            "version": pick((["2.1.0"], [None], ["2.0.0", 2.1]), with_odd),
            "$schema": st.just("https://json.schemastore.org/sarif-2.1.0.json"),
        },
    )
