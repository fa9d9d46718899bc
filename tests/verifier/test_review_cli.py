"""End to end: `quorum review <the README example> --verify-url <stand-in> --verify-model m`,
and `quorum verify PLAN.json -o verdicts.json` feeding `--verdicts`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT
from review_quorum.cli import main
from review_quorum.errors import InputError
from review_quorum.render.json_report import report_data
from review_quorum.saved_plan import read_saved_plan
from verifier.openai_standin import StandIn

EXAMPLE = REPO_ROOT / "examples" / "pr-review"
# In the example, with no verdicts file: the clusters a verdict can move.
ELIGIBLE = [("app/auth.py", 59), ("app/stock.py", 39), ("app/export.py", 7)]


def example_args(tmp_path: Path, *extra: str) -> list[str]:
    inputs = [str(path) for path in sorted(EXAMPLE.glob("analysers/*.sarif"))]
    inputs += [str(path) for path in sorted(EXAMPLE.glob("bots/*.json"))]
    return [
        "review",
        *inputs,
        "--diff",
        str(EXAMPLE / "pr.diff"),
        "--config",
        str(EXAMPLE / "quorum.toml"),
        "--format",
        "json",
        "--verify-checkout",
        str(EXAMPLE / "head"),
        "--verify-cache",
        str(tmp_path / "cache.json"),
        *extra,
    ]


def review(tmp_path: Path, name: str, *extra: str) -> dict[str, Any]:
    output = tmp_path / name
    assert main([*example_args(tmp_path, *extra), "-o", str(output)]) == 1  # the gate fails
    document: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return document


def placements(report: dict[str, Any]) -> dict[tuple[str, int], str]:
    return {(f["file"], f["line"]): f["disposition"] for f in report["findings"]}


def sent(standin: StandIn) -> list[tuple[str, int]]:
    found = []
    for request in standin.requests:
        payload = json.loads(request["body"]["messages"][1]["content"])
        found.append((payload["file"], payload["line"]))
    return found


def test_the_example_verified_moves_placements_and_a_rerun_asks_nothing(
    tmp_path: Path, standin: StandIn
) -> None:
    standin.verdicts["app/stock.py:39"] = {
        "verdict": "DISMISSED",
        "cited_lines": [39],
        "reason": "the list is small",
    }
    standin.verdicts["app/export.py:7"] = {
        "verdict": "CONFIRMED",
        "severity": "high",
        "evidence_strength": "direct",
        "context_completeness": "full",
        "cited_lines": [7],
    }
    plain = review(tmp_path, "plain.json")
    verified = review(tmp_path, "verified.json", "--verify-url", standin.url, "--verify-model", "m")
    assert sorted(sent(standin)) == sorted(ELIGIBLE)
    assert standin.errors == []
    before, after = placements(plain), placements(verified)
    assert before[("app/stock.py", 39)] == "summary"
    assert after[("app/stock.py", 39)] == "dropped"  # DISMISSED with cited code, one family
    assert after[("app/export.py", 7)] == "inline"
    moved = {place for place in before if before[place] != after[place]}
    assert moved and moved <= set(ELIGIBLE)
    stock = next(f for f in verified["findings"] if f["line"] == 39)
    assert stock["verdict"]["verdict"] == "DISMISSED"
    assert verified["verification"]["verified"] == 3
    assert verified["gate"] == plain["gate"]
    assert "Verifier: 3 verified" in verified["summary_markdown"]
    # `quorum post` reads the plan back: the figures and the summary lines come with it
    saved = read_saved_plan(verified, "verified.json")
    assert report_data(saved)["summary_markdown"] == verified["summary_markdown"]
    assert report_data(saved)["verification"] == verified["verification"]
    forged = {**verified, "verification": {**verified["verification"], "verified": "3"}}
    with pytest.raises(InputError, match="/verification"):
        read_saved_plan(forged, "forged.json")

    asked = len(standin.requests)
    again = review(tmp_path, "again.json", "--verify-url", standin.url, "--verify-model", "m")
    assert len(standin.requests) == asked  # everything from the cache
    assert placements(again) == after
    assert again["verification"]["cached"] == 3


def without_notes(markdown: str) -> str:
    return "\n".join(
        line
        for line in markdown.splitlines()
        if line and not line.startswith(("Verifier:", "Not verified"))
    )


def test_a_server_answering_500_gives_the_plain_review_and_a_note(
    tmp_path: Path, standin: StandIn
) -> None:
    standin.always = "500"
    plain = review(tmp_path, "plain.json")
    failed = review(
        tmp_path,
        "failed.json",
        "--verify-url",
        standin.url,
        "--verify-model",
        "m",
        "--verify-budget-s",
        "5",
    )
    assert failed["findings"] == plain["findings"]
    assert failed["gate"] == plain["gate"]
    assert failed["assessment"] == plain["assessment"]
    assert without_notes(failed["summary_markdown"]) == without_notes(plain["summary_markdown"])
    assert "Not verified, placed by consensus: 3" in failed["summary_markdown"]
    assert failed["verification"]["verified"] == 0
    assert "verification" not in plain


def test_quorum_verify_writes_what_verdicts_reads(tmp_path: Path, standin: StandIn) -> None:
    standin.verdicts["app/export.py:7"] = {"verdict": "CONFIRMED", "severity": "high"}
    plan = tmp_path / "plan.json"
    argv = example_args(tmp_path)
    assert main([*argv, "-o", str(plan)]) == 1
    (tmp_path / "out").mkdir()
    verdicts = tmp_path / "out" / "verdicts.json"
    code = main(
        [
            "verify",
            str(plan),
            "--diff",
            str(EXAMPLE / "pr.diff"),
            "--verify-url",
            standin.url,
            "--verify-model",
            "m",
            "--verify-checkout",
            str(EXAMPLE / "head"),
            "-o",
            str(verdicts),
        ]
    )
    assert code == 0
    written = json.loads(verdicts.read_text(encoding="utf-8"))
    assert sorted((v["file"], v["line"]) for v in written["verdicts"]) == sorted(ELIGIBLE)
    assert (tmp_path / ".quorum-verifier-cache.json").exists()  # beside the plan
    from_file = review(tmp_path, "from_file.json", "--verdicts", str(verdicts))
    direct = review(tmp_path, "direct.json", "--verify-url", standin.url, "--verify-model", "m")
    assert placements(from_file) == placements(direct)


def test_quorum_verify_says_why_findings_were_not_verified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "plan.json"
    assert main([*example_args(tmp_path), "-o", str(plan)]) == 1
    capsys.readouterr()
    failing = f"{sys.executable} -c 'raise SystemExit(3)'"
    argv = ["verify", str(plan), "--diff", str(EXAMPLE / "pr.diff"), "--verifier-cmd", failing]
    assert main([*argv, "--verify-checkout", str(EXAMPLE / "head"), "-o", "-"]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == (
        "quorum verify: 0 verified, 0 cached, 3 not verified (verifier command exited with "
        "status 3: 3), 11 skipped, 0 audit"
    )


def test_the_configuration_keys_have_the_flags_names(tmp_path: Path, standin: StandIn) -> None:
    settings = (EXAMPLE / "quorum.toml").read_text(encoding="utf-8")
    config = tmp_path / "quorum.toml"
    config.write_text(
        settings + f'verify-url = "{standin.url}"\nverify-model = "m"\nverify-max = 1\n',
        encoding="utf-8",
    )
    argv = example_args(tmp_path)
    argv[argv.index("--config") + 1] = str(config)
    assert main([*argv, "-o", str(tmp_path / "out.json")]) == 1
    assert len(standin.requests) == 1


def test_verify_needs_an_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tmp_path / "plan.json"
    assert main([*example_args(tmp_path), "-o", str(plan)]) == 1
    code = main(["verify", str(plan), "-o", str(tmp_path / "v.json")])
    assert code == 2
    assert "--verify-url" in capsys.readouterr().err
    assert not (tmp_path / "v.json").exists()


def test_the_cache_sits_beside_the_output_by_default(tmp_path: Path, standin: StandIn) -> None:
    argv = example_args(tmp_path)
    at = argv.index("--verify-cache")
    del argv[at : at + 2]
    (tmp_path / "out").mkdir()
    flags = ["--verify-url", standin.url, "--verify-model", "m"]
    assert main([*argv, *flags, "-o", str(tmp_path / "out" / "plan.json")]) == 1
    assert (tmp_path / "out" / ".quorum-verifier-cache.json").exists()


def test_gate_on_verified_is_a_flag(tmp_path: Path, standin: StandIn) -> None:
    flags = ["--verify-url", standin.url, "--verify-model", "m", "--gate-on-verified"]
    report = review(tmp_path, "gated.json", *flags)
    assert report["verification"]["gate"] == "verified"


def test_a_command_wins_over_a_url(
    tmp_path: Path, standin: StandIn, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    script = tmp_path / "verify.py"
    script.write_text("import json; print(json.dumps({'verdicts': []}))", encoding="utf-8")
    flags = ["--verify-url", standin.url, "--verify-model", "m"]
    report = review(tmp_path, "both.json", *flags, "--verifier-cmd", f"{sys.executable} {script}")
    assert standin.requests == []
    assert report["verification"]["endpoint"] == "command"
    assert "using --verifier-cmd" in capsys.readouterr().err
