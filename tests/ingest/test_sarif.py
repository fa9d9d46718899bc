"""SARIF 2.1.0 input: bots per run, severities, titles, locations, skipped records, real files."""

from __future__ import annotations

import collections

import orjson
import pytest

from conftest import FIXTURES, shared_path
from finding_rows import rows
from review_quorum.errors import InputError
from review_quorum.ingest import read, sarif
from review_quorum.ingest.base import Batch, ReadOptions, Source
from review_quorum.ingest.categories import build_category_map
from review_quorum.ingest.titles import sentence
from review_quorum.scoring import compute_consensus

INGEST = FIXTURES / "ingest"
SHOP_ROOT = "/tmp/fixproj"  # where the tools ran (tests/fixtures/ingest/README.md)


def read_fixture(name: str, **options: object) -> Batch:
    path = INGEST / name
    return sarif.READER.read(Source(name, path.read_bytes(), ReadOptions(**options)))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "root", "bots", "findings", "skipped"),
    [
        ("sarif.bandit-shop.json", None, {"bandit"}, 10, 0),
        ("sarif.ruff-shop.json", SHOP_ROOT, {"ruff"}, 8, 0),
        ("sarif.ruff-preview-shop.json", SHOP_ROOT, {"ruff"}, 10, 0),
        ("sarif.semgrep-shop.json", None, {"semgrep"}, 4, 0),
        ("sarif.eslint-files.json", "/tmp/eslintproj", {"eslint"}, 6, 0),
        ("sarif.codeql-extensions.json", None, {"codeql"}, 5, 0),
        ("sarif.multi-run.json", None, {"semgrep", "eslint"}, 2, 1),
        ("sarif.suppressed.json", None, {"codeql"}, 7, 4),
        ("sarif.missing-locations.json", None, {"shop-audit"}, 6, 0),
        ("sarif.bad-records.json", None, {"broken-tool"}, 2, 15),
    ],
)
def test_fixture_counts(
    name: str, root: str | None, bots: set[str], findings: int, skipped: int
) -> None:
    batch = read_fixture(name, root=root)
    assert {f.bot for f in batch.findings} == bots
    assert (len(batch.findings), len(batch.skipped)) == (findings, skipped)


def test_detects_sarif_by_content_whatever_the_name() -> None:
    data = (INGEST / "sarif.semgrep-shop.json").read_bytes()
    assert sarif.READER.detect(Source("report.txt", data))
    assert not sarif.READER.detect(Source("x.sarif", b'[{"runs": []}]'))
    assert not sarif.READER.detect(Source("x.sarif", b'{"diagnostics": []}'))


def test_tool_generated_findings_keep_rule_title_file_and_lines() -> None:
    assert rows(read_fixture("sarif.semgrep-shop.json")) == [
        (
            "semgrep",
            "shop.security.weak-hash-md5",
            "medium",
            "security",
            "MD5 is a weak hash",
            "src/shop/orders.py",
            10,
            10,
        ),
        (
            "semgrep",
            "shop.security.shell-injection",
            "high",
            "security",
            "Shell command built from a variable",
            "src/shop/orders.py",
            23,
            23,
        ),
        (
            "semgrep",
            "shop.best-practice.swallowed-exception",
            "medium",
            "maintainability",
            "The exception is swallowed",
            "src/shop/orders.py",
            27,
            30,
        ),
        (
            "semgrep",
            "shop.correctness.useless-eqeq",
            "low",
            "logic_error",
            "Comparison of a value with itself is always true",
            "src/shop/report.py",
            16,
            16,
        ),
    ]


def test_codeql_rules_in_extensions_message_strings_links_rank_and_cvss() -> None:
    batch = read_fixture("sarif.codeql-extensions.json")
    assert rows(batch) == [
        (
            "codeql",
            "py/sql-injection:9a1f0e:1",
            "high",
            "security",
            "This SQL query depends on a user-provided value",
            "src/shop/orders.py",
            19,
            None,
        ),
        (
            "codeql",
            "py/sql-injection",
            "high",
            "security",
            "This SQL query depends on a user-provided value",
            "src/shop/search.py",
            7,
            9,
        ),
        (
            "codeql",
            "py/unused-import",
            "low",
            "maintainability",
            "Import of 'sqlite3' is not used",
            "src/shop/orders.py",
            6,
            None,
        ),
        (
            "codeql",
            "py/path-injection",
            "critical",
            "security",
            "This path depends on a user-provided value",
            "src/shop/files.py",
            12,
            None,
        ),
        (
            "codeql",
            "py/weak-crypto-key",
            "low",
            "security",
            "Creation of an RSA key uses 1024 bits, which is below 2048 and considered breakable",
            "src/shop/keys.py",
            4,
            None,
        ),
    ]
    # CodeQL's `precision` property is its confidence; the rank 35 of the unused import is
    # its priority, not a confidence: its rule states no precision, so it states nothing
    assert [f.confidence for f in batch.findings] == [0.9, 0.9, 1.0, 0.9, 0.7]


@pytest.mark.parametrize(
    ("title", "severity", "confidence"),
    [
        ("Critical by score", "critical", 1.0),
        ("Critical at the edge", "critical", 1.0),
        ("High at the edge", "high", 1.0),
        ("Medium just below high", "medium", 1.0),
        ("Medium at the edge", "medium", 1.0),
        ("Low by score", "low", 1.0),
        ("A zero score is informational", "info", 1.0),
        ("Not a number: the level decides", "high", 1.0),
        ("Out of range: the level decides", "low", 1.0),
        ("The rule's default level", "low", 1.0),
        ("No level anywhere: warning", "medium", 1.0),
        ("An explicit level none stays info", "info", 1.0),
        ("The result's own score", "high", 1.0),
        ("The result's own level", "high", 1.0),
        ("Ranked", "low", 1.0),  # a rank is a priority, not a confidence
        ("Precise", "low", 0.7),
    ],
)
def test_severity_fallback_order_and_cvss_bands(
    title: str, severity: str, confidence: float
) -> None:
    found = {f.title: f for f in read_fixture("sarif.security-severity.json").findings}
    assert (found[title].severity.label, found[title].confidence) == (severity, confidence)


def test_suppressed_fixed_passed_and_inapplicable_results_are_skipped_with_reasons() -> None:
    batch = read_fixture("sarif.suppressed.json")
    assert [(f.title, f.severity.label) for f in batch.findings] == [
        ("Kept: no suppressions", "high"),
        ("Kept: the suppression is under review", "high"),  # SARIF 2.1.0: not suppressed
        ("Kept: the only suppression was rejected", "high"),
        ("Kept: one suppression accepted, one rejected", "high"),
        ("Kept: new since the baseline", "high"),
        ("Kept as info: informational", "info"),
        ("Kept: an explicit fail", "high"),
    ]
    assert [(s.position, s.reason) for s in batch.skipped] == [
        ("/runs/0/results/1/suppressions", "suppressed (inSource)"),
        ("/runs/0/results/5/baselineState", "baselineState 'absent': no longer present"),
        ("/runs/0/results/7/kind", "kind 'pass': the rule was checked and passed; not a finding"),
        ("/runs/0/results/8/kind", "kind 'notApplicable': the rule does not apply; not a finding"),
    ]


def test_results_without_a_file_are_global_and_keep_what_they_have() -> None:
    batch = read_fixture("sarif.missing-locations.json")
    assert [
        (f.title, f.file, f.line, f.evidence.end_line, f.evidence.symbol) for f in batch.findings
    ] == [
        ("No license file in the repository", "", None, None, ""),
        ("Empty location list", "", None, None, ""),
        ("Only a logical location", "", None, None, "shop.orders.find_order"),
        ("Region by character offset", "src/shop/orders.py", None, None, ""),
        ("Artifact named by index", "src/shop/report.py", 8, 9, ""),
        ("Project-wide problem", "src/shop/report.py", None, None, ""),
    ]


def test_each_bad_record_is_skipped_with_its_pointer_and_the_good_ones_remain() -> None:
    batch = read_fixture("sarif.bad-records.json")
    assert [f.title for f in batch.findings] == ["Good record on line 1", "Good record on line 2"]
    region = "locations/0/physicalLocation/region"
    assert [(s.source, s.position, s.reason) for s in batch.skipped] == [
        ("sarif.bad-records.json", "/runs/0/results/1", "a result must be an object, not str"),
        ("sarif.bad-records.json", "/runs/0/results/2/ruleId", "ruleId must be a string, not int"),
        (
            "sarif.bad-records.json",
            "/runs/0/results/3",
            'unknown level "fatal" (expected error, warning, note or none)',
        ),
        ("sarif.bad-records.json", "/runs/0/results/4/kind", 'unknown kind "maybe"'),
        (
            "sarif.bad-records.json",
            f"/runs/0/results/5/{region}",
            "startLine must be a positive integer, not 0",
        ),
        (
            "sarif.bad-records.json",
            f"/runs/0/results/6/{region}",
            "endLine must be an integer >= startLine, not 3",
        ),
        ("sarif.bad-records.json", "/runs/0/results/7/locations", "locations must be an array"),
        ("sarif.bad-records.json", "/runs/0/results/8/message", "message must be an object"),
        (
            "sarif.bad-records.json",
            "/runs/0/results/9/message",
            "no message text and no rule description to title it",
        ),
        (
            "sarif.bad-records.json",
            "/runs/0/results/10/rank",
            "rank must be a number from 0 to 100, not 150",
        ),
        ("sarif.bad-records.json", "/runs/0/results/11/properties", "properties must be an object"),
        (
            "sarif.bad-records.json",
            "/runs/0/results/12/locations/0/physicalLocation/artifactLocation",
            "artifact index 4 names no artifact",
        ),
        (
            "sarif.bad-records.json",
            "/runs/0/results/13/suppressions",
            "suppressions must be an array",
        ),
        (
            "sarif.bad-records.json",
            "/runs/0/tool/driver/rules/1",
            "a rule needs a string id: ignored",
        ),
        (
            "sarif.bad-records.json",
            "/runs/0/tool/driver/rules/2",
            "a rule needs a string id: ignored",
        ),
    ]


def test_runs_are_bots_and_a_run_without_a_tool_name_is_skipped_unless_named() -> None:
    batch = read_fixture("sarif.multi-run.json")
    assert [(f.bot, f.file) for f in batch.findings] == [
        ("semgrep", "src/shop/orders.py"),
        ("eslint", "web/files.js"),
    ]
    assert [(s.position, s.reason) for s in batch.skipped] == [
        (
            "/runs/2/tool/driver/name",
            "run has no tool.driver.name, so its 1 result(s) have no bot; "
            "name one with --bot NAME=FILE",
        ),
    ]
    named = read_fixture("sarif.multi-run.json", bot="scanner")
    assert [f.bot for f in named.findings] == ["scanner", "scanner", "scanner"]
    assert named.skipped == []


@pytest.mark.parametrize(
    ("driver", "bot"),
    [
        ("Bandit", "bandit"),
        ("ruff", "ruff"),
        ("Semgrep OSS", "semgrep"),
        ("CodeQL", "codeql"),
        ("ESLint", "eslint"),
        ("nodejsscan", "njsscan"),
        ("  Sonar  Scanner ", "sonar-scanner"),
    ],
)
def test_bot_names_are_the_normalised_driver_names(driver: str, bot: str) -> None:
    document = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": driver}}, "results": [{"message": {"text": "x"}}]}],
    }
    batch = sarif.READER.read(Source("x.sarif", orjson.dumps(document)))
    assert [f.bot for f in batch.findings] == [bot]


def test_message_arguments_and_escaped_braces() -> None:
    rule = {
        "id": "R",
        "messageStrings": {"m": {"text": "Use {0} not {1}; {{literal}} and {5} stay."}},
    }
    result = {"ruleId": "R", "message": {"id": "m", "arguments": ["sha256", "md5"]}}
    document = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "t", "rules": [rule]}}, "results": [result]}],
    }
    batch = sarif.READER.read(Source("x.sarif", orjson.dumps(document)))
    assert [f.title for f in batch.findings] == ["Use sha256 not md5; {literal} and {5} stay"]


def test_a_placeholder_of_thousands_of_digits_stays_as_it_is() -> None:
    """No argument has such an index: it stays, as {5} does (int() refused it: exit 3)."""
    rule = {"id": "R", "messageStrings": {"m": {"text": "Use {0} not {" + "9" * 5000 + "}."}}}
    result = {"ruleId": "R", "message": {"id": "m", "arguments": ["sha256"]}}
    document = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "t", "rules": [rule]}}, "results": [result]}],
    }
    batch = sarif.READER.read(Source("x.sarif", orjson.dumps(document)))
    assert [f.title[:20] for f in batch.findings] == ["Use sha256 not {9999"]


def test_global_message_strings_and_hierarchical_rule_ids() -> None:
    driver = {
        "name": "t",
        "globalMessageStrings": {"g": {"text": "Global text."}},
        "rules": [{"id": "CA2101", "properties": {"tags": ["security"]}}],
    }
    result = {"ruleId": "CA2101/1", "message": {"id": "g"}}
    document = {"version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": [result]}]}
    (finding,) = sarif.READER.read(Source("x.sarif", orjson.dumps(document))).findings
    assert (finding.finding_id, finding.title, finding.category) == (
        "CA2101/1",
        "Global text",
        "security",
    )


def test_category_overrides_from_read_options() -> None:
    overrides = build_category_map(
        {"B608": "data_integrity", "B3*": "other", "CWE-78": "logic_error"}
    )
    batch = read_fixture("sarif.bandit-shop.json", categories=overrides)
    by_rule = {f.finding_id: f.category for f in batch.findings}
    assert by_rule == {
        "B403": "security",
        "B404": "logic_error",  # Bandit tags it CWE-78
        "B324": "other",
        "B301": "other",
        "B608": "data_integrity",
        "B602": "logic_error",
        "B110": "error_handling",
        "B311": "other",
        "B506": "security",
        "B307": "other",
    }


def test_bandit_and_ruff_findings_on_the_same_code_merge() -> None:
    findings = (
        read_fixture("sarif.bandit-shop.json").findings
        + read_fixture("sarif.ruff-shop.json", root=SHOP_ROOT).findings
    )
    merged = compute_consensus(findings, bots_ran=2)
    both = sorted(
        (c.file, c.line, c.category) for c in merged if c.detected_by == ("bandit", "ruff")
    )
    assert both == [
        ("src/shop/orders.py", 10, "security"),
        ("src/shop/orders.py", 14, "security"),
        ("src/shop/orders.py", 18, "security"),
        ("src/shop/orders.py", 23, "security"),
        ("src/shop/orders.py", 29, "error_handling"),
        ("src/shop/report.py", 8, "security"),
        ("src/shop/report.py", 12, "security"),
        ("src/shop/report.py", 18, "security"),
    ]


def test_ruff_preview_rule_names_map_like_their_codes() -> None:
    coded = read_fixture("sarif.ruff-shop.json", root=SHOP_ROOT).findings
    named = read_fixture("sarif.ruff-preview-shop.json", root=SHOP_ROOT).findings
    coded_lines = {(f.file, f.line): f.category for f in coded}
    assert {
        key: f.category for f in named if (key := (f.file, f.line)) in coded_lines
    } == coded_lines


def test_absolute_uris_stay_absolute_without_a_root() -> None:
    files = {f.file for f in read_fixture("sarif.ruff-shop.json").findings}
    assert files == {"/tmp/fixproj/src/shop/orders.py", "/tmp/fixproj/src/shop/report.py"}


@pytest.mark.parametrize(
    ("data", "position", "message"),
    [
        (b"[1, 2]", "/", "expected a SARIF log object"),
        (
            b'{"version": "2.0.0", "runs": []}',
            "/version",
            'unsupported SARIF version "2.0.0"; expected 2.1.0',
        ),
        (b'{"version": "2.1.0", "runs": {}}', "/runs", "expected an array of runs"),
        (
            b'{"version": "2.1.0", "runs": [',
            "line 1 column 31",
            "invalid JSON: unexpected end of data",
        ),
        (b"[" * 2000 + b"]" * 2000, "line 1 column 1026", "invalid JSON: depth limit exceeded"),
        (
            b'{"version": "2.1.0", "runs": ["\xff"]}',
            "line 1 column 32",
            "not UTF-8 (byte 0xff: invalid start byte); quorum reads UTF-8 (with or without a "
            "byte-order mark) and UTF-16 with one: convert a Latin-1 or Windows-1252 file to "
            "UTF-8 first",
        ),
    ],
)
def test_broken_files_raise_input_error_naming_file_and_position(
    data: bytes, position: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        sarif.READER.read(Source("broken.sarif", data))
    assert (caught.value.source, caught.value.position, caught.value.message) == (
        "broken.sarif",
        position,
        message,
    )


def test_a_byte_order_mark_is_accepted() -> None:
    data = b"\xef\xbb\xbf" + (INGEST / "sarif.semgrep-shop.json").read_bytes()
    assert len(read(Source("bom.sarif", data)).findings) == 4


def test_broken_run_structures_are_skipped_not_fatal() -> None:
    document = {
        "version": "2.1.0",
        "runs": [
            "not a run",
            {"tool": {"driver": {"name": "t"}}, "results": {"not": "a list"}},
            {
                "tool": {"driver": {"name": "t", "rules": "nope"}, "extensions": 3},
                "results": [{"message": {"text": "kept"}}],
            },
        ],
    }
    batch = sarif.READER.read(Source("x.sarif", orjson.dumps(document)))
    assert [f.title for f in batch.findings] == ["kept"]
    assert [(s.position, s.reason) for s in batch.skipped] == [
        ("/runs/0", "a run must be an object"),
        ("/runs/1/results", "results must be an array"),
        ("/runs/2/tool/driver/rules", "rules must be an array: rule metadata ignored"),
        ("/runs/2/tool/extensions", "extensions must be an array: ignored"),
    ]


# --- the real analyser output in ../shared ---------------------------------------------

OWASP = ("fixtures", "sarif")
SECURIBENCH = ("corpora", "securibench-micro-js", "sarif")


@pytest.mark.parametrize(
    ("parts", "bot", "count", "severities"),
    [
        (
            (*OWASP, "owasp-benchmark-python.bandit.sarif"),
            "bandit",
            568,
            {"high": 86, "medium": 238, "low": 244},
        ),
        ((*OWASP, "owasp-benchmark-python.ruff.sarif"), "ruff", 380, {"high": 380}),
        ((*OWASP, "owasp-benchmark-python.ruff-preview.sarif"), "ruff", 504, {"high": 504}),
        (
            (*OWASP, "owasp-benchmark-python.semgrep.sarif"),
            "semgrep",
            3605,
            # 2,667 useless-inner-function results at level error are maintainability:
            # a linter's error level caps at medium there
            {"high": 281, "medium": 3324},
        ),
        ((*SECURIBENCH, "eslint.sarif"), "eslint", 99, {"medium": 99}),
        ((*SECURIBENCH, "njsscan.sarif"), "njsscan", 87, {"high": 81, "medium": 6}),
        ((*SECURIBENCH, "semgrep.sarif"), "semgrep", 109, {"high": 4, "medium": 97, "low": 8}),
    ],
)
def test_real_sarif_files(
    parts: tuple[str, ...], bot: str, count: int, severities: dict[str, int]
) -> None:
    path = shared_path(*parts)
    batch = read(Source(str(path), path.read_bytes()))
    assert batch.skipped == []  # none of these files suppresses a result
    assert {f.bot for f in batch.findings} == {bot}
    assert len(batch.findings) == count
    assert dict(collections.Counter(f.severity.label for f in batch.findings)) == severities
    assert all(f.file and not f.file.startswith("/") for f in batch.findings)


def test_real_semgrep_security_rules_are_security_and_the_rest_by_segment() -> None:
    path = shared_path(*OWASP, "owasp-benchmark-python.semgrep.sarif")
    batch = read(Source(str(path), path.read_bytes()))
    categories = collections.Counter(f.category for f in batch.findings)
    assert categories == {"maintainability": 2951, "security": 654}
    assert all(
        (".security." in f.finding_id) == (f.category == "security")
        for f in batch.findings
        if "pyramid" not in f.finding_id
    )


def test_real_bandit_and_ruff_findings_on_one_owasp_case_merge() -> None:
    findings = []
    for tool in ("bandit", "ruff"):
        path = shared_path(*OWASP, f"owasp-benchmark-python.{tool}.sarif")
        findings += read(Source(str(path), path.read_bytes())).findings
    merged = compute_consensus(findings, bots_ran=2)
    case = [c for c in merged if c.file == "testcode/BenchmarkTest00013.py" and c.line == 55]
    assert [(c.detected_by, c.category, [m.finding_id for m in c.members]) for c in case] == [
        (("bandit", "ruff"), "security", ["B314", "S314"])
    ]
    assert sum(c.detected_by == ("bandit", "ruff") for c in merged) == 369


@pytest.mark.parametrize(
    ("text", "title"),
    [
        (
            "Possible SQL injection vector through string-based query construction.",
            "Possible SQL injection vector through string-based query construction",
        ),
        ("Detected X. This bypasses Y. Instead, use Z.", "Detected X"),
        ("Is this input trusted? Check it.", "Is this input trusted?"),
        ("Use `xml.etree` carefully", "Use `xml.etree` carefully"),
        ("Avoid eval, e.g. in templates. Really.", "Avoid eval, e.g. in templates"),
        ("Use i.e. this. Not that.", "Use i.e. this"),
        ("\n\n  First line. More\nsecond line", "First line"),
        ("This depends on a [user-provided value](1).", "This depends on a user-provided value"),
        (r"A literal \[bracket\] stays.", "A literal [bracket] stays"),
        ("x" * 300, "x" * 199 + "\u2026"),
        ("   ", ""),
    ],
)
def test_titles_are_the_first_sentence(text: str, title: str) -> None:
    assert sentence(text) == title


def test_findings_keep_the_rule_id_and_the_whole_message_as_body() -> None:
    findings = read_fixture("sarif.bandit-shop.json").findings
    assert [f.rule_id for f in findings[:3]] == ["B403", "B404", "B324"]
    assert all(f.body.startswith(f.title.rstrip(".")) for f in findings)
