"""A plan saved by `quorum review --format json`, read back into a `ReviewPlan`.

`quorum post PLAN.json` may be handed a plan that someone else wrote or edited (a fork's
workflow artifact), so it posts nothing the file says in words: it reads the findings,
settings and counts, rebuilds the plan through `plan.assemble` (inline order, assessment,
gate), and every body it then posts is rendered afresh by the same escaping renderers that
wrote the file. The rendered texts in the file (`github_review` bodies, `summary_markdown`)
are never used, and the bot comment each finding links to is chosen again from its
members. Everything else must be exactly what `report_data` writes for the rebuilt
plan: derived values (fingerprints, confidence scores, counts, the gate, the review's
anchors) are recomputed, and a value of the wrong type or vocabulary, a missing or unknown
key, or a derived value that differs raises `InputError` naming the file and the JSON
pointer. A plan written by another version of quorum is refused the same way. This is the
one reader of plan JSON: the poster's draft is made from the `ReviewPlan` read here
(`delivery.draft.ReviewDraft.from_plan`), never from the file.
"""

from __future__ import annotations

import enum
import re
from typing import Any, NoReturn, TypeVar

from review_quorum.baseline import BASELINE_STATES, GATE_ON, Baseline, BaselineState, GateOn
from review_quorum.comment_links import link_targets
from review_quorum.errors import FindingError, InputError, Skipped
from review_quorum.ingest.duplicates import check_everywhere
from review_quorum.model import (
    NO_PRIORITY,
    CommentSource,
    ConsensusFinding,
    ConsensusLevel,
    Contribution,
    Evidence,
    NormalizedFinding,
    Severity,
)
from review_quorum.plan import (
    INLINE_MODES,
    AwaitedBots,
    InlineMode,
    PlannedFinding,
    ReviewPlan,
    Settings,
    assemble,
    confidence_of,
    fingerprint,
)
from review_quorum.render.json_report import report_data
from review_quorum.scope import FilterMode
from review_quorum.scoring import MODELS, Model
from review_quorum.scoring.confidence import Disposition
from review_quorum.scoring.confidence.attach import AttachedVerdict
from review_quorum.scoring.confidence.verdicts import (
    ContextCompleteness,
    EvidenceStrength,
    Verdict,
    VerifierSeverity,
)
from review_quorum.verifier import stage as verification

_E = TypeVar("_E", bound=enum.Enum)
_MISSING = object()
_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_RENDERED = re.compile(r"/summary_markdown|/github_review/body|/github_review/comments/\d+/body")
_AZURE_PAGE = re.compile(r"/_git/[^/]+/pullrequest/[0-9]+$")
_ORDERS = ("input", "canonical")


class _At:
    """A JSON value and where it stands, read through typed accessors that name it."""

    __slots__ = ("pointer", "source", "value")

    def __init__(self, source: str, pointer: str, value: object) -> None:
        self.source, self.pointer, self.value = source, pointer, value

    def fail(self, message: str) -> NoReturn:
        raise InputError(self.source, self.pointer or "/", message)

    def key(self, name: str) -> _At:
        if not isinstance(self.value, dict):
            self.fail("expected a JSON object")
        value = self.value.get(name, _MISSING)
        child = _At(self.source, f"{self.pointer}/{name}", value)
        if value is _MISSING:
            child.fail("missing")
        return child

    def optional(self, name: str) -> _At | None:
        """The child `name`, or None when the object leaves it out (as it may)."""
        return self.key(name) if isinstance(self.value, dict) and name in self.value else None

    def items(self) -> list[_At]:
        if not isinstance(self.value, list):
            self.fail("expected an array")
        return [_At(self.source, f"{self.pointer}/{i}", v) for i, v in enumerate(self.value)]

    def text(self) -> str:
        if not isinstance(self.value, str):
            self.fail("expected a string")
        return self.value

    def texts(self) -> tuple[str, ...]:
        return tuple(item.text() for item in self.items())

    def integer(self, minimum: int) -> int:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(f"expected a whole number >= {minimum}")
        return value

    def optional_integer(self, minimum: int) -> int | None:
        return None if self.value is None else self.integer(minimum)

    def number(self) -> float:
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            self.fail("expected a number")
        return self.value

    def flag(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail("expected true or false")
        return self.value

    def optional_flag(self) -> bool | None:
        return None if self.value is None else self.flag()

    def choice(self, kind: type[_E]) -> _E:
        try:
            return kind(self.value)
        except (ValueError, TypeError):
            allowed = ", ".join(str(member.value) for member in kind)
            self.fail(f"expected one of {allowed}")


def read_saved_plan(
    document: object, source: str, *, pull_page: str = "", data: bytes | None = None
) -> ReviewPlan:
    """The plan a saved `quorum review --format json` document holds, rebuilt and checked.

    With `pull_page` (the pull request's web address), a bot comment a member names must be
    a comment on that page: a plan cannot make the summary link anywhere else. With the
    file's bytes (`data`), a key repeated in any of its objects is an error at its line and
    column: quorum never writes one, and a JSON reader would keep only the last.
    """
    if data is not None:
        check_everywhere(source, data)
    root = _At(source, "", document)
    settings = _settings(root.key("settings"))
    rows = root.key("findings").items()
    findings = [_consensus(row, pull_page) for row in rows]
    links = link_targets(findings)
    plan = assemble(
        [_planned(*parts, settings) for parts in zip(rows, findings, links, strict=True)],
        settings,
        bots_ran=root.key("bots_ran").integer(1),
        skipped=[_skipped(item) for item in root.key("skipped").items()],
        input_count=root.key("input_findings").integer(0),
        awaited=_awaited(root.key("awaited")),
        commit_id=_commit_id(root.key("github_review")),
        baseline=_baseline(root.optional("baseline"), pull_page),
    )
    saved = document.get("verification") if isinstance(document, dict) else None
    plan = verification.restore(plan, saved, source)
    _compare(report_data(plan), root)
    return plan


def _settings(at: _At) -> Settings:
    order = at.key("order")
    if order.value not in _ORDERS:
        order.fail(f"expected one of {', '.join(_ORDERS)}")
    gate = at.key("gate_level")
    return Settings(
        model=_model(at.key("model")),
        bots_ran=at.key("bots_ran").optional_integer(1),
        line_window=at.key("line_window").integer(0),
        title_overlap=at.key("title_overlap").number(),
        order=order.text(),  # type: ignore[arg-type]  # checked against _ORDERS above
        filter_mode=at.key("filter_mode").choice(FilterMode),
        context_lines=at.key("context_lines").integer(0),
        post_threshold=at.key("post_threshold").integer(0),
        comment_cap=at.key("comment_cap").integer(0),
        inline_level=at.key("inline_level").choice(ConsensusLevel),
        gate_level=None if gate.value == "none" else gate.choice(ConsensusLevel),
        inline_mode=_inline_mode(at.key("inline_mode")),
        gate_on=_gate_on(at.optional("gate_on")),
    )


def _gate_on(at: _At | None) -> GateOn:
    if at is None:
        return "new"
    if at.value not in GATE_ON:
        at.fail(f"expected one of {', '.join(GATE_ON)}")
    return at.value  # one of GATE_ON


def _baseline(at: _At | None, pull_page: str) -> Baseline | None:
    if at is None or at.value is None:
        return None
    sources = at.key("sources").texts()
    absent = tuple(_consensus(row, pull_page) for row in at.key("absent").items())
    return Baseline(sources, absent)


def _baseline_state(at: _At | None) -> BaselineState | None:
    if at is None or at.value is None:
        return None
    if at.value not in BASELINE_STATES:
        at.fail(f"expected one of {', '.join(BASELINE_STATES)} or null")
    return at.value  # one of BASELINE_STATES


def _inline_mode(at: _At) -> InlineMode:
    if at.value not in INLINE_MODES:
        at.fail(f"expected one of {', '.join(INLINE_MODES)}")
    return at.value  # one of INLINE_MODES


def _planned(
    at: _At, finding: ConsensusFinding, link: CommentSource | None, settings: Settings
) -> PlannedFinding:
    verdict = _verdict(at.key("verdict"))
    in_diff = at.key("in_diff").optional_flag()
    code = _code(at.optional("code"))
    return PlannedFinding(
        finding=finding,
        disposition=at.key("disposition").choice(Disposition),
        forced=at.key("forced").flag(),
        reason=at.key("reason").text(),
        fingerprint=fingerprint(finding, code),
        in_diff=in_diff,
        addressable=at.key("addressable").flag(),
        confidence=confidence_of(finding, verdict, in_diff, settings),
        verdict=verdict,
        span_end=at.key("span_end").optional_integer(1),
        link=link,
        code=code,
        baseline_state=_baseline_state(at.optional("baseline_state")),
    )


def _code(at: _At | None) -> str:
    """The flagged line's hash (`identity.code_hash`): 16 hex digits, or "" (absent too)."""
    if at is None:
        return ""
    text = at.text()
    if text and not (len(text) == 16 and all(c in "0123456789abcdef" for c in text)):
        at.fail("expected 16 lowercase hex digits or an empty string")
    return text


def _consensus(at: _At, pull_page: str) -> ConsensusFinding:
    members = at.key("members")
    if not members.items():
        members.fail("a finding has at least one member")
    return ConsensusFinding(
        file=at.key("file").text(),
        line=at.key("line").optional_integer(1),
        category=at.key("category").text(),
        title=at.key("title").text(),
        severity=_severity(at.key("severity")),
        detected_by=at.key("detected_by").texts(),
        bots_ran=at.key("bots_ran").integer(1),
        agreement_ratio=at.key("agreement_ratio").number(),
        max_confidence=at.key("max_confidence").number(),
        consensus_score=at.key("consensus_score").number(),
        level=at.key("level").choice(ConsensusLevel),
        members=tuple(_member(member, pull_page) for member in members.items()),
        **_scoring(at),
    )


def _model(at: _At) -> Model:
    if at.value not in MODELS:
        at.fail(f"expected one of {', '.join(MODELS)}")
    return at.value  # one of MODELS


def _scoring(at: _At) -> dict[str, Any]:
    """The model and contributions a finding names when not scored by agreement."""
    model = at.optional("model")
    if model is None:
        return {}
    contributions = tuple(
        Contribution(
            source=item.key("source").text(),
            family=item.key("family").text(),
            reliability=item.key("reliability").number(),
            origin=item.key("origin").text(),
            counted=item.key("counted").flag(),
            weight=item.key("log_odds").number(),
        )
        for item in at.key("contributions").items()
    )
    return {"model": _model(model), "contributions": contributions}


def _member(at: _At, pull_page: str) -> NormalizedFinding:
    evidence = at.key("evidence")
    try:
        return NormalizedFinding.create(
            bot=at.key("bot").text(),
            finding_id=at.key("finding_id").text(),
            severity=_severity(at.key("severity")),
            category=at.key("category").text(),
            title=at.key("title").text(),
            file=evidence.key("file").text(),
            line=evidence.key("line").optional_integer(1),
            end_line=evidence.key("end_line").optional_integer(1),
            snippet=evidence.key("snippet").text(),
            symbol=evidence.key("symbol").text(),
            confidence=at.key("confidence").number(),
            rule_id=at.key("rule_id").text(),
            suggestion=at.key("suggestion").text(),
            related=tuple(_place(place) for place in at.key("related").items()),
            source=_comment_source(at.key("source"), pull_page),
            use_only=_use_only(at.optional("use_only")),
            cwes=_cwes(at.optional("cwes")),
            priority=_priority(at.optional("priority")),
        )
    except FindingError as err:
        at.fail(str(err))


def _use_only(at: _At | None) -> bool:
    """A member whose rule states only the use of a function (written only when true)."""
    return at is not None and at.flag()


def _priority(at: _At | None) -> float:
    """The priority a member's tool states (written only when it states one)."""
    return NO_PRIORITY if at is None else at.number()


def _cwes(at: _At | None) -> tuple[int, ...]:
    """The CWE ids a member's rule states (written only when there are some)."""
    return () if at is None else tuple(item.integer(1) for item in at.items())


def _place(at: _At) -> Evidence:
    return Evidence(
        file=at.key("file").text(),
        line=at.key("line").optional_integer(1),
        end_line=at.key("end_line").optional_integer(1),
    )


def _comment_prefix(pull_page: str) -> str:
    """What a comment's address starts with: the page and ``#``, or on an Azure DevOps
    pull request's page (``.../_git/REPO/pullrequest/N``) its ``?discussionId=`` query."""
    if _AZURE_PAGE.search(pull_page):
        return f"{pull_page}?discussionId="
    return f"{pull_page}#"


def _comment_source(at: _At, pull_page: str) -> CommentSource | None:
    if at.value is None:
        return None
    url = at.key("html_url")
    if pull_page and url.text() and not url.text().startswith(_comment_prefix(pull_page)):
        url.fail(f"not a comment on {pull_page}")
    try:
        return CommentSource(
            kind=at.key("kind").text(),  # type: ignore[arg-type]  # checked by CommentSource
            rest_id=at.key("rest_id").integer(1),
            node_id=at.key("node_id").text(),
            html_url=url.text(),
            author=at.key("author").text(),
        )
    except FindingError as err:
        at.fail(str(err))


def _severity(at: _At) -> Severity:
    try:
        return Severity.parse(at.text())
    except ValueError as err:
        at.fail(str(err))


def _verdict(at: _At) -> AttachedVerdict | None:
    if at.value is None:
        return None
    return AttachedVerdict(
        verdict=at.key("verdict").choice(Verdict),
        severity=at.key("severity").choice(VerifierSeverity),
        evidence_strength=at.key("evidence_strength").choice(EvidenceStrength),
        context_completeness=at.key("context_completeness").choice(ContextCompleteness),
        in_changed_code=at.key("in_changed_code").flag(),
        issue=at.key("issue").text(),
        details=at.key("details").text(),
        source=at.key("source").text(),
        position=at.key("position").text(),
    )


def _skipped(at: _At) -> Skipped:
    return Skipped(at.key("source").text(), at.key("position").text(), at.key("reason").text())


def _awaited(at: _At) -> AwaitedBots | None:
    if at.value is None:
        return None
    return AwaitedBots(
        names=at.key("bots").texts(),
        skipped=at.key("skipped").texts(),
        missing=at.key("missing").texts(),
        waited=at.key("waited_seconds").number(),
    )


def _commit_id(review: _At) -> str | None:
    if not isinstance(review.value, dict) or "commit_id" not in review.value:
        return None
    commit = review.key("commit_id")
    if not isinstance(commit.value, str) or not _SHA.fullmatch(commit.value):
        commit.fail("expected a commit SHA (40 or 64 lowercase hex digits)")
    return commit.value


def _compare(expected: object, at: _At) -> None:
    """Fail at the first place where the document is not what the rebuilt plan writes."""
    if _RENDERED.fullmatch(at.pointer):
        at.text()  # rendered afresh, never read: it only has to be the right type
    elif isinstance(expected, dict):
        actual = at.value
        if not isinstance(actual, dict):
            at.fail("expected a JSON object")
        for name in actual:
            if name not in expected:
                _At(at.source, f"{at.pointer}/{name}", None).fail("not part of a quorum plan")
        for name, value in expected.items():
            _compare(value, at.key(name))
    elif isinstance(expected, list):
        items = at.items()
        if len(items) != len(expected):
            at.fail(
                f"expected {len(expected)} items (as the plan's findings give), not {len(items)}"
            )
        for value, item in zip(expected, items, strict=True):
            _compare(value, item)
    elif not _same(expected, at.value):
        at.fail(f"does not match the plan's findings, which give {_shown(expected)}")


def _same(expected: object, actual: object) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
