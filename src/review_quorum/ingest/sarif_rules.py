"""SARIF rule metadata, digested once per rule, and the per-result rules that use it.

Rules: level, CVSS band, confidence, title and category, digested once each. Results:
the SARIF fallback order for levels, kinds that are not findings, suppressions, `rank`.

Only what states how sure a tool is becomes a finding's confidence: Bandit's
``issue_confidence``, a ``confidence`` or ``precision`` property, Semgrep's confidence tags.
SARIF's ``rank`` is a result's priority (3.27.28), not its precision: its range is still
checked, it becomes the finding's ``priority`` (0 to 1), which orders findings the score and
severity leave tied, and where a tool documents it as its risk level (flawfinder: level / 5)
it also sets the severity. It never changes the confidence.

A SARIF result names its rule by ``ruleId``, ``ruleIndex`` or a ``rule`` reference that may
point into a tool extension (CodeQL keeps its queries in ``tool.extensions``). `RuleTable`
indexes a run's rules, digests each into a `Rule` when a result first names it, and
resolves each result's reference with dict lookups, caching by reference. Malformed rule
metadata is listed in `RuleTable.problems` so the reader can report it as Skipped records.
"""

from __future__ import annotations

import math
import re

from review_quorum.errors import shown
from review_quorum.ingest.categories import Categorizer, cwe_ids
from review_quorum.ingest.titles import first_sentence
from review_quorum.model import NO_PRIORITY, Severity

LEVEL_SEVERITY = {
    "error": Severity.HIGH,
    "warning": Severity.MEDIUM,
    "note": Severity.LOW,
    "none": Severity.INFO,
}
PRECISION_CONFIDENCE = {"very-high": 1.0, "high": 0.9, "medium": 0.7, "low": 0.5}
# Tools whose SARIF `rank` is their documented risk level on a 0-1 scale instead of SARIF's
# 0-100: flawfinder writes its risk level (0, very little risk, to 5, great risk) / 5.
RISK_RANK_TOOLS = frozenset(["flawfinder"])
RISK_LEVELS = 5
RISK_SEVERITY = (
    Severity.INFO,
    Severity.LOW,
    Severity.LOW,
    Severity.MEDIUM,
    Severity.HIGH,
    Severity.CRITICAL,
)
# Where tools state how sure they are of a result or a rule, most specific first: Bandit's
# issue confidence, a generic confidence, SARIF's precision.
_CONFIDENCE_KEYS = ("issue_confidence", "confidence", "precision")
_CONFIDENCE_TAG = re.compile(r"^(very-high|high|medium|low) confidence$", re.IGNORECASE)

# Kinds that report something other than a problem (SARIF 3.27.9).
NOT_FINDINGS = {
    "pass": "kind 'pass': the rule was checked and passed; not a finding",
    "notApplicable": "kind 'notApplicable': the rule does not apply; not a finding",
}
INFORMATIONAL_KINDS = frozenset(["open", "informational", "review"])


class SkipRecord(Exception):
    """One result cannot become a finding: why, and the path below the result that says so."""

    def __init__(self, reason: str, *path: object, not_a_finding: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path
        self.not_a_finding = not_a_finding


def cvss_band(value: object) -> Severity | None:
    """The severity of a CVSS score (0-10, number or numeric string); None if not one."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        score = float(value)
    except (ValueError, OverflowError):  # not a number, or an integer beyond a float
        return None
    if not math.isfinite(score) or not 0 <= score <= 10:
        return None
    if score >= 9:
        return Severity.CRITICAL
    if score >= 7:
        return Severity.HIGH
    if score >= 4:
        return Severity.MEDIUM
    return Severity.LOW if score > 0 else Severity.INFO


def _precision(properties: object) -> float | None:
    """The confidence a property bag states: a level name, or a number from 0 to 1."""
    if type(properties) is not dict:
        return None
    for key in _CONFIDENCE_KEYS:
        value = properties.get(key)
        if type(value) is str:
            stated = PRECISION_CONFIDENCE.get(value.lower())
            if stated is not None:
                return stated
        elif type(value) is float and 0.0 <= value <= 1.0:
            return value
    return None


def _tagged_confidence(tags: tuple[str, ...]) -> float | None:
    """Semgrep states its rules' `metadata.confidence` as a tag such as ``HIGH CONFIDENCE``."""
    for tag in tags:
        match = _CONFIDENCE_TAG.match(tag)
        if match:
            return PRECISION_CONFIDENCE[match.group(1).lower()]
    return None


def _relevant_only(descriptor: dict[str, object]) -> bool:
    """Whether a rule relates itself to every weakness it names only as relevant to it (or
    incomparable), never as equal to it or a subset of it: it flags what bears on a
    weakness, such as the use of a function known to be risky (flawfinder's database of
    functions), not the weakness itself. Only stated kinds count."""
    relationships = descriptor.get("relationships")
    if type(relationships) is not list or not relationships:
        return False
    for relationship in relationships:
        kinds = relationship.get("kinds") if type(relationship) is dict else None
        if type(kinds) is not list or not kinds or not _RELEVANT_ONLY.issuperset(kinds):
            return False
    return True


_RELEVANT_ONLY = frozenset(["relevant", "incomparable"])


def _related_cwes(descriptor: dict[str, object]) -> list[object]:
    """The CWE ids a rule states as relationships to the CWE taxonomy (flawfinder does)."""
    relationships = descriptor.get("relationships")
    if type(relationships) is not list:
        return []
    found: list[object] = []
    for relationship in relationships:
        target = relationship.get("target") if type(relationship) is dict else None
        if type(target) is dict and type(target.get("id")) is str:
            found.append(target["id"])
    return found


class Rule:
    """What a run says about one rule, in the shapes findings need."""

    __slots__ = (
        "category",
        "confidence",
        "cwes",
        "id",
        "level",
        "messages",
        "rank_is_risk",
        "security",
        "severity",
        "tags",
        "title",
        "use_only",
    )

    def __init__(self, rule_id: str, descriptor: dict[str, object], messages: dict[str, object]):
        properties = descriptor.get("properties")
        properties = properties if type(properties) is dict else {}
        tags = properties.get("tags")
        self.id = rule_id
        self.tags = tuple(tag for tag in tags if type(tag) is str) if type(tags) is list else ()
        self.cwes = cwe_ids([*self.tags, properties.get("cwe"), *_related_cwes(descriptor)])
        self.use_only = _relevant_only(descriptor)
        self.level = _default_level(descriptor)
        self.security = cvss_band(properties.get("security-severity"))
        # what a result that states no level, kind or properties of its own gets
        default = LEVEL_SEVERITY[self.level]
        informational = default is Severity.INFO
        self.severity = default if self.security is None or informational else self.security
        # A tag naming the confidence is Semgrep's own metadata, its precision a constant.
        self.confidence = _tagged_confidence(self.tags) or _precision(properties) or 1.0
        self.rank_is_risk = False
        self.title = _describe(descriptor) or rule_id
        own = descriptor.get("messageStrings")
        self.messages = {**messages, **own} if type(own) is dict else messages
        self.category = "other"

    def message_string(self, message_id: object) -> str | None:
        """The text of message string `message_id` (the rule's own, else the tool's global)."""
        if type(message_id) is not str:
            return None
        entry = self.messages.get(message_id)
        text = entry.get("text") if type(entry) is dict else None
        return text if type(text) is str else None

    def renamed(self, rule_id: str) -> Rule:
        """This rule as named by a hierarchical id such as ``CA2101/1``."""
        copy = Rule.__new__(Rule)
        for slot in Rule.__slots__:
            setattr(copy, slot, getattr(self, slot))
        copy.id = rule_id
        return copy


def _default_level(descriptor: dict[str, object]) -> str:
    configuration = descriptor.get("defaultConfiguration")
    level = configuration.get("level") if type(configuration) is dict else None
    return level if type(level) is str and level in LEVEL_SEVERITY else "warning"


def _describe(descriptor: dict[str, object]) -> str:
    for key in ("shortDescription", "fullDescription"):
        description = descriptor.get(key)
        text = description.get("text") if type(description) is dict else None
        if type(text) is str and text.strip():
            return first_sentence(text)
    name = descriptor.get("name")
    return name if type(name) is str else ""


class RuleTable:
    """Every rule of one run (driver and extensions), and the lookup results use.

    Rules are digested when a result first names them: a run may describe hundreds of
    rules of which a few fire.
    """

    __slots__ = (
        "_by_id",
        "_categorizer",
        "_descriptors",
        "_digested",
        "_messages",
        "_tool",
        "cache",
        "problems",
    )

    def __init__(self, tool: object, tool_name: str, categorizer: Categorizer) -> None:
        self._tool = tool_name
        self._categorizer = categorizer
        self.problems: list[tuple[tuple[object, ...], str]] = []
        self._descriptors: dict[int | None, list[dict[str, object] | None]] = {}
        self._digested: dict[tuple[int | None, int], Rule] = {}
        self._by_id: dict[str, tuple[int | None, int]] = {}
        self.cache: dict[object, Rule] = {}
        self._messages: dict[str, object] = {}
        if not isinstance(tool, dict):
            return
        driver = tool.get("driver")
        self._messages = _global_messages(driver)
        self._index(None, driver, ("tool", "driver"))
        extensions = tool.get("extensions")
        if isinstance(extensions, list):
            for number, extension in enumerate(extensions):
                self._index(number, extension, ("tool", "extensions", number))
        elif extensions is not None:
            self.problems.append((("tool", "extensions"), "extensions must be an array: ignored"))

    def _index(self, component: int | None, holder: object, path: tuple[object, ...]) -> None:
        rules = holder.get("rules") if isinstance(holder, dict) else None
        if rules is None:
            return
        if not isinstance(rules, list):
            reason = "rules must be an array: rule metadata ignored"
            self.problems.append(((*path, "rules"), reason))
            return
        descriptors: list[dict[str, object] | None] = []
        for number, descriptor in enumerate(rules):
            rule_id = descriptor.get("id") if isinstance(descriptor, dict) else None
            if not isinstance(rule_id, str):
                self.problems.append(
                    ((*path, "rules", number), "a rule needs a string id: ignored")
                )
                descriptors.append(None)
                continue
            descriptors.append(descriptor)
            self._by_id.setdefault(rule_id, (component, number))
        self._descriptors[component] = descriptors

    def _rule_at(self, component: int | None, number: int) -> Rule | None:
        rule = self._digested.get((component, number))
        if rule is None:
            descriptors = self._descriptors.get(component, [])
            descriptor = descriptors[number] if 0 <= number < len(descriptors) else None
            if descriptor is None:
                return None
            rule = self._scaled(Rule(str(descriptor["id"]), descriptor, self._messages))
            rule.category = self._categorizer.category(self._tool, rule.id, rule.tags, rule.cwes)
            self._digested[(component, number)] = rule
        return rule

    def _scaled(self, rule: Rule) -> Rule:
        if self._tool in RISK_RANK_TOOLS:
            rule.rank_is_risk = True
        return rule

    def lookup(self, result: dict[str, object]) -> Rule:
        """The rule a result refers to; a bare rule when the run does not describe it."""
        rule_id = result.get("ruleId")
        index = result.get("ruleIndex")
        reference = result.get("rule")
        if rule_id is not None and type(rule_id) is not str:
            raise SkipRecord(f"ruleId must be a string, not {type(rule_id).__name__}", "ruleId")
        if index is not None and type(index) is not int:
            raise SkipRecord("ruleIndex must be an integer", "ruleIndex")
        component = None
        if reference is not None:
            rule_id, index, component = _reference(reference, rule_id, index)
        return self.find(rule_id, index, component)

    def find(self, rule_id: str | None, index: int | None, component: int | None) -> Rule:
        """The rule of a reference whose parts are already known to have the right types."""
        # a plain ruleId is its own key: the readers' fast paths look it up without a tuple
        key = (
            rule_id
            if index is None and component is None and rule_id
            else (rule_id, index, component)
        )
        rule = self.cache.get(key)
        if rule is None:
            rule = self.cache[key] = self._resolve(rule_id, index, component)
        return rule

    def _resolve(self, rule_id: str | None, index: int | None, component: int | None) -> Rule:
        rule = self._rule_at(component, index) if index is not None else None
        if rule is None and rule_id is not None:
            place = self._by_id.get(rule_id) or self._by_id.get(rule_id.split("/", 1)[0])
            rule = self._rule_at(*place) if place is not None else None
        if rule is None:
            rule = self._scaled(Rule(rule_id or "", {}, {}))
            rule.category = self._categorizer.category(self._tool, rule.id)
        elif rule_id and rule.id != rule_id:  # an empty ruleId names nothing: the rule's own
            rule = rule.renamed(rule_id)
        return rule

    def category(self, rule: Rule, properties: dict[str, object]) -> str:
        """The category of a result whose own properties may add tags or a CWE."""
        tags = properties.get("tags")
        extra = tuple(tag for tag in tags if type(tag) is str) if type(tags) is list else ()
        cwe = properties.get("cwe")
        if not extra and cwe is None:
            return rule.category
        cwes = tuple(dict.fromkeys(rule.cwes + cwe_ids([*extra, cwe])))
        return self._categorizer.category(self._tool, rule.id, rule.tags + extra, cwes)


def _reference(
    reference: object, rule_id: str | None, index: int | None
) -> tuple[str | None, int | None, int | None]:
    """The (id, index, extension index) of a SARIF reportingDescriptorReference."""
    if type(reference) is not dict:
        raise SkipRecord("rule must be an object", "rule")
    ref_id = reference.get("id", rule_id)
    ref_index = reference.get("index", index)
    component = reference.get("toolComponent")
    extension = component.get("index") if type(component) is dict else None
    if ref_id is not None and type(ref_id) is not str:
        raise SkipRecord("rule.id must be a string", "rule", "id")
    for value, name in ((ref_index, "index"), (extension, "toolComponent")):
        if value is not None and type(value) is not int:
            raise SkipRecord(f"rule.{name} must be an integer", "rule", name)
    return ref_id, ref_index, extension


def _global_messages(driver: object) -> dict[str, object]:
    messages = driver.get("globalMessageStrings") if isinstance(driver, dict) else None
    return messages if isinstance(messages, dict) else {}


def security_severity(properties: object, rule: Rule) -> Severity | None:
    """The CVSS band of a result's own security-severity, else of its rule's."""
    if type(properties) is dict and "security-severity" in properties:
        own = cvss_band(properties["security-severity"])
        if own is not None:
            return own
    return rule.security


def confidence_of(properties: object, rule: Rule) -> float:
    """The confidence the result states, else the rule's, else 1.0."""
    return _precision(properties) or rule.confidence


def ranked(rank: object, severity: Severity, rule: Rule) -> tuple[Severity, float]:
    """The severity and priority once a result's ``rank`` is read: checked against its
    tool's scale, the priority is the rank on a 0-1 scale, and the severity is the risk
    level it states where the tool documents it as one (`RISK_RANK_TOOLS`). A rank of -1
    is SARIF's "none given"."""
    if rank is None or rank == -1:
        return severity, NO_PRIORITY
    scale = 1.0 if rule.rank_is_risk else 100.0
    if type(rank) not in (int, float) or not 0 <= rank <= scale:  # type: ignore[operator]
        raise SkipRecord(f"rank must be a number from 0 to {scale:g}, not {shown(rank)}", "rank")
    priority = rank / scale  # type: ignore[operator]
    if not rule.rank_is_risk:
        return severity, priority
    return RISK_SEVERITY[round(rank * RISK_LEVELS)], priority  # type: ignore[operator]


def severity_of(level: object, kind: object, rule: Rule, properties: object) -> Severity:
    """The SARIF fallback order for the level, then the CVSS band for problems."""
    if kind is not None and kind != "fail":
        if kind in NOT_FINDINGS:
            raise SkipRecord(NOT_FINDINGS[kind], "kind", not_a_finding=True)
        if kind not in INFORMATIONAL_KINDS:
            raise SkipRecord(f"unknown kind {shown(kind)}", "kind")
        if level is None:
            level = "none"
    if level is None:
        level = rule.level
    severity = LEVEL_SEVERITY.get(level) if type(level) is str else None
    if severity is None:
        raise SkipRecord(f"unknown level {shown(level)} (expected error, warning, note or none)")
    if severity is Severity.INFO:
        return severity
    band = security_severity(properties, rule)
    return severity if band is None else band


def _status(suppression: object) -> object:
    status = suppression.get("status") if type(suppression) is dict else None
    return "accepted" if status is None else status


def check_live(result: dict[str, object]) -> None:
    """Raise `SkipRecord` for results that are suppressed or gone since the baseline."""
    suppressions = result.get("suppressions")
    if suppressions:
        if type(suppressions) is not list:
            raise SkipRecord("suppressions must be an array", "suppressions")
        # SARIF 2.1.0 (and the SARIF SDK's IsSuppressed): suppressed when a suppression is
        # accepted (an absent status means accepted) and none is rejected or under review
        statuses = [_status(suppression) for suppression in suppressions]
        accepted = [
            s for s, status in zip(suppressions, statuses, strict=True) if status == "accepted"
        ]
        if accepted and "rejected" not in statuses and "underReview" not in statuses:
            kinds = sorted({str(s.get("kind", "?")) if type(s) is dict else "?" for s in accepted})
            raise SkipRecord(f"suppressed ({', '.join(kinds)})", "suppressions", not_a_finding=True)
    if result.get("baselineState") == "absent":
        reason = "baselineState 'absent': no longer present"
        raise SkipRecord(reason, "baselineState", not_a_finding=True)
