"""What SARIF producers state about how sure they are, and the CWEs they state, read from
their real output: Bandit's issue confidence, Semgrep's confidence tags; flawfinder's rank,
its risk level on its own 0-1 scale, read as a severity and not as a confidence; its CWE
relationships."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from conftest import REPO_ROOT, shared_path
from review_quorum.ingest import sarif
from review_quorum.ingest.base import Batch, Source
from review_quorum.model import Severity

INGEST = REPO_ROOT / "tests" / "fixtures" / "ingest"
EXAMPLE = REPO_ROOT / "examples" / "pr-review" / "analysers"


def read(path: Path, data: bytes | None = None) -> Batch:
    return sarif.READER.read(Source(str(path), data if data is not None else path.read_bytes()))


def test_bandit_states_each_results_confidence() -> None:
    document = orjson.loads((EXAMPLE / "bandit.sarif").read_bytes())
    stated = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r[
            "properties"
        ]["issue_confidence"]
        for r in document["runs"][0]["results"]
    }
    level = {"HIGH": 0.9, "MEDIUM": 0.7, "LOW": 0.5}
    findings = read(EXAMPLE / "bandit.sarif").findings
    assert len(findings) == len(stated)
    for finding in findings:
        assert finding.confidence == level[stated[finding.rule_id, finding.evidence.line]]


def test_semgrep_states_its_rules_confidence_as_a_tag() -> None:
    findings = read(EXAMPLE / "semgrep.sarif").findings
    document = orjson.loads((EXAMPLE / "semgrep.sarif").read_bytes())
    tags = {
        rule["id"]: rule["properties"]["tags"]
        for rule in document["runs"][0]["tool"]["driver"]["rules"]
    }
    level = {"HIGH CONFIDENCE": 0.9, "MEDIUM CONFIDENCE": 0.7, "LOW CONFIDENCE": 0.5}
    for finding in findings:
        (tag,) = (tag for tag in tags[finding.rule_id] if tag in level)
        assert finding.confidence == level[tag]


def test_flawfinders_rank_is_its_risk_level_a_severity_and_its_cwes_are_relationships() -> None:
    findings = read(INGEST / "sarif.flawfinder-copy.json").findings
    by_line = {finding.evidence.line: finding for finding in findings}
    assert len(findings) == 8
    assert by_line[8].severity is Severity.HIGH  # strcpy, risk level 4 (rank 0.8)
    assert by_line[7].severity is Severity.LOW  # a static buffer, level 2
    assert by_line[9].severity is Severity.INFO  # printf with a constant format, level 0
    # flawfinder states no confidence: its risk level says how bad, not how sure
    assert {finding.confidence for finding in findings} == {1.0}
    # and it orders them: its 0-1 scale is already a priority
    assert (by_line[8].priority, by_line[7].priority, by_line[9].priority) == (0.8, 0.4, 0.0)
    assert by_line[7].cwes == (119, 120)
    assert by_line[16].cwes == (78,)  # system()
    assert by_line[16].category == "security"


def test_a_rank_beyond_flawfinders_scale_is_a_counted_skip() -> None:
    path = INGEST / "sarif.flawfinder-copy.json"
    document = orjson.loads(path.read_bytes())
    document["runs"][0]["results"][0]["rank"] = 40
    batch = read(path, orjson.dumps(document))
    assert len(batch.findings) == 7
    (skipped,) = batch.skipped
    assert "rank must be a number from 0 to 1, not 40" in skipped.reason


def test_castle_flawfinder_output_reads_the_same_way() -> None:
    path = shared_path("corpora", "castle-c250", "sarif", "flawfinder.sarif")
    findings = read(path).findings
    assert len(findings) == 1272
    assert {f.confidence for f in findings} == {1.0}
    severities = {f.severity for f in findings}
    assert severities == {Severity.INFO, Severity.LOW, Severity.MEDIUM, Severity.HIGH}
    assert all(f.cwes for f in findings)


def test_flawfinder_relates_its_rules_to_weaknesses_only_as_relevant_a_use_of_function() -> None:
    findings = read(INGEST / "sarif.flawfinder-copy.json").findings
    assert {finding.use_only for finding in findings} == {True}


@pytest.mark.parametrize(
    ("kinds", "use_only"),
    [
        (["relevant"], True),
        (["incomparable"], True),
        (["relevant", "equal"], False),  # the rule is the weakness
        (["subset"], False),
        (None, False),  # kinds not stated: nothing is read into them
        ([], False),
    ],
)
def test_only_rules_stating_mere_relevance_are_read_as_the_use_of_a_function(
    kinds: list[str] | None, use_only: bool
) -> None:
    path = INGEST / "sarif.flawfinder-copy.json"
    document = orjson.loads(path.read_bytes())
    for rule in document["runs"][0]["tool"]["driver"]["rules"]:
        for relationship in rule["relationships"]:
            if kinds is None:
                relationship.pop("kinds")
            else:
                relationship["kinds"] = kinds
    findings = read(path, orjson.dumps(document)).findings
    assert len(findings) == 8
    assert {finding.use_only for finding in findings} == {use_only}
    assert findings[0].cwes  # the CWEs are read whatever the kinds


def test_castle_flawfinder_states_only_the_use_of_its_functions() -> None:
    path = shared_path("corpora", "castle-c250", "sarif", "flawfinder.sarif")
    assert {f.use_only for f in read(path).findings} == {True}
