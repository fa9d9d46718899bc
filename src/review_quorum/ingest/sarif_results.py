"""SARIF results as parsed JSON: the generic path that turns each result dict into a finding.

`RunReader` holds what one run shares (bot, `sarif_rules.RuleTable`, `paths.PathResolver`,
title cache) and reads results that are plain dicts and lists, checking every value's type
on the way: it is the authority on every `Skipped` record a result can produce. The typed
fast path (`sarif_typed`) builds its runs on a `RunReader` and hands it every result it does
not take as ordinary, so both paths share one set of rules for unusual input.
"""

from __future__ import annotations

import re

from review_quorum.errors import FindingError, InputError, Skipped, shown
from review_quorum.ingest.base import Batch, Source, pointer
from review_quorum.ingest.categories import Categorizer, tool_name
from review_quorum.ingest.category_tables import HOUSEKEEPING
from review_quorum.ingest.paths import BaseIdError, PathResolver, resolve_base_ids
from review_quorum.ingest.sarif_rules import (
    Rule,
    RuleTable,
    SkipRecord,
    check_live,
    confidence_of,
    ranked,
    severity_of,
)
from review_quorum.ingest.titles import first_sentence, sentence
from review_quorum.model import NO_PRIORITY, Evidence, NormalizedFinding, Severity

# Semgrep writes this in place of a fingerprint when not logged in.
PLACEHOLDER_FINGERPRINTS = frozenset(["requires login"])
GLOBAL = Evidence()

_PLACEHOLDER = re.compile(r"\{(\d{1,9})\}")  # no message has a billion arguments
_ARTIFACT = ("locations", 0, "physicalLocation", "artifactLocation")
_REGION = ("locations", 0, "physicalLocation", "region")


class RunReader:
    """Reads the results of one run, with the run's rules, artifacts and base URIs.

    `run` is the run as parsed JSON; its ``results`` are read only by `read_into`, so the
    typed path may pass a run without them and read its own.
    """

    __slots__ = (
        "_artifacts",
        "_index",
        "_run",
        "_source",
        "bot",
        "path_cache",
        "paths",
        "rule_cache",
        "rules",
        "titles",
    )

    def __init__(
        self, source: Source, run: dict[str, object], index: int, categorizer: Categorizer
    ) -> None:
        self._source = source
        self._index = index
        driver_name = _driver_name(run)
        tool = tool_name(driver_name) if driver_name else ""
        self.bot = source.options.bot or tool
        self.rules = RuleTable(run.get("tool"), tool, categorizer)
        artifacts = run.get("artifacts")
        self._artifacts = artifacts if isinstance(artifacts, list) else []
        self.paths = PathResolver(source.options.root, _base_ids(source, run, index), _anchors(run))
        self._run = run
        self.rule_cache = self.rules.cache
        self.path_cache = self.paths.cache
        self.titles: dict[str, str] = {}

    def read_into(self, batch: Batch) -> None:
        results = self._run.get("results")
        if not self.begin(results, batch) or not isinstance(results, list):
            return
        for number, result in enumerate(results):
            self.record(result, number, batch)
        self.finish(batch)

    def begin(self, results: object, batch: Batch) -> bool:
        """Whether the run's `results` can be read; a Skipped for the run when they cannot."""
        if results is None:
            return False
        name = self._source.name
        if not isinstance(results, list):
            where = pointer("runs", self._index, "results")
            batch.skipped.append(Skipped(name, where, "results must be an array"))
            return False
        if not self.bot:
            where = pointer("runs", self._index, "tool", "driver", "name")
            reason = f"run has no tool.driver.name, so its {len(results)} result(s) have no bot"
            batch.skipped.append(Skipped(name, where, reason + "; name one with --bot NAME=FILE"))
            return False
        return True

    def record(self, result: object, number: int, batch: Batch) -> None:
        """Read result `number` alone: a finding, or a Skipped saying where and why."""
        name = self._source.name
        try:
            batch.findings.append(self.finding(result))
        except SkipRecord as skip:
            where = pointer("runs", self._index, "results", number, *skip.path)
            batch.skipped.append(Skipped(name, where, skip.reason, skip.not_a_finding))
        except FindingError as err:
            where = pointer("runs", self._index, "results", number)
            batch.skipped.append(Skipped(name, where, str(err)))

    def finish(self, batch: Batch) -> None:
        """Report the run's malformed rule metadata, once its results are read."""
        name = self._source.name
        batch.skipped.extend(
            Skipped(name, pointer("runs", self._index, *path), reason)
            for path, reason in self.rules.problems
        )

    def finding(self, result: object) -> NormalizedFinding:
        # The hot loop: common shapes take the inline path, the rest the checked helpers.
        if type(result) is not dict:
            raise SkipRecord(f"a result must be an object, not {type(result).__name__}")
        get = result.get
        rule_id = get("ruleId")
        index = get("ruleIndex")
        rule = None
        if type(rule_id) is str and "rule" not in result:
            if index is None:
                rule = self.rule_cache.get(rule_id)
            elif type(index) is int:
                rule = self.rule_cache.get((rule_id, index, None))
        if rule is None:
            rule = self.rules.lookup(result)
        if get("suppressions") or "baselineState" in result:
            check_live(result)
        properties = get("properties")
        if properties is not None and type(properties) is not dict:
            raise SkipRecord("properties must be an object", "properties")
        level = get("level")
        kind = get("kind")
        if level is None and kind is None and not properties:
            severity = rule.severity
        else:
            severity = severity_of(level, kind, rule, properties)
        rank = get("rank")
        priority = NO_PRIORITY
        if rank is not None:
            severity, priority = ranked(rank, severity, rule)
        confidence = confidence_of(properties, rule) if properties else rule.confidence
        category = self.rules.category(rule, properties) if properties else rule.category
        if category in HOUSEKEEPING and severity > Severity.MEDIUM:
            severity = Severity.MEDIUM
        message = get("message")
        text = message.get("text") if type(message) is dict else None
        title = self.titles.get(text) if type(text) is str else None
        if title is None:
            title = self.title(message, text, rule)
        locations = get("locations")
        evidence = self._evidence(locations) if locations else GLOBAL
        fingerprints = get("fingerprints") or get("partialFingerprints")
        finding_id = first_fingerprint(fingerprints, rule.id) if fingerprints else rule.id
        body = text if type(text) is str else ""
        return NormalizedFinding(
            self.bot,
            finding_id,
            severity,
            category,
            title,
            evidence,
            confidence,
            rule.id,
            body,
            cwes=rule.cwes,
            use_only=rule.use_only,
            priority=priority,
        )

    def title(self, message: object, text: object, rule: Rule) -> str:
        """The title of a result whose message text is not cached (or not given)."""
        if type(text) is str:
            title = sentence(text)
            if title:  # an empty sentence is not cached: the rule's title stands in for it
                self.titles[text] = title
        else:
            title = message_title(message, rule)
        if not title:
            title = rule.title
            if not title:
                raise SkipRecord("no message text and no rule description to title it", "message")
        return title

    def _evidence(self, locations: object) -> Evidence:
        if type(locations) is not list:
            raise SkipRecord("locations must be an array", "locations")
        location = locations[0]
        if type(location) is not dict:
            raise SkipRecord("a location must be an object", "locations", 0)
        physical = location.get("physicalLocation")
        logical = location.get("logicalLocations")
        symbol = _symbol(logical) if logical else ""
        if physical is None:
            return Evidence(symbol=symbol) if symbol else GLOBAL
        if type(physical) is not dict:
            raise SkipRecord("physicalLocation must be an object", "locations", 0)
        artifact = physical.get("artifactLocation")
        file = None
        if type(artifact) is dict:
            uri = artifact.get("uri")
            base = artifact.get("uriBaseId")
            if type(uri) is str and (base is None or type(base) is str):
                known = self.path_cache.get(base)
                file = known.get(uri) if known is not None else None
        if file is None:
            file = self.file(artifact)
        region = physical.get("region")
        if type(region) is dict:
            start = region.get("startLine")
            end = region.get("endLine")
            if (
                type(start) is int
                and start > 0
                and (end is None or type(end) is int and end >= start)
            ):
                snippet = region.get("snippet")
                text = snippet.get("text") if type(snippet) is dict else None
                return Evidence(file, start, text if type(text) is str else "", symbol, end)
        line, end_line, snippet_text = _region(region)
        return Evidence(file, line, snippet_text, symbol, end_line)

    def file(self, artifact: object) -> str:
        """The repository path of an ``artifactLocation`` (its ``uri``, or an artifact's)."""
        if artifact is None:
            return ""
        if type(artifact) is not dict:
            raise SkipRecord("artifactLocation must be an object", *_ARTIFACT)
        uri = artifact.get("uri")
        base = artifact.get("uriBaseId")
        if uri is None:
            uri, base = self._artifact_uri(artifact.get("index"))
        if type(uri) is not str or (base is not None and type(base) is not str):
            raise SkipRecord(
                "artifactLocation needs a string uri (or an artifact index)", *_ARTIFACT
            )
        return self.paths.uri(uri, base)

    def _artifact_uri(self, index: object) -> tuple[object, object]:
        if type(index) is not int or not 0 <= index < len(self._artifacts):
            raise SkipRecord(f"artifact index {shown(index)} names no artifact", *_ARTIFACT)
        artifact = self._artifacts[index]
        location = artifact.get("location") if type(artifact) is dict else None
        if type(location) is not dict:
            raise SkipRecord(f"artifact {index} has no location", *_ARTIFACT)
        return location.get("uri"), location.get("uriBaseId")


def _driver_name(run: dict[str, object]) -> str:
    tool = run.get("tool")
    driver = tool.get("driver") if isinstance(tool, dict) else None
    name = driver.get("name") if isinstance(driver, dict) else None
    return name.strip() if isinstance(name, str) else ""


def _base_ids(source: Source, run: dict[str, object], index: int) -> dict[str, str]:
    try:
        return resolve_base_ids(run.get("originalUriBaseIds"))
    except BaseIdError as err:
        where = ["runs", index, "originalUriBaseIds"] + ([] if err.name is None else [err.name])
        raise InputError(source.name, pointer(*where), str(err)) from None


def _anchors(run: dict[str, object]) -> list[str]:
    """The absolute working directories the run's invocations declare."""
    invocations = run.get("invocations")
    anchors: list[str] = []
    for invocation in invocations if isinstance(invocations, list) else ():
        directory = invocation.get("workingDirectory") if isinstance(invocation, dict) else None
        uri = directory.get("uri") if isinstance(directory, dict) else None
        if isinstance(uri, str) and uri[:5].lower() == "file:":
            anchors.append(PathResolver().uri(uri))
    return anchors


def message_title(message: object, rule: Rule) -> str:
    """The title of a message without literal text: its ``id`` in the rule's strings."""
    if message is None:
        return ""
    if type(message) is not dict:
        raise SkipRecord("message must be an object", "message")
    text = message.get("text")
    if type(text) is not str:
        text = rule.message_string(message.get("id"))
    if text is None:
        return ""
    arguments = message.get("arguments")
    if arguments and type(arguments) is list:
        text = _substitute(text, arguments)
    return first_sentence(text)


def _substitute(text: str, arguments: list[object]) -> str:
    """SARIF message placeholders: {n} is argument n; {{ and }} are literal braces."""

    def argument(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return str(arguments[number]) if number < len(arguments) else match.group(0)

    parts = text.split("{{")
    return "{".join(_PLACEHOLDER.sub(argument, part).replace("}}", "}") for part in parts)


def _region(region: object) -> tuple[int | None, int | None, str]:
    if region is None:
        return None, None, ""
    if type(region) is not dict:
        raise SkipRecord("region must be an object", *_REGION)
    start = region.get("startLine")
    end = region.get("endLine")
    if start is None:
        return None, None, _snippet(region)
    if type(start) is not int or start < 1:
        raise SkipRecord(f"startLine must be a positive integer, not {shown(start)}", *_REGION)
    if end is not None and (type(end) is not int or end < start):
        raise SkipRecord(f"endLine must be an integer >= startLine, not {shown(end)}", *_REGION)
    return start, end, _snippet(region)


def _snippet(region: dict[str, object]) -> str:
    snippet = region.get("snippet")
    text = snippet.get("text") if type(snippet) is dict else None
    return text if type(text) is str else ""


def _symbol(logical: object) -> str:
    if not logical or type(logical) is not list or type(logical[0]) is not dict:
        return ""
    name = logical[0].get("fullyQualifiedName") or logical[0].get("name")
    return name if type(name) is str else ""


def first_fingerprint(fingerprints: object, rule_id: str) -> str:
    """The finding id: the rule id, plus ``:value`` of the first real fingerprint by key."""
    if type(fingerprints) is not dict:
        return rule_id
    if len(fingerprints) == 1:
        (value,) = fingerprints.values()
        if type(value) is str and value not in PLACEHOLDER_FINGERPRINTS:
            return f"{rule_id}:{value}"
        return rule_id
    for key in sorted(fingerprints):
        value = fingerprints[key]
        if type(value) is str and value not in PLACEHOLDER_FINGERPRINTS:
            return f"{rule_id}:{value}"
    return rule_id
