"""The finding model (SPEC section 2): severities, evidence, normalized and consensus findings.

All values are frozen msgspec Structs validated at construction (`__post_init__`), so a
finding that exists is a valid finding; change one with `msgspec.structs.replace`, which
validates again. Structs rather than dataclasses because a million findings is a normal
input: they are built several times faster, and, holding no reference cycles, they are
left out of the cyclic garbage collector (``gc=False``). `NormalizedFinding.create()` is
the forgiving front door that accepts strings from parsed input; the constructor itself
only accepts proper types, and a severity's exact label (``"high"``), which is how a reader
decoding JSON straight into findings gives it. Out-of-range confidence is kept as given:
the consensus engine clamps it (seed 001).

Beyond the seed, a finding carries what matching and reliability need: the analyser's rule
id, the body text beside the title, how certain its category is (1.0 when the tool states
it, less when it was inferred from words), the bot's suggested code, the GitHub comment it
came from (`CommentSource`) and any further locations it names.
"""

from __future__ import annotations

import enum
import math
import operator
import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

import msgspec
from msgspec.structs import force_setattr

from review_quorum.comment_kinds import COMMENT_KINDS, SourceKind
from review_quorum.errors import FindingError, shown


class Severity(enum.IntEnum):
    """Ordered severity scale shared by every input format: info < low < ... < critical."""

    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: object) -> Severity:
        """Return the severity named by `value` (case-insensitive), or raise `ValueError`."""
        if isinstance(value, Severity):
            return value
        if isinstance(value, str):
            member = _SEVERITY_BY_LABEL.get(value.strip().lower())
            if member is not None:
                return member
        raise ValueError(f"unknown severity {shown(value)} (expected one of {SEVERITY_LABELS})")


_SEVERITY_BY_LABEL = {member.label: member for member in Severity}
SEVERITY_LABELS = ", ".join(_SEVERITY_BY_LABEL)


class ConsensusLevel(enum.Enum):
    """How strongly the bots agree on a finding; `rank` orders the levels."""

    CONFIRMED = "confirmed"
    NEEDS_VERIFICATION = "needs-verification"
    UNVERIFIED = "unverified"

    @property
    def rank(self) -> int:
        return _LEVEL_RANK[self]

    @classmethod
    def parse(cls, value: str) -> ConsensusLevel:
        try:
            return cls(value.strip().lower().replace("_", "-"))
        except ValueError:
            allowed = ", ".join(level.value for level in cls)
            raise ValueError(
                f"unknown consensus level {shown(value)} (expected {allowed})"
            ) from None


_LEVEL_RANK = {
    ConsensusLevel.CONFIRMED: 2,
    ConsensusLevel.NEEDS_VERIFICATION: 1,
    ConsensusLevel.UNVERIFIED: 0,
}


def level_for(value: float, floors: tuple[float, float]) -> ConsensusLevel:
    """The consensus level of `value` (a score, a probability) given the lowest values of
    confirmed and of needs-verification, both inclusive."""
    confirmed, needs_verification = floors
    if value >= confirmed:
        return ConsensusLevel.CONFIRMED
    if value >= needs_verification:
        return ConsensusLevel.NEEDS_VERIFICATION
    return ConsensusLevel.UNVERIFIED


def is_stated(finding: NormalizedFinding) -> bool:
    """Whether the finding's category is the tool's own (certainty 1.0), not one guessed
    from its words: only a stated category keeps two findings apart."""
    return finding.category_certainty >= 1.0


def check_line_window(line_window: object) -> int:
    """`line_window` when it is a whole number of lines, 0 or more; else ValueError."""
    if isinstance(line_window, bool) or not isinstance(line_window, int) or line_window < 0:
        raise ValueError(f"line_window must be a non-negative integer, not {line_window!r}")
    return line_window


MAX_LINE = 2**31 - 1
"""The highest line number a finding may name: what GitHub, SARIF viewers and every
output format (64-bit JSON integers included) can carry."""

MAX_CWE = 2**31 - 1
"""The highest CWE id a finding may name (the catalogue's run in the thousands): what every
output format and a saved plan carry."""

MAX_BOTS = 10_000
"""The most bots a run may count (`--bots`, the `bots` key, `bots_ran`): far more review
bots and analysers than one pull request runs, and every agreement share, percentage and
output integer stays in range below it."""


def check_bot_count(count: int) -> int:
    """`count` as a number of bots that ran, or ValueError unless it is 1 to `MAX_BOTS`."""
    if count < 1:
        raise ValueError("expected at least 1 bot")
    if count > MAX_BOTS:
        raise ValueError(f"expected at most {MAX_BOTS:,} bots")
    return count


_UNNAMEABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _check_file(file: str) -> None:
    """A path with a control, bidi or other invisible character names no file a pull
    request can hold, and displays as another one (``app/\u202efdp.exe`` as
    ``app/exe.pdf``): the finding is refused, so every reader counts it as skipped."""
    if not file.isprintable() and any(unicodedata.category(char) in _UNNAMEABLE for char in file):
        raise FindingError(
            f"file path {file!r} holds a control or invisible character (a bidi override, "
            "NUL, newline, zero-width space): it cannot name a file in the pull request"
        )


def _check_line(line: object, file: str) -> None:
    if line is None or (type(line) is int and 1 <= line <= MAX_LINE):
        return  # the common case, before any message is formatted (readers build millions)
    what = f"evidence for {file or '<global>'!r}"
    if isinstance(line, bool) or not isinstance(line, int):
        raise FindingError(f"{what}: line must be a positive integer or null, not {shown(line)}")
    if line < 1:
        raise FindingError(f"{what}: line must be >= 1, not {shown(line)}")
    raise FindingError(f"{what}: line must be at most {MAX_LINE}, not {shown(line)}")


def is_finite(number: float) -> bool:
    """Whether `number` is finite; an integer too large for a float is not."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


class Evidence(msgspec.Struct, frozen=True, gc=False):
    """Where a finding points: an empty `file` means a global (file-less) finding.

    `end_line` keeps the end of a reported span (SARIF regions, CodeRabbit line ranges);
    the consensus engine matches on `line`, the start.
    """

    file: str = ""
    line: int | None = None
    snippet: str = ""
    symbol: str = ""
    end_line: int | None = None

    def __post_init__(self) -> None:
        line = self.line
        if (
            self.end_line is None
            and (line is None or (type(line) is int and 0 < line <= MAX_LINE))
            and self.file.isprintable()
        ):
            return  # the common case, decided before anything else (readers build millions)
        _check_file(self.file)
        _check_line(self.line, self.file)
        _check_line(self.end_line, self.file)
        if self.end_line is not None and (self.line is None or self.end_line < self.line):
            raise FindingError(
                f"evidence for {self.file or '<global>'!r}: end_line {self.end_line} "
                f"without a start line at or before it (line {self.line})"
            )


class CommentSource(msgspec.Struct, frozen=True, gc=False):
    """The GitHub comment a finding was read from: enough to link, hide or resolve it later.

    `kind` says which REST collection `rest_id` belongs to (pull request review comments,
    issue comments, or reviews); `node_id` is the GraphQL id; `author` the login.
    """

    kind: SourceKind
    rest_id: int
    node_id: str = ""
    html_url: str = ""
    author: str = ""

    def __post_init__(self) -> None:
        if self.kind not in COMMENT_KINDS:
            raise FindingError(f"comment kind {shown(self.kind)} is not one of {COMMENT_KINDS}")
        if isinstance(self.rest_id, bool) or not isinstance(self.rest_id, int):
            raise FindingError(f"comment id must be an integer, not {shown(self.rest_id)}")
        if not all(isinstance(text, str) for text in (self.node_id, self.html_url, self.author)):
            raise FindingError(f"comment {self.rest_id}: node id, URL and author must be strings")


class _FindingName:
    """A finding's name for error messages, formatted on demand."""

    __slots__ = ("finding",)

    def __init__(self, finding: NormalizedFinding) -> None:
        self.finding = finding

    def __format__(self, spec: str) -> str:
        return f"finding {self.finding.finding_id!r} from {self.finding.bot!r}"


NO_PRIORITY = -1.0  # a finding whose tool states no priority (SARIF's rank -1)

if TYPE_CHECKING:
    _Level = Severity
else:
    # A reader may decode JSON straight into findings (msgspec checks the types in C): the
    # severity is then its exact label, which `__post_init__` turns into its `Severity`.
    _Level = Literal[tuple(_SEVERITY_BY_LABEL)]


class NormalizedFinding(msgspec.Struct, frozen=True, gc=False):
    """One finding from one bot, in the shared vocabulary.

    `finding_id` is the bot's own id, kept for audit and never part of the dedup key.
    `confidence` is the bot's self-reported confidence, nominally in [0, 1].
    `category_certainty` is 1.0 when the tool states the category (a rule's tags, a CWE, a
    label) and below 1.0, by how sure the guess is, when it was inferred from words.
    `cwes` are the CWE ids the tool's rule states, if any (finer than the category).
    `use_only` is set when the tool's rule states only that a function is used, not that it
    is misused: the tool relates the rule to its weaknesses only as relevant to them (SARIF
    relationship kinds, as function-database scanners such as flawfinder state them). Rules
    stating only CWE-676-style weaknesses (use of a dangerous function) are read as such
    from `cwes` by the scoring. Such findings corroborate the call, not its misuse.
    `priority` is the priority the tool gives the finding, from 0 to 1 (SARIF `rank` / 100),
    or -1 when it states none: never a confidence, it only orders findings that the score
    and severity leave tied (`--model reliability`).
    """

    bot: str
    finding_id: str
    severity: _Level
    category: str
    title: str
    evidence: Evidence = Evidence()
    confidence: float = 1.0
    rule_id: str = ""
    body: str = ""
    category_certainty: float = 1.0
    suggestion: str = ""
    source: CommentSource | None = None
    related: tuple[Evidence, ...] = ()
    cwes: tuple[int, ...] = ()
    use_only: bool = False
    priority: float = NO_PRIORITY

    def __post_init__(self) -> None:
        severity = self.severity
        if type(severity) is str:  # type: ignore[comparison-overlap]  # a decoded label
            severity = _SEVERITY_BY_LABEL.get(severity, severity)
            force_setattr(self, "severity", severity)
        # Readers build millions of findings: these identity checks decide the common case
        # in a fraction of the full checks' time, before any message is formatted.
        confidence, certainty, source = self.confidence, self.category_certainty, self.source
        priority = self.priority
        if (
            type(self.bot) is str
            and self.bot
            and type(severity) is Severity
            and type(self.category) is str
            and type(self.title) is str
            and type(self.evidence) is Evidence
            and type(confidence) is float
            and confidence - confidence == 0.0  # finite: inf - inf and nan - nan are nan
            and type(self.rule_id) is str
            and type(self.body) is str
            and type(self.suggestion) is str
            and type(certainty) is float
            and 0.0 <= certainty <= 1.0
            and (source is None or type(source) is CommentSource)
            and not self.related
            and not self.cwes
            and self.use_only is False
            and type(priority) is float
            and (priority == NO_PRIORITY or 0.0 <= priority <= 1.0)
        ):
            return
        self._check()

    def _check(self) -> None:
        name = _FindingName(self)  # formatted only when a check fails
        if not isinstance(self.bot, str) or not self.bot:
            raise FindingError(f"{name}: bot must be a non-empty string")
        if not isinstance(self.severity, Severity):
            raise FindingError(f"{name}: unknown severity {shown(self.severity)}")
        if not isinstance(self.category, str) or not isinstance(self.title, str):
            raise FindingError(f"{name}: category and title must be strings")
        if not isinstance(self.evidence, Evidence):
            raise FindingError(f"{name}: evidence must be an Evidence")
        confidence = self.confidence
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise FindingError(f"{name}: confidence must be a number, not {shown(confidence)}")
        if not is_finite(confidence):
            raise FindingError(f"{name}: confidence must be finite, not {shown(confidence)}")
        self._check_extras(name)
        if self.source is not None and not isinstance(self.source, CommentSource):
            raise FindingError(f"{name}: source must be a CommentSource")
        if self.related and not all(isinstance(place, Evidence) for place in self.related):
            raise FindingError(f"{name}: related locations must be Evidence values")
        if self.cwes and not all(type(cwe) is int and cwe > 0 for cwe in self.cwes):
            raise FindingError(f"{name}: CWE ids must be positive integers")
        if self.cwes and max(self.cwes) > MAX_CWE:
            raise FindingError(f"{name}: CWE ids must be at most {MAX_CWE}")
        if type(self.use_only) is not bool:
            raise FindingError(f"{name}: use_only must be true or false")
        priority = self.priority
        if (
            isinstance(priority, bool)
            or not isinstance(priority, int | float)
            or not (priority == NO_PRIORITY or 0.0 <= priority <= 1.0)
        ):
            raise FindingError(
                f"{name}: priority must be a number in [0, 1] or -1 (none), not {shown(priority)}"
            )

    def _check_extras(self, name: _FindingName) -> None:
        if not all(isinstance(text, str) for text in (self.rule_id, self.body, self.suggestion)):
            raise FindingError(f"{name}: rule id, body and suggestion must be strings")
        certainty = self.category_certainty
        if (
            isinstance(certainty, bool)
            or not isinstance(certainty, int | float)
            or not 0.0 <= certainty <= 1.0
        ):
            raise FindingError(
                f"{name}: category certainty must be a number in [0, 1], not {shown(certainty)}"
            )

    @classmethod
    def create(
        cls,
        *,
        bot: str,
        finding_id: str,
        severity: Severity | str,
        category: str,
        title: str,
        file: str = "",
        line: int | None = None,
        snippet: str = "",
        symbol: str = "",
        end_line: int | None = None,
        confidence: float = 1.0,
        rule_id: str = "",
        body: str = "",
        category_certainty: float = 1.0,
        suggestion: str = "",
        source: CommentSource | None = None,
        related: tuple[Evidence, ...] = (),
        use_only: bool = False,
        cwes: tuple[int, ...] = (),
        priority: float = NO_PRIORITY,
    ) -> NormalizedFinding:
        """Build a finding from loosely typed parts, raising `FindingError` naming the record."""
        try:
            parsed = Severity.parse(severity)
        except ValueError as err:
            raise FindingError(f"finding {finding_id!r} from {bot!r}: {err}") from err
        try:
            evidence = Evidence(file, line, snippet, symbol, end_line)
        except FindingError as err:
            raise FindingError(f"finding {finding_id!r} from {bot!r}: {err}") from err
        return cls(
            bot=bot,
            finding_id=finding_id,
            severity=parsed,
            category=category,
            title=title,
            evidence=evidence,
            confidence=confidence,
            rule_id=rule_id,
            body=body,
            category_certainty=category_certainty,
            suggestion=suggestion,
            source=source,
            related=related,
            use_only=use_only,
            cwes=cwes,
            priority=priority,
        )

    @property
    def file(self) -> str:
        return self.evidence.file

    @property
    def line(self) -> int | None:
        return self.evidence.line


class Contribution(msgspec.Struct, frozen=True, gc=False):
    """What one member adds to a reliability-model score, in log-odds (natural log).

    `source` is the bot, or `bot/rule` for an analyser rule; `family` the witness family
    it counts in; `reliability` the estimated probability that a finding of this source is
    real, and `origin` where that figure came from. Only the most reliable member of each
    family counts (`counted`); its `weight` is `logit(reliability) - logit(prior)`.
    """

    source: str
    family: str
    reliability: float
    origin: str
    counted: bool
    weight: float


class ConsensusFinding(msgspec.Struct, frozen=True, gc=False):
    """One issue after clustering: who detected it, how much they agree, and its members.

    `model` names the scoring model; the reliability model also reports each member's
    `contributions` (in member order), so that every score can be explained.
    """

    file: str
    line: int | None
    category: str
    title: str
    severity: Severity
    detected_by: tuple[str, ...]
    bots_ran: int
    agreement_ratio: float
    max_confidence: float
    consensus_score: float
    level: ConsensusLevel
    members: tuple[NormalizedFinding, ...]
    model: str = "agreement"
    contributions: tuple[Contribution, ...] = ()

    @property
    def detected_by_count(self) -> int:
        return len(self.detected_by)

    @property
    def end_line(self) -> int | None:
        """The furthest end of any member's span that starts a multi-line region."""
        line = self.line
        if line is None:
            return None
        members = self.members
        if len(members) == 1:  # most findings: no loop (outputs ask for every finding's)
            end = members[0].evidence.end_line
            return end if end is not None and end > line else None
        furthest = line
        for member in members:
            end = member.evidence.end_line
            if end is not None and end > furthest:
                furthest = end
        return furthest if furthest > line else None


_bot_of = operator.attrgetter("bot")


def distinct_bots(findings: Iterable[NormalizedFinding]) -> set[str]:
    """The bots that reported `findings` (collected in C: a million findings is normal)."""
    return set(map(_bot_of, findings))
