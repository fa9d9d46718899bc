"""The published JSON Schemas of the reports are the report's own Structs, and real reports
(the bundled example, the corpora) are valid against them.

After changing `review_quorum/report.py`, write the schemas again with
``python tests/test_report_schema.py --write``.
"""

from __future__ import annotations

import copy
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import orjson
import pytest

from conftest import REPO_ROOT, shared_path
from review_quorum.cli import main
from review_quorum.errors import InputError
from review_quorum.plan import review
from review_quorum.render.json_report import render, report_data
from review_quorum.report import SCHEMA_FILES, ConsensusReport, ReviewReport, schema_text
from review_quorum.saved_plan import read_saved_plan
from review_quorum.verifier.figures import Figures, Place

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
KINDS: dict[str, type[ReviewReport | ConsensusReport]] = {
    "ReviewReport": ReviewReport,
    "ConsensusReport": ConsensusReport,
}


def shipped(name: str) -> str:
    return resources.files("review_quorum").joinpath("schemas", SCHEMA_FILES[name]).read_text()


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    document = orjson.loads(shipped(name))
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_the_shipped_schema_is_the_one_the_structs_give(name: str) -> None:
    assert shipped(name) == schema_text(KINDS[name]), (
        "write the schemas again: python tests/test_report_schema.py --write"
    )


def quorum_json(tmp_path: Path, *argv: str) -> Any:
    output = tmp_path / "out.json"
    assert main([*argv, "--format", "json", "-o", str(output)]) in (0, 1)
    return orjson.loads(output.read_bytes())


def example_inputs() -> list[str]:
    return [str(path) for path in sorted(EXAMPLE.glob("analysers/*.sarif"))] + [
        str(path) for path in sorted(EXAMPLE.glob("bots/*.json"))
    ]


@pytest.mark.parametrize("model", ["agreement", "reliability"])
def test_the_example_reports_are_valid(tmp_path: Path, model: str) -> None:
    options = ["--diff", str(EXAMPLE / "pr.diff"), "--verdicts", str(EXAMPLE / "verdicts.json")]
    options += ["--config", str(EXAMPLE / "quorum.toml"), "--model", model]
    plan = quorum_json(tmp_path, "review", *example_inputs(), *options)
    assert plan["findings"] and any(finding["verdict"] for finding in plan["findings"])
    validator("ReviewReport").validate(plan)
    baseline = ["--baseline", str(EXAMPLE / "analysers" / "bandit.sarif"), "--model", model]
    compared = quorum_json(tmp_path, "review", *example_inputs(), *baseline)
    assert compared["baseline"]["sources"]
    validator("ReviewReport").validate(compared)
    consensus = quorum_json(tmp_path, "consensus", *example_inputs(), "--model", model)
    validator("ConsensusReport").validate(consensus)


@pytest.mark.parametrize("corpus", ["castle-c250", "securibench-micro-js"])
def test_the_corpora_reports_are_valid(tmp_path: Path, corpus: str) -> None:
    sarif = [str(path) for path in sorted(shared_path("corpora", corpus, "sarif").glob("*.sarif"))]
    plan = quorum_json(tmp_path, "review", *sarif, "--model", "reliability")
    assert plan["findings"]
    validator("ReviewReport").validate(plan)
    validator("ConsensusReport").validate(quorum_json(tmp_path, "consensus", *sarif))


@pytest.fixture(scope="module")
def example_plan(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("plan")
    options = ["--diff", str(EXAMPLE / "pr.diff"), "--verdicts", str(EXAMPLE / "verdicts.json")]
    return quorum_json(folder, "review", *example_inputs(), *options)  # type: ignore[no-any-return]


def test_a_verification_summary_is_valid(example_plan: dict[str, Any]) -> None:
    figures = Figures(
        model="m",
        endpoint="openai",
        verified=1,
        cached=0,
        not_verified={"timeout": 1},
        skipped={},
        dismissed_for_review_by_hand=1,
        review_by_hand=[Place("app/a.py", 3)],
        injection_suspected=[],
        verdicts={"CONFIRMED": 1},
        placements_changed=0,
        requests=1,
        tokens_in=10,
        tokens_out=5,
        latency_p50_s=0.5,
        latency_p95_s=None,
        problems=[],
        gate="consensus",
    )
    document = {**example_plan, "verification": msgspec.to_builtins(figures)}
    validator("ReviewReport").validate(document)
    document["verification"]["verified"] = "one"
    assert not validator("ReviewReport").is_valid(document)


def changed(document: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    document = copy.deepcopy(document)
    *parents, last = pointer.strip("/").split("/")
    node: Any = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[int(last) if isinstance(node, list) else last] = value
    return document


@pytest.mark.parametrize(
    ("pointer", "value"),
    [
        ("/surprise", 1),
        ("/bots_ran", 0),
        ("/gate/level", "high"),
        ("/settings/order", "random"),
        ("/findings/0/line", 0),
        ("/findings/0/members", []),
        ("/findings/0/members/0/severity", "urgent"),
        ("/findings/0/members/0/cwes", [0]),
        ("/findings/0/code", "XYZ"),
        ("/findings/0/disposition", "hidden"),
        ("/github_review/commit_id", "main"),
        ("/github_review/comments/0/side", "LEFT"),
        ("/gate_findings_by_level/needs-verification", -1),
    ],
)
def test_the_schema_refuses_what_the_reader_refuses(
    example_plan: dict[str, Any], pointer: str, value: Any
) -> None:
    """An integrator validating against the schema refuses the plans `quorum post` does."""
    document = changed(example_plan, pointer, value)
    assert not validator("ReviewReport").is_valid(document)
    with pytest.raises(InputError) as raised:
        read_saved_plan(document, "plan.json")
    assert raised.value.position.startswith(pointer.rsplit("/", 1)[0])


def test_a_plan_with_every_optional_member_reads_back_and_is_valid() -> None:
    """`model`, `contributions`, `cwes` and `use_only` are written only when they apply."""
    from review_quorum.model import NormalizedFinding
    from review_quorum.plan import Settings

    findings = [
        NormalizedFinding.create(
            bot=bot,
            finding_id=bot,
            severity="high",
            category="security",
            title="Weak hash",
            file="a.py",
            line=3,
            cwes=(328,),
            use_only=True,
        )
        for bot in ("bandit", "semgrep")
    ]
    plan = review(findings, settings=Settings(model="reliability"))
    document = orjson.loads(render(plan))
    member = document["findings"][0]["members"][0]
    assert (member["cwes"], member["use_only"]) == ([328], True)
    assert document["findings"][0]["model"] == "reliability"
    validator("ReviewReport").validate(document)
    assert report_data(read_saved_plan(document, "plan.json")) == document


def test_a_plan_read_back_is_written_byte_for_byte_as_saved(example_plan: dict[str, Any]) -> None:
    """The Structs are encoded as orjson wrote the same document (indent, numbers, escapes)."""
    plan = read_saved_plan(example_plan, "plan.json")
    assert render(plan).encode() == orjson.dumps(example_plan, option=orjson.OPT_INDENT_2) + b"\n"


@pytest.mark.parametrize("confidence", [0.25, 1e16, 3e20, -2e17])
def test_a_review_report_writes_numbers_as_orjson_does(confidence: float) -> None:
    """A confidence outside 0-1 is kept as given (`NormalizedFinding`) and written as
    before: orjson's 1e+16, not msgspec's 1e16."""
    from review_quorum.model import NormalizedFinding

    lone = NormalizedFinding.create(
        bot="bandit",
        finding_id="b1",
        severity="high",
        category="security",
        title="Weak hash",
        file="a.py",
        line=3,
        confidence=confidence,
    )
    plan = review([lone])
    written = render(plan).encode()
    assert written == orjson.dumps(report_data(plan), option=orjson.OPT_INDENT_2) + b"\n"
    assert b'"confidence": ' + orjson.dumps(confidence) in written


def test_a_saved_plans_numbers_are_written_back_as_saved(example_plan: dict[str, Any]) -> None:
    """Numbers a plan carries as given (a hand-edited plan, read back as a baseline or
    posted) are written back as orjson wrote them."""
    document = changed(example_plan, "/findings/0/max_confidence", 3e20)
    document = changed(document, "/findings/0/consensus_score", -2e17)
    plan = read_saved_plan(document, "plan.json")
    written = render(plan).encode()
    assert written == orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    assert b'"max_confidence": 3e+20' in written


def test_a_baselines_numbers_are_written_back_as_saved(tmp_path: Path) -> None:
    baseline = ["--baseline", str(EXAMPLE / "analysers" / "bandit.sarif")]
    compared = quorum_json(tmp_path, "review", *example_inputs(), *baseline)
    assert compared["baseline"]["absent"]
    document = changed(compared, "/baseline/absent/0/max_confidence", 3e20)
    document = changed(document, "/baseline/absent/0/consensus_score", -2e17)
    written = render(read_saved_plan(document, "plan.json")).encode()
    assert written == orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def test_the_counts_and_the_gate_say_what_the_findings_say(example_plan: dict[str, Any]) -> None:
    """`counts`, `gate` and `gate_findings_by_level` are the findings' own figures."""
    findings = example_plan["findings"]
    for kind, count in example_plan["counts"].items():
        assert count == sum(1 for finding in findings if finding["disposition"] == kind)
    assert len({*example_plan["counts"].values()}) > 1  # a swap would show
    weighed = [
        finding
        for finding in findings
        if finding["disposition"] != "dropped"
        and (finding["verdict"] or {}).get("verdict") != "DISMISSED"
    ]
    assert any(finding["disposition"] == "dropped" for finding in findings)
    for level, count in example_plan["gate_findings_by_level"].items():
        assert count == sum(1 for finding in weighed if finding["level"] == level)
    gate = example_plan["gate"]
    assert (gate["level"], gate["failed"]) == (example_plan["settings"]["gate_level"], True)


def test_a_review_without_a_gate_says_none() -> None:
    from review_quorum.model import NormalizedFinding
    from review_quorum.plan import Settings

    lone = NormalizedFinding.create(
        bot="bandit", finding_id="b1", severity="high", category="security", title="x", file="a.py"
    )
    document = orjson.loads(render(review([lone], settings=Settings(gate_level=None))))
    assert (document["gate"]["level"], document["settings"]["gate_level"]) == ("none", "none")
    assert report_data(read_saved_plan(document, "plan.json")) == document


@pytest.mark.parametrize("model", ["agreement", "reliability"])
def test_model_and_contributions_are_written_only_for_the_reliability_model(
    model: str,
) -> None:
    from review_quorum import compute_consensus
    from review_quorum.model import NormalizedFinding
    from review_quorum.render.json_stream import consensus_document

    found = [
        NormalizedFinding.create(
            bot=bot,
            finding_id=bot,
            severity="high",
            category="security",
            title="x",
            file="a.py",
            line=2,
        )
        for bot in ("bandit", "semgrep")
    ]
    consensus = compute_consensus(found, bots_ran=2, model=model)  # type: ignore[arg-type]
    [finding] = orjson.loads(b"".join(consensus_document(consensus, 2, [])))["findings"]
    assert ("model" in finding, "contributions" in finding) == ((model == "reliability",) * 2)
    assert list(finding)[-1] == ("contributions" if model == "reliability" else "members")


def test_the_review_payload_names_the_head_commit_it_is_about() -> None:
    from review_quorum.model import NormalizedFinding

    lone = NormalizedFinding.create(
        bot="bandit", finding_id="b1", severity="high", category="security", title="x", file="a.py"
    )
    plan = msgspec.structs.replace(review([lone]), commit_id="c" * 40)
    document = orjson.loads(render(plan))
    assert document["github_review"]["commit_id"] == "c" * 40
    assert read_saved_plan(document, "plan.json").commit_id == "c" * 40
    assert "commit_id" not in orjson.loads(render(review([lone])))["github_review"]


def write() -> None:
    folder = Path(__file__).resolve().parents[1] / "src" / "review_quorum" / "schemas"
    for name, kind in KINDS.items():
        (folder / SCHEMA_FILES[name]).write_text(schema_text(kind))


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write()
