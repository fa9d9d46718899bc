"""Finding model: validation at construction names the offending record (SPEC 2)."""

from __future__ import annotations

import msgspec
import pytest

from review_quorum import Evidence, FindingError, NormalizedFinding, Severity
from review_quorum.model import CommentSource, ConsensusLevel


def make(**overrides: object) -> NormalizedFinding:
    fields: dict[str, object] = {
        "bot": "bandit",
        "finding_id": "B608",
        "severity": "high",
        "category": "security",
        "title": "SQL injection",
        "file": "app/db.py",
        "line": 3,
    }
    fields.update(overrides)
    return NormalizedFinding.create(**fields)  # type: ignore[arg-type]


def test_severity_is_ordered_and_parsed_case_insensitively() -> None:
    assert Severity.INFO < Severity.LOW < Severity.MEDIUM < Severity.HIGH < Severity.CRITICAL
    assert Severity.parse(" High ") is Severity.HIGH
    assert Severity.HIGH.label == "high"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"severity": "urgent"}, "finding 'B608' from 'bandit': unknown severity \"urgent\""),
        ({"line": 0}, r"finding 'B608' from 'bandit': .*line must be >= 1, not 0"),
        ({"line": -4}, r"line must be >= 1, not -4"),
        ({"line": True}, r"line must be a positive integer or null, not true"),
        ({"confidence": float("nan")}, r"finding 'B608' from 'bandit': confidence must be finite"),
        ({"confidence": float("inf")}, r"confidence must be finite, not inf"),
        ({"bot": ""}, r"bot must be a non-empty string"),
        ({"line": 5, "end_line": 2}, r"end_line 2 without a start line at or before it"),
    ],
)
def test_invalid_findings_are_errors_naming_the_record(
    overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(FindingError, match=message):
        make(**overrides)


def test_out_of_range_confidence_is_kept_for_the_engine_to_clamp() -> None:
    assert make(confidence=1.7).confidence == 1.7
    assert make(confidence=-0.2).confidence == -0.2


def test_findings_are_frozen_and_changed_by_replace() -> None:
    finding = make()
    with pytest.raises(AttributeError, match="immutable type: 'NormalizedFinding'"):
        finding.title = "other"  # type: ignore[misc]
    assert msgspec.structs.replace(finding, title="x").title == "x"
    assert finding.title != "x"


def test_replace_validates_the_changed_finding_again() -> None:
    with pytest.raises(FindingError, match="line must be >= 1, not 0"):
        msgspec.structs.replace(make().evidence, line=0)
    with pytest.raises(
        FindingError, match="finding 'B608' from '': bot must be a non-empty string"
    ):
        msgspec.structs.replace(make(), bot="")


def test_fields_are_positional_in_order_with_defaults() -> None:
    evidence = Evidence("app/db.py", 3, "query(x)", "run", 4)
    assert evidence == Evidence(
        file="app/db.py", line=3, snippet="query(x)", symbol="run", end_line=4
    )
    positional = NormalizedFinding("bandit", "B608", Severity.HIGH, "security", "t", evidence)
    assert positional == make(title="t", snippet="query(x)", symbol="run", end_line=4)
    assert (positional.confidence, positional.rule_id, positional.source) == (1.0, "", None)
    assert (positional.related, positional.cwes, positional.category_certainty) == ((), (), 1.0)
    assert repr(Evidence()) == (
        "Evidence(file='', line=None, snippet='', symbol='', end_line=None)"
    )


def test_equal_findings_hash_alike_and_survive_pickling() -> None:
    import pickle

    assert len({make(), make(), make(title="other")}) == 2
    assert pickle.loads(pickle.dumps(make())) == make()


def test_evidence_defaults_to_a_global_finding() -> None:
    assert Evidence() == Evidence(file="", line=None, snippet="", symbol="")


def test_consensus_level_parse_and_rank() -> None:
    assert ConsensusLevel.parse("needs_verification") is ConsensusLevel.NEEDS_VERIFICATION
    assert [level.rank for level in ConsensusLevel] == [2, 1, 0]
    with pytest.raises(ValueError, match='unknown consensus level "maybe"'):
        ConsensusLevel.parse("maybe")


def test_a_finding_keeps_its_rule_body_certainty_suggestion_and_comment() -> None:
    source = CommentSource("review_comment", 42, "PRRC_x", "https://example.test/c/42", "bot[bot]")
    finding = NormalizedFinding.create(
        bot="bot",
        finding_id="1",
        severity="high",
        category="security",
        title="SQL injection",
        file="app/db.py",
        line=3,
        rule_id="B608",
        body="The query is built with an f-string.",
        category_certainty=0.8,
        suggestion="cursor.execute(sql, (name,))",
        source=source,
        related=(Evidence("app/api.py", 10),),
    )
    assert (finding.rule_id, finding.category_certainty, finding.source) == ("B608", 0.8, source)
    assert finding.related == (Evidence("app/api.py", 10),)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"category_certainty": 1.5}, r"category certainty must be a number in \[0, 1\], not 1.5"),
        ({"category_certainty": float("nan")}, "category certainty must be a number"),
        ({"body": 3}, "rule id, body and suggestion must be strings"),
        ({"source": "PRRC_x"}, "source must be a CommentSource"),
        ({"related": ("a.py",)}, "related locations must be Evidence values"),
        ({"priority": 1.5}, r"priority must be a number in \[0, 1\] or -1 \(none\), not 1.5"),
        ({"priority": -0.5}, "priority must be a number in"),
        ({"priority": float("nan")}, "priority must be a number in"),
        ({"priority": True}, "priority must be a number in"),
    ],
)
def test_invalid_extras_are_errors_naming_the_record(
    changes: dict[str, object], message: str
) -> None:
    base = NormalizedFinding("bot", "f1", Severity.LOW, "other", "t")
    with pytest.raises(FindingError, match=f"finding 'f1' from 'bot': {message}"):
        msgspec.structs.replace(base, **changes)


@pytest.mark.parametrize(
    ("kind", "rest_id", "message"),
    [
        ("commit_comment", 1, 'comment kind "commit_comment" is not one of'),
        ("review", "1", 'comment id must be an integer, not "1"'),
        ("review", True, "comment id must be an integer, not true"),
    ],
)
def test_invalid_comment_sources_are_errors(kind: str, rest_id: object, message: str) -> None:
    with pytest.raises(FindingError, match=message):
        CommentSource(kind, rest_id)  # type: ignore[arg-type]


@pytest.mark.parametrize("priority", [-1.0, 0.0, 0.5, 1.0, 1])
def test_a_priority_in_range_or_none_stated_is_valid(priority: float) -> None:
    base = NormalizedFinding("bot", "f1", Severity.LOW, "other", "t")
    assert msgspec.structs.replace(base, priority=priority).priority == priority


class Text(str):
    """A str subclass: valid wherever text is, though not the plain type."""


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"bot": Text("bandit")}, None),
        ({"title": Text("SQL")}, None),
        ({"confidence": 1}, None),  # an integer confidence is a number
        ({"category_certainty": 1}, None),
        ({"confidence": True}, "confidence must be a number, not true"),
        ({"confidence": float("-inf")}, "confidence must be finite"),
        ({"confidence": "0.5"}, "confidence must be a number"),
        ({"category": 3}, "category and title must be strings"),
        ({"severity": 3}, "unknown severity 3"),
        ({"evidence": ("a.py", 3)}, "evidence must be an Evidence"),
        ({"rule_id": None}, "rule id, body and suggestion must be strings"),
        ({"category_certainty": -0.1}, r"category certainty must be a number in \[0, 1\]"),
        ({"cwes": (79, 0)}, "CWE ids must be positive integers"),
        ({"cwes": (79, 2**31)}, "CWE ids must be at most 2147483647"),
        ({"cwes": (2**31 - 1,)}, None),
        ({"related": (Evidence("a.py", 2),)}, None),
    ],
)
def test_every_field_is_checked_whatever_its_type(
    changes: dict[str, object], message: str | None
) -> None:
    fields: dict[str, object] = {
        "bot": "bandit",
        "finding_id": "B608",
        "severity": Severity.HIGH,
        "category": "security",
        "title": "SQL injection",
        "evidence": Evidence("app/db.py", 3),
    }
    fields.update(changes)
    if message is None:
        assert NormalizedFinding(**fields).bot == fields["bot"]  # type: ignore[arg-type]
    else:
        with pytest.raises(FindingError, match=f"finding 'B608' from .*: {message}"):
            NormalizedFinding(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "end_line", "message"),
    [
        (3, None, None),
        (None, None, None),
        (3, 3, None),
        (2**31 - 1, None, None),
        (2**31, None, "line must be at most 2147483647"),
        (True, None, "line must be a positive integer or null, not true"),
        (3.0, None, "line must be a positive integer or null, not 3.0"),
        (None, 4, "end_line 4 without a start line"),
        (5, 4, "end_line 4 without a start line at or before it"),
    ],
)
def test_evidence_lines_are_checked(line: object, end_line: object, message: str | None) -> None:
    if message is None:
        assert Evidence("a.py", line, end_line=end_line).line == line  # type: ignore[arg-type]
    else:
        with pytest.raises(FindingError, match=message):
            Evidence("a.py", line, end_line=end_line)  # type: ignore[arg-type]
