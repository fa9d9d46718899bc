"""`quorum review` end to end: every output format, config, gate, bad input (issue 5)."""

from __future__ import annotations

import glob
import json
import shlex
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import FIXTURES, REPO_ROOT, shared_path
from review_quorum.cli import main

FINDINGS = str(FIXTURES / "review.findings.json")
DIFF = str(FIXTURES / "review.pr.diff")
VERDICTS = str(FIXTURES / "review.verdicts.json")
BASE = ["review", FINDINGS, "--diff", DIFF, "--bots", "3"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main([*BASE, *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_report_accounts_for_every_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--verdicts", VERDICTS, "--format", "json")
    report = json.loads(out)
    assert status == 1
    assert report["gate"] == {"level": "confirmed", "failed": True, "count": 1}
    assert report["input_findings"] == 5
    members = [m for f in report["findings"] for m in f["members"]]
    assert len(members) + 1 == 6  # the bad record is skipped, not lost
    assert [(s["position"], s["reason"][:30]) for s in report["skipped"]] == [
        ("/5", "finding '#5' from 'bandit': un"),
        ("/verdicts/1", "verdict for app/nowhere.py:1 m"),
    ]
    by_line = {(f["file"], f["line"]): f for f in report["findings"]}
    sql = by_line[("app/db.py", 9)]
    assert sql["detected_by"] == ["bandit", "semgrep"]
    assert (sql["disposition"], sql["forced"], sql["confidence"]) == ("inline", True, None)
    loop = by_line[("app/db.py", 11)]
    assert loop["confidence"]["band"] == "weak" and loop["verdict"]["verdict"] == "LIKELY"
    assert by_line[("app/other.py", 3)]["disposition"] == "dropped"
    assert report["settings"]["filter_mode"] == "added"
    assert err == "quorum: warning: 2 input record(s) skipped (listed in the JSON report)\n"


def test_markdown_is_the_review_body_with_bot_text_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys)
    assert status == 1
    assert out == (
        "<!-- review-quorum:summary -->\n## Review assessment: 🔴 CRITICAL\n\n"
        "**1** posted inline · **2** lower-confidence · **1** dropped · "
        "**1** input record skipped\n\n### 1 finding posted inline\n\n"
        "- **HIGH** SQL query built from an f-string &lt;img src=x onerror=alert(1)> "
        "@\u2060everyone — `app/db.py:9-11` — [detected by 2/3 bots, agreement 67%] "
        "bandit, semgrep\n\n### 2 lower-confidence findings (not posted inline)\n\n"
        "#### Needs verification (1)\n\n- **INFO** No type checking configured — *global* — "
        "[detected by 1/3 bots, agreement 33%] semgrep\n\n#### Unverified (1)\n\n"
        "- **LOW** Loop stops one page early — `app/db.py:11` — "
        "[detected by 1/3 bots, agreement 33%] copilot\n"
    )


def test_github_review_payload_is_valid_against_githubs_schema(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "--format", "github-review")
    payload = json.loads(out)
    assert [
        (c["path"], c.get("start_line"), c["line"], c["side"]) for c in payload["comments"]
    ] == [("app/db.py", 9, 11, "RIGHT")]
    assert payload["event"] == "COMMENT"
    assert "<!-- review-quorum:finding " in payload["comments"][0]["body"]
    contract = json.loads(shared_path("github", "github-rest-subset.json").read_text())
    jsonschema.validate(payload, contract["operations"]["pulls/create-review"]["requestBody"])


def test_sarif_is_valid_sarif_2_1_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--verdicts", VERDICTS, "--format", "sarif")
    sarif = json.loads(out)
    [run_] = sarif["runs"]
    results = run_["results"]
    assert len(results) == 3  # the out-of-scope finding is not exported
    first = results[0]
    assert first["properties"]["detected_by"] == ["bandit", "semgrep"]
    assert first["rank"] == 96.2  # the reliability model's probability, in percent
    assert set(first["partialFingerprints"]) == {"reviewQuorum/v1"}
    verified = [r for r in results if "confidence" in r["properties"]]
    assert verified[0]["properties"]["confidence"]["band"] == "weak"
    schema = json.loads(shared_path("schemas", "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(schema).validate(sarif)


def test_terminal_table_has_no_colour_when_not_a_tty(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--format", "terminal")
    lines = [line.strip() for line in out.splitlines()]
    assert status == 1
    assert lines[0] == "Review assessment: CRITICAL"
    assert [line.split()[:3] for line in lines if line.startswith(("inline", "summary"))] == [
        ["inline", "high", "app/db.py:9"],
        ["summary", "info", "(global)"],
        ["summary", "low", "app/db.py:11"],
    ]
    assert lines[-1] == "Gate (confirmed): failed, 1 blocking; 1 input record(s) skipped"
    assert "\x1b[" not in out


def test_config_file_sets_defaults_and_flags_override(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text('gate-level = "none"\nformat = "json"\nfilter-mode = "nofilter"\n')
    status, out, _ = run(capsys, "--config", str(config))
    assert status == 0
    assert json.loads(out)["settings"]["filter_mode"] == "nofilter"
    status, out, _ = run(capsys, "--config", str(config), "--gate-level", "confirmed")
    assert status == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("colour = 1\n", "unknown key 'colour' (known keys: bots, line-window, "),
        (
            'gate-level = "sometimes"\n',
            "bad value for 'gate-level': \"sometimes\": expected one of confirmed, "
            "needs-verification, unverified, none",
        ),
        ("cap = -1\n", "bad value for 'cap': -1: expected a whole number >= 0"),
        ("cap = \n", "cannot read configuration: Invalid value (at line 1, column 7)"),
    ],
)
def test_bad_configuration_names_the_file_and_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    config = tmp_path / ".quorum.toml"
    config.write_text(content)
    status, out, err = run(capsys, "--config", str(config))
    assert (status, out) == (2, "")
    assert err.startswith(f"quorum: error: {config}: {message}")
    assert err.count("\n") == 1


def test_pyproject_tool_quorum_is_discovered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.quorum]\ngate-level = "none"\n')
    monkeypatch.chdir(tmp_path)
    assert run(capsys)[0] == 0


def test_verbose_prints_stage_timings(capsys: pytest.CaptureFixture[str]) -> None:
    _, _, err = run(capsys, "-v")
    assert [line.split()[1] for line in err.splitlines() if "ms" in line] == [
        "read",
        "plan",
        "render",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--diff", "missing.diff"], "missing.diff: no such file"),
        (
            ["--verdicts", FINDINGS],
            f'{FINDINGS}:/: expected a JSON object with a "verdicts" array, not an array',
        ),
        (["--git", "nonsense"], "--git: expected BASE..HEAD, not 'nonsense'"),
    ],
)
def test_bad_inputs_are_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status = main(["review", FINDINGS, "--bots", "3", *args])
    assert status == 2
    assert capsys.readouterr() == ("", f"quorum: error: {message}\n")


def readme_example_arguments() -> list[str]:
    """The arguments of the README's first command, globs expanded as a shell would."""
    readme = (REPO_ROOT / "README.md").read_text()
    first = readme.split("```sh\n", 1)[1].split("\n", 1)[0]
    words = shlex.split(first.split(".venv/bin/quorum ", 1)[1])
    expanded: list[str] = []
    for word in words:
        matches = sorted(glob.glob(str(REPO_ROOT / word))) if "*" in word else []
        expanded.extend(matches or [str(REPO_ROOT / word) if "/" in word else word])
    return expanded


def test_the_readme_command_prints_a_consolidated_review(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = readme_example_arguments()
    assert arguments[0] == "review"
    status = main(arguments)
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("<!-- review-quorum:summary -->\n## Review assessment: 🔴 CRITICAL")
    assert "[detected by 5/6 bots, agreement 83%] bandit, coderabbit, copilot, ruff, semgrep" in out
    assert "dismissed security finding" in out
    # The hostile CodeRabbit comment quotes our summary marker: inert text, still a finding.
    [hostile] = [line for line in out.splitlines() if "`app/cli.py:33`" in line]
    assert hostile.endswith("[detected by 1/6 bots, agreement 17%] coderabbit")
    assert "review-quorum:" not in hostile and "@\u2060everyone" in hostile


def example(capsys: pytest.CaptureFixture[str], output: str) -> str:
    """The README example's output in `output` format; it fails the gate (exit 1)."""
    status = main([*readme_example_arguments(), "--format", output])
    out = capsys.readouterr().out
    assert status == 1
    return out


def test_the_example_as_json_accounts_for_every_input(capsys: pytest.CaptureFixture[str]) -> None:
    report = json.loads(example(capsys, "json"))
    members = sum(len(finding["members"]) for finding in report["findings"])
    assert (members, report["input_findings"]) == (38, 38)
    # the three comment files are one reading: the review bodies' copies of inline
    # comments are dropped as they are when the files are merged first (issue 33 item 9)
    inline = str(REPO_ROOT / "examples" / "pr-review" / "bots" / "pulls-comments.json")
    assert [item["reason"] for item in report["skipped"]] == [
        "CodeRabbit walkthrough, not a finding",
        "comment by a human/unknown author",
        "CodeRabbit review summary with no findings of its own",
        *[f"same finding as the inline comment at {inline}:/{n}" for n in range(11, 16)],
    ]


def test_the_example_as_sarif_is_valid_sarif(capsys: pytest.CaptureFixture[str]) -> None:
    sarif = json.loads(example(capsys, "sarif"))
    assert len(sarif["runs"][0]["results"]) == 13
    schema = json.loads(shared_path("schemas", "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft7Validator(schema).validate(sarif)


def test_the_example_as_a_github_review_anchors_every_inline_comment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    payload = json.loads(example(capsys, "github-review"))
    assert payload["event"] == "COMMENT"
    assert [(c["path"], c.get("start_line"), c["line"]) for c in payload["comments"]] == [
        ("app/auth.py", 18, 19),
        ("app/export.py", 46, 48),
        ("app/db.py", 67, 68),
        ("app/auth.py", None, 12),
        ("app/db.py", 58, 59),
        ("app/export.py", 38, 41),
        ("app/export.py", None, 7),
        ("app/auth.py", 59, 60),
        ("app/cli.py", None, 6),
    ]
    contract = json.loads(shared_path("github", "github-rest-subset.json").read_text())
    jsonschema.validate(payload, contract["operations"]["pulls/create-review"]["requestBody"])


def test_the_example_as_markdown_and_terminal_leads_with_the_assessment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert example(capsys, "markdown").splitlines()[:5] == [
        "<!-- review-quorum:summary -->",
        "## Review assessment: 🔴 CRITICAL",
        "",
        "**9** posted inline · **3** lower-confidence · **1** dismissed security · "
        "**1** dropped · **8** input records skipped",
        "",
    ]
    assert example(capsys, "terminal").splitlines()[0].strip() == "Review assessment: CRITICAL"


def test_long_inputs_show_a_bar_on_a_terminal_instead_of_log_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from review_quorum.cli import progress

    monkeypatch.setattr(progress, "PROGRESS_BYTES", 1)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status, out, err = run(capsys, "--format", "json")
    assert status == 1
    assert "reading inputs" in err  # the bar's label, drawn with terminal codes
    assert "quorum: read " not in err  # no log lines on a terminal
    assert json.loads(out)["input_findings"] == 5  # the output itself is unaffected


def test_post_dry_run_prints_the_requests_it_would_send(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_ACTIONS", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    out_file = tmp_path / "review.md"
    status, out, err = run(
        capsys, "--post", "--dry-run", "--repo", "octo/app", "--pr", "7", "-o", str(out_file)
    )
    assert status == 1  # the gate still decides the exit status
    assert out_file.read_text().startswith("<!-- review-quorum:summary -->")
    assert "POST https://api.github.com/repos/octo/app/issues/7/comments" in out
    assert "POST https://api.github.com/repos/octo/app/pulls/7/reviews" in out
    assert "no GITHUB_TOKEN" in err


def test_category_overrides_from_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sarif = str(FIXTURES / "ingest" / "sarif.ruff-shop.json")
    config = tmp_path / ".quorum.toml"
    config.write_text('gate-level = "none"\n[categories]\n"S30*" = "data_integrity"\n')
    assert main(["review", sarif, "--config", str(config), "--format", "json"]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    categories = {f["members"][0]["finding_id"]: f["category"] for f in findings}
    assert categories["S301"] == "data_integrity"
    assert categories["S324"] == "security"
    config.write_text('[categories]\n"S301" = "secrets"\n')
    assert main(["review", sarif, "--config", str(config)]) == 2
    assert "unknown category 'secrets'" in capsys.readouterr().err


def test_include_humans_reads_people_s_comments_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    comments = tmp_path / "issue-comments.json"
    body = "Two things:\n[high] app/db.py:67 the search query is built with an f-string"
    comments.write_text(json.dumps([{"id": 1, "user": {"login": "maria", "type": "User"},
                                     "body": body}]))  # fmt: skip
    args = ["review", str(comments), "--bots", "2", "--gate-level", "none", "--format", "json"]
    main(args)
    without = json.loads(capsys.readouterr().out)
    assert [s["reason"] for s in without["skipped"]] == ["comment by a human/unknown author"]
    main([*args, "--include-humans"])
    with_humans = json.loads(capsys.readouterr().out)
    assert with_humans["skipped"] == []
    [finding] = with_humans["findings"]
    assert (finding["file"], finding["line"], finding["severity"]) == ("app/db.py", 67, "high")
    assert finding["members"][0]["bot"] == "maria"


def test_findings_can_come_from_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    data = (FIXTURES / "review.findings.json").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["consensus", "-", "--bots", "3", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["skipped"][0]["source"] == "<stdin>"


def test_review_inputs_are_read_once_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `quorum review` reads besides its findings, as its readers get it."""
    from review_quorum.cli import build_parser
    from review_quorum.cli.review import ReviewInputs, code_lines

    for place in ("head", "elsewhere", "."):
        (tmp_path / place).mkdir(exist_ok=True)
        (tmp_path / place / f"in_{place.strip('.') or 'cwd'}.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    argv = ["review", "f.json", "--baseline", "b.sarif", "--baseline-db", "a" * 40]
    argv += ["--checkout", "head", "--git", "main..topic"]
    inputs = ReviewInputs.from_args(build_parser().parse_args(argv))
    assert inputs.baseline_sources() == [f"history run of {'a' * 40}", "b.sarif"]
    assert ReviewInputs(baseline=("b.sarif",)).baseline_sources() == ["b.sarif"]
    assert code_lines(inputs, None, root="elsewhere").has_file("in_head.py")
    assert code_lines(ReviewInputs(git="main..topic"), None).has_file("in_cwd.py")
    assert code_lines(ReviewInputs(), None, root="elsewhere").has_file("in_elsewhere.py")
    assert not code_lines(ReviewInputs(), None).has_root
