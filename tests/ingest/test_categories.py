"""The shared category vocabulary: rule families, CWE ids, tags, precedence and overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from review_quorum.errors import ConfigError
from review_quorum.ingest.categories import (
    CATEGORIES,
    Categorizer,
    build_category_map,
    cwe_ids,
    tool_name,
)
from review_quorum.ingest.category_tables import (
    CWE_CATEGORIES,
    ESLINT_CORE,
    ESLINT_PLUGINS,
    LINTER_PREFIXES,
    RUFF_BANDIT_NAMES,
    SEGMENT_CATEGORIES,
    TAG_CATEGORIES,
)


def test_the_vocabulary_is_the_agreed_eleven_names() -> None:
    assert CATEGORIES == (
        "security",
        "logic_error",
        "resource_leak",
        "concurrency",
        "error_handling",
        "data_integrity",
        "performance",
        "maintainability",
        "documentation",
        "testing",
        "other",
    )
    assert set(CWE_CATEGORIES.values()) <= set(CATEGORIES)


@pytest.mark.parametrize(
    ("tool", "rule_id", "category"),
    [
        ("bandit", "B324", "security"),
        ("ruff", "S324", "security"),
        ("ruff", "hashlib-insecure-hash-function", "security"),
        ("bandit", "B110", "error_handling"),
        ("ruff", "S112", "error_handling"),
        ("ruff", "try-except-pass", "error_handling"),
        ("flake8", "B006", "logic_error"),  # flake8-bugbear, not Bandit
        ("ruff", "B904", "logic_error"),
        ("ruff", "E501", "maintainability"),
        ("ruff", "D103", "documentation"),
        ("ruff", "PERF401", "performance"),
        ("ruff", "ASYNC210", "concurrency"),
        ("ruff", "BLE001", "error_handling"),
        ("ruff", "PT009", "testing"),
        ("ruff", "XYZ123", "other"),
        ("semgrep", "python.lang.security.audit.eval-detected", "security"),
        ("semgrep", "python.lang.correctness.useless-eqeq", "logic_error"),
        ("semgrep", "python.django.performance.use-count-method", "performance"),
        ("semgrep", "python.lang.best-practice.open-never-closed", "maintainability"),
        ("semgrep", "python.lang.maintainability.useless-inner-function", "maintainability"),
        ("semgrep", "python.flask.caching.query-string", "performance"),
        ("eslint", "security/detect-object-injection", "security"),
        ("eslint", "no-eval", "security"),
        ("eslint", "no-unused-vars", "maintainability"),
        ("eslint", "jest/no-disabled-tests", "testing"),
        ("eslint", "jsdoc/require-param", "documentation"),
        ("njsscan", "express_xss", "security"),
        ("gosec", "G401", "security"),
        (
            "checkstyle",
            "com.puppycrawl.tools.checkstyle.checks.javadoc.JavadocMethodCheck",
            "documentation",
        ),
        (
            "checkstyle",
            "com.puppycrawl.tools.checkstyle.checks.coding.MagicNumberCheck",
            "maintainability",
        ),
        ("codeql", "security/some-query", "other"),  # query ids are not ESLint plugins
        ("somebot", "R1", "other"),
    ],
)
def test_rule_id_families(tool: str, rule_id: str, category: str) -> None:
    assert Categorizer().category(tool, rule_id) == category


@pytest.mark.parametrize(
    ("tags", "cwes", "category"),
    [
        (("security", "external/cwe/cwe-089"), (89,), "security"),
        (("maintainability", "useless-code"), (), "maintainability"),
        (("reliability", "correctness"), (), "logic_error"),
        (("Security",), (704,), "security"),  # a security tag beats a misleading CWE
        ((), (704,), "logic_error"),
        ((), (400,), "resource_leak"),
        ((), (772,), "resource_leak"),
        ((), (362,), "concurrency"),
        ((), (755,), "error_handling"),
        ((), (197,), "data_integrity"),
        ((), (1050,), "performance"),
        ((), (561,), "maintainability"),
        ((), (1053,), "documentation"),
        ((), (99999,), "other"),
        ((), (99999, 79), "security"),  # the first known CWE decides
        (("Bug Risk",), (), "logic_error"),
        (("Performance",), (), "performance"),
        (("Compatibility",), (), "other"),
    ],
)
def test_tags_and_cwe_ids(tags: tuple[str, ...], cwes: tuple[int, ...], category: str) -> None:
    assert Categorizer().category("codeql", "py/some-query", tags, cwes) == category


@pytest.mark.parametrize(
    ("cwe", "category"),
    [
        (89, "security"),
        (78, "security"),
        (79, "security"),
        (22, "security"),
        (327, "security"),
        (328, "security"),
        (502, "security"),
        (798, "security"),
        (611, "security"),
        (918, "security"),
        (400, "resource_leak"),
        (404, "resource_leak"),
        (772, "resource_leak"),
        (775, "resource_leak"),
        (362, "concurrency"),
        (366, "concurrency"),
        (667, "concurrency"),
        (703, "error_handling"),
        (754, "error_handling"),
        (755, "error_handling"),
        (390, "error_handling"),
        (391, "error_handling"),
    ],
)
def test_cwe_table_agreed_entries(cwe: int, category: str) -> None:
    assert CWE_CATEGORIES[cwe] == category


def test_family_beats_cwe_because_tool_cwe_tags_disagree() -> None:
    # Bandit tags exec as CWE-78 and Semgrep its SQL rule CWE-704; the rule id decides.
    categorizer = Categorizer()
    assert (
        categorizer.category("bandit", "B102", ("security", "external/cwe/cwe-78"), (78,))
        == "security"
    )
    assert categorizer.category("semgrep", "python.x.security.sql", (), (704,)) == "security"


@pytest.mark.parametrize(
    ("texts", "ids"),
    [
        (["external/cwe/cwe-089", "security"], (89,)),
        (["CWE-400: Uncontrolled Resource Consumption", "LOW CONFIDENCE"], (400,)),
        (["cwe_22", "CWE 79", "CWE-79"], (22, 79)),
        ([None, 7, "no weakness here"], ()),
        (["cwe-2147483647", "cwe-" + "9" * 5000], (2**31 - 1, 2**31)),  # one past the last
    ],
)
def test_cwe_ids_are_found_in_tags_and_properties(
    texts: list[object], ids: tuple[int, ...]
) -> None:
    assert cwe_ids(texts) == ids


def test_ruff_bandit_names_cover_every_flake8_bandit_rule_of_ruff_0_17_6() -> None:
    assert len(RUFF_BANDIT_NAMES) == 73
    assert RUFF_BANDIT_NAMES["hashlib-insecure-hash-function"] == 324
    assert RUFF_BANDIT_NAMES["suspicious-xml-etree-import"] == 405


def test_overrides_win_exact_then_globs_in_order_then_cwe() -> None:
    overrides = build_category_map(
        {
            "B324": "logic_error",
            "B3*": "other",
            "B*": "testing",
            "cwe-0079": "documentation",
        }
    )
    categorizer = Categorizer(overrides)
    assert categorizer.category("bandit", "B324") == "logic_error"
    assert categorizer.category("bandit", "B311") == "other"
    assert categorizer.category("bandit", "B608") == "testing"
    assert categorizer.category("eslint", "security/x", (), (79,)) == "documentation"
    assert categorizer.category("eslint", "security/x", (), (89,)) == "security"


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        (
            {"B101": "style"},
            "categories: key 'B101': unknown category 'style' (expected one of security, ",
        ),
        ({"CWE-89": 3}, "categories: key 'CWE-89': unknown category 3 "),
        ({"  ": "security"}, "categories: key '  ' must be a rule id, a glob or CWE-<n>"),
        ({"CWE-2147483648": "security"}, 'categories: key "CWE-2147483648": no CWE id is '),
        ({"CWE-" + "9" * 5000: "security"}, 'categories: key "CWE-99999999999999999999999999'),
    ],
)
def test_bad_overrides_raise_config_error_naming_the_key(
    mapping: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        build_category_map(mapping)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("name", "bot"),
    [
        ("Semgrep OSS", "semgrep"),
        ("semgrep pro", "semgrep"),
        ("nodejsscan", "njsscan"),
        ("Bandit", "bandit"),
        ("My  Tool", "my-tool"),
    ],
)
def test_tool_names(name: str, bot: str) -> None:
    assert tool_name(name) == bot


DOCS = Path(__file__).resolve().parents[2] / "docs" / "categories.md"


@pytest.mark.parametrize(
    ("table", "sort"),
    [
        (CWE_CATEGORIES, True),
        (TAG_CATEGORIES, False),
        (SEGMENT_CATEGORIES, False),
        (LINTER_PREFIXES, False),
        (ESLINT_PLUGINS, False),
        (ESLINT_CORE, False),
    ],
)
def test_the_documented_tables_are_the_ones_the_code_uses(
    table: dict[object, str], sort: bool
) -> None:
    text = DOCS.read_text(encoding="utf-8")
    for category in CATEGORIES:
        keys = [key for key, value in table.items() if value == category]
        if not keys:
            continue
        if sort:
            cells = ", ".join(str(k) for k in sorted(cast("list[Any]", keys)))
        else:
            cells = ", ".join(f"`{k}`" for k in keys)
        assert f"| `{category}` | {cells} |" in text
    assert "`other` | anything no rule below recognises" in text


@pytest.mark.parametrize(
    ("tool", "rule", "tags", "cwes", "category"),
    [
        ("semgrep", "open-without-context-manager", ("security",), (772,), "resource_leak"),
        ("semgrep", "sql-built-with-fstring", ("security",), (89,), "security"),
        ("ruff", "F401", (), (), "maintainability"),
        ("ruff", "F821", (), (), "logic_error"),
    ],
)
def test_release_cwes_and_single_linter_rules(
    tool: str, rule: str, tags: tuple[str, ...], cwes: tuple[int, ...], category: str
) -> None:
    from review_quorum.ingest.categories import Categorizer

    assert Categorizer().category(tool, rule, tags, cwes) == category


def test_linter_housekeeping_findings_are_at_most_medium() -> None:
    from review_quorum.ingest import read
    from review_quorum.ingest.base import Source

    sarif = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "Ruff", "rules": [{"id": "F401"}, {"id": "S608"}]}},
                "results": [
                    {"ruleId": rule, "level": "error", "message": {"text": "m"}}
                    for rule in ("F401", "S608")
                ],
            }
        ],
    }
    import json

    batch = read(Source("ruff.sarif", json.dumps(sarif).encode()))
    assert [(f.category, f.severity.label) for f in batch.findings] == [
        ("maintainability", "medium"),
        ("security", "high"),
    ]
