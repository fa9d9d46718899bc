"""How a tool's rule ids, tags and CWE ids are mapped onto the shared category vocabulary.

Findings from different tools only merge when their categories are equal, so every reader
maps its rule ids onto the same eleven coarse names (`CATEGORIES`). The decision order is
written top to bottom in `Categorizer._decide`: the user's overrides, known rule-id
families (Bandit and Ruff's ports of it, Semgrep `.security.` rules, ESLint security
plugins, security-only tools), a `security` tag, the CWE table, other tags, weaker
rule-id hints (Semgrep path segments, Ruff/flake8 code prefixes), and finally `other`.
This module owns those decisions, tool names, the CWE ids found in text and the user's
overrides (`CategoryMap`, from the configuration by `build_category_map`); the vocabulary
and the tables it reads are data in `category_tables`, documented for users in
``docs/categories.md``.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping

import msgspec

from review_quorum.errors import ConfigError, shown
from review_quorum.ingest.category_tables import (
    BANDIT_EXCEPTIONS,
    CATEGORIES,
    CATEGORY_SET,
    CWE_CATEGORIES,
    ESLINT_CORE,
    ESLINT_PLUGINS,
    LEAK,
    LINTER_PREFIXES,
    LINTER_RULES,
    LINTER_TOOLS,
    OTHER,
    QUERY_ID_TOOLS,
    RELEASE_CWES,
    RUFF_BANDIT_NAMES,
    SECURITY,
    SECURITY_TOOLS,
    SEGMENT_CATEGORIES,
    TAG_CATEGORIES,
    TOOL_ALIASES,
)
from review_quorum.model import MAX_CWE


def tool_name(name: str) -> str:
    """The bot name of a tool: lower case, with known aliases folded together."""
    lowered = " ".join(name.lower().split())
    return TOOL_ALIASES.get(lowered, lowered.replace(" ", "-"))


_CODE = re.compile(r"([A-Z]+)(\d+)")
_CWE = re.compile(r"\bcwe[-_ ]?0*(\d+)", re.IGNORECASE)


def cwe_ids(texts: Iterable[object]) -> tuple[int, ...]:
    """The CWE numbers named in tags or properties (``CWE-79: ...``, ``external/cwe/cwe-079``)."""
    found: dict[int, None] = {}
    for text in texts:
        if isinstance(text, str) and ("cwe" in text or "CWE" in text):
            found.update((_cwe_number(number), None) for number in _CWE.findall(text))
    return tuple(found)


def _cwe_number(digits: str) -> int:
    """`digits` as a number; more digits than `MAX_CWE` has are one above it, which a
    finding refuses as it does 0, without converting thousands of digits."""
    return int(digits) if len(digits) <= len(str(MAX_CWE)) else MAX_CWE + 1


class CategoryMap(msgspec.Struct, frozen=True):
    """User overrides: exact rule ids, rule-id globs (in the order given), and CWE ids."""

    rules: Mapping[str, str] = msgspec.field(default_factory=dict)
    globs: tuple[tuple[str, str], ...] = ()
    cwes: Mapping[int, str] = msgspec.field(default_factory=dict)

    def for_rule(self, rule_id: str, cwes: tuple[int, ...]) -> str | None:
        category = self.rules.get(rule_id)
        if category is not None:
            return category
        for pattern, category in self.globs:
            if fnmatch.fnmatchcase(rule_id, pattern):
                return category
        for cwe in cwes:
            category = self.cwes.get(cwe)
            if category is not None:
                return category
        return None


@functools.cache
def _cwe_key() -> re.Pattern[str]:
    """A ``CWE-n`` key (compiled for the first configured category map)."""
    return re.compile(r"cwe-0*(\d+)", re.IGNORECASE)


def build_category_map(mapping: Mapping[str, object]) -> CategoryMap:
    """A `CategoryMap` from configuration (rule id, rule-id glob or ``CWE-n`` -> category).

    Raises `ConfigError` naming the key when a key is empty or a category is unknown.
    """
    rules: dict[str, str] = {}
    globs: list[tuple[str, str]] = []
    cwes: dict[int, str] = {}
    for key, value in mapping.items():
        if not isinstance(key, str) or not key.strip():
            raise ConfigError(f"categories: key {key!r} must be a rule id, a glob or CWE-<n>")
        if not isinstance(value, str) or value not in CATEGORY_SET:
            raise ConfigError(
                f"categories: key {key!r}: unknown category {value!r} "
                f"(expected one of {', '.join(CATEGORIES)})"
            )
        cwe = _cwe_key().fullmatch(key.strip())
        if cwe:
            number = _cwe_number(cwe.group(1))
            if number > MAX_CWE:
                raise ConfigError(f"categories: key {shown(key)}: no CWE id is above {MAX_CWE}")
            cwes[number] = value
        elif any(char in key for char in "*?["):
            globs.append((key, value))
        else:
            rules[key] = value
    return CategoryMap(rules, tuple(globs), cwes)


class Categorizer:
    """Decides categories for one input, remembering each decision (rules repeat a lot)."""

    __slots__ = ("_cache", "_overrides")

    def __init__(self, overrides: CategoryMap | None = None) -> None:
        self._overrides = overrides
        self._cache: dict[tuple[str, str, tuple[str, ...], tuple[int, ...]], str] = {}

    def category(
        self, tool: str, rule_id: str, tags: tuple[str, ...] = (), cwes: tuple[int, ...] = ()
    ) -> str:
        """The category of `rule_id` from `tool`, given its tags and CWE ids."""
        key = (tool, rule_id, tags, cwes)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._decide(tool, rule_id, tags, cwes)
        return found

    def _decide(self, tool: str, rule_id: str, tags: tuple[str, ...], cwes: tuple[int, ...]) -> str:
        if self._overrides is not None:
            override = self._overrides.for_rule(rule_id, cwes)
            if override is not None:
                return override
        lowered = tuple(tag.strip().lower() for tag in tags)
        return (
            family_category(tool, rule_id)
            or next((LEAK for cwe in cwes if cwe in RELEASE_CWES), None)
            or (SECURITY if SECURITY in lowered else None)
            or next((CWE_CATEGORIES[cwe] for cwe in cwes if cwe in CWE_CATEGORIES), None)
            or next((TAG_CATEGORIES[tag] for tag in lowered if tag in TAG_CATEGORIES), None)
            or hint_category(tool, rule_id)
            or OTHER
        )


def family_category(tool: str, rule_id: str) -> str | None:
    """The category of a rule from a family whose ids say exactly what it checks."""
    code = _CODE.fullmatch(rule_id)
    if code is not None:
        prefix, number = code.group(1), int(code.group(2))
        if (prefix == "B" and 100 <= number < 800) or (prefix == "S" and len(code.group(2)) == 3):
            return BANDIT_EXCEPTIONS.get(number, SECURITY)
    ruff_code = RUFF_BANDIT_NAMES.get(rule_id)
    if ruff_code is not None:
        return BANDIT_EXCEPTIONS.get(ruff_code, SECURITY)
    if ".security." in rule_id or rule_id.startswith("security."):
        return SECURITY
    plugin, slash, _ = rule_id.partition("/")
    if slash and plugin in ESLINT_PLUGINS and tool not in QUERY_ID_TOOLS:
        return ESLINT_PLUGINS[plugin]
    if tool == "eslint" and rule_id in ESLINT_CORE:
        return ESLINT_CORE[rule_id]
    if tool in SECURITY_TOOLS:
        return SECURITY
    return None


def hint_category(tool: str, rule_id: str) -> str | None:
    """A weaker guess from the shape of a rule id: dotted path segments or linter prefixes."""
    if "." in rule_id:
        for segment in rule_id.split(".")[:-1]:
            category = SEGMENT_CATEGORIES.get(segment)
            if category is not None:
                return category
    if tool in LINTER_TOOLS:
        if rule_id in LINTER_RULES:
            return LINTER_RULES[rule_id]
        code = _CODE.fullmatch(rule_id)
        if code is not None:
            return LINTER_PREFIXES.get(code.group(1))
    return None


def is_category(value: str) -> bool:
    return value in CATEGORY_SET


__all__ = [
    "CATEGORIES",
    "Categorizer",
    "CategoryMap",
    "build_category_map",
    "cwe_ids",
    "family_category",
    "hint_category",
    "is_category",
    "tool_name",
]
