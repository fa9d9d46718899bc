"""A plan saved by `quorum review --format json`, read back into a `ReviewPlan`.

`quorum post PLAN.json` may be handed a plan that someone else wrote or edited (a fork's
workflow artifact), so it posts nothing the file says in words: it reads the findings,
settings and counts, rebuilds the plan through `plan.assemble` (inline order, assessment,
gate), and every body it then posts is rendered afresh by the same escaping renderers that
wrote the file. The rendered texts in the file (`github_review` bodies, `summary_markdown`)
are never used, and the bot comment each finding links to is chosen again from its
members.

The document is decoded through the report's own Struct tree (`report.ReviewReport`, the
types the JSON report is written from and its published schema is generated from): a
value of the wrong type, vocabulary or bounds, or a missing or unknown key, raises
`InputError` naming the file and the JSON pointer. Then the security re-derivation:
everything else must be exactly what the rebuilt plan writes, so derived values
(fingerprints, confidence scores, counts, the gate, the review's anchors) are recomputed
and compared, and the first that differs is named the same way. A plan written by another
version of quorum is refused the same way. This is the one reader of plan JSON: the
poster's draft is made from the `ReviewPlan` read here
(`delivery.draft.ReviewDraft.from_plan`), never from the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import NoReturn

import msgspec
import msgspec.inspect as mi
from msgspec import UNSET
from msgspec.structs import replace

from review_quorum.baseline import Baseline
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
    UNHELD,
    AwaitedBots,
    Decision,
    PlannedFinding,
    ReviewPlan,
    Settings,
    Triage,
    assemble,
    confidence_of,
    fingerprint,
    gate_at,
    triaged_by,
    unheld,
)
from review_quorum.render.json_report import report_data
from review_quorum.report import (
    ConsensusEntry,
    ReportFinding,
    ReportMember,
    ReportSettings,
    ReviewReport,
)
from review_quorum.verifier import stage as verification

_RENDERED = re.compile(r"/summary_markdown|/github_review/body|/github_review/comments/\d+/body")
_AZURE_PAGE = re.compile(r"/_git/[^/]+/pullrequest/[0-9]+$")
_SEVERITIES = {severity.label: severity for severity in Severity}


class _At:
    """A JSON value and where it stands, for comparing with what the plan writes."""

    __slots__ = ("pointer", "source", "value")

    def __init__(self, source: str, pointer: str, value: object) -> None:
        self.source, self.pointer, self.value = source, pointer, value

    def fail(self, message: str) -> NoReturn:
        raise InputError(self.source, self.pointer or "/", message)

    def key(self, name: str) -> _At:
        if not isinstance(self.value, dict):
            self.fail("expected a JSON object")
        if name not in self.value:
            _At(self.source, f"{self.pointer}/{name}", None).fail("missing")
        return _At(self.source, f"{self.pointer}/{name}", self.value[name])

    def items(self) -> list[_At]:
        if not isinstance(self.value, list):
            self.fail("expected an array")
        return [_At(self.source, f"{self.pointer}/{i}", v) for i, v in enumerate(self.value)]

    def text(self) -> str:
        if not isinstance(self.value, str):
            self.fail("expected a string")
        return self.value


def read_saved_plan(
    document: object,
    source: str,
    *,
    pull_page: str = "",
    data: bytes | None = None,
    triage: Triage | None = None,
) -> ReviewPlan:
    """The plan a saved `quorum review --format json` document holds, rebuilt and checked.

    With `pull_page` (the pull request's web address), a bot comment a member names must be
    a comment on that page: a plan cannot make the summary link anywhere else. With the
    file's bytes (`data`), a key repeated in any of its objects is an error at its line and
    column: quorum never writes one, and a JSON reader would keep only the last.

    A finding's `triage` (a writer's decision the review read from its history) is a
    claim. The plan is re-derived with the decisions it claims, so its gate and counts are
    checked as written. A posting run passes `triage`, what its own history holds for the
    pull request (SPEC 8: the posting process decides what is hidden from what it reads
    itself): the plan is then assembled again with that triage instead, so a decision the
    file claims and the history does not hold is not honoured (its finding is commented
    on and gates again) and the plan's notes say how many were not.
    """
    if data is not None:
        check_everywhere(source, data)
    saved = decode(document, source)
    settings = _settings(saved.settings)
    findings = [
        _consensus(entry, f"/findings/{index}", source, pull_page)
        for index, entry in enumerate(saved.findings)
    ]
    links = link_targets(findings)
    planned = [
        _planned(*parts, settings) for parts in zip(saved.findings, findings, links, strict=True)
    ]
    plan_with = partial(
        assemble,
        planned,
        settings,
        bots_ran=saved.bots_ran,
        skipped=[Skipped(item.source, item.position, item.reason) for item in saved.skipped],
        input_count=saved.input_findings,
        awaited=None
        if saved.awaited is None
        else AwaitedBots(
            saved.awaited.bots,
            saved.awaited.skipped,
            saved.awaited.missing,
            saved.awaited.waited_seconds,
        ),
        commit_id=None if saved.github_review.commit_id is UNSET else saved.github_review.commit_id,
        baseline=_baseline(saved, source, pull_page),
    )
    figures = None if saved.verification is UNSET else msgspec.to_builtins(saved.verification)

    def plan_of(triage: Triage) -> ReviewPlan:
        plan = verification.restore(plan_with(triage=triage), figures, source)
        if saved.verification is UNSET or saved.verification.gate != "consensus":
            return plan
        # a verified plan whose gate stayed on consensus (`plan.kept_gate`)
        level, on = settings.gate_level, settings.gate_on
        return replace(plan, gate=gate_at(plan.findings, level, on, verified=False))

    plan = plan_of(_claimed(saved))
    _compare(report_data(plan), _At(source, "", document))
    if triage is None:
        return plan
    honoured = plan_of(triage)
    refused = sum(
        1
        for said, kept in zip(plan.findings, honoured.findings, strict=True)
        if said.triage is not None and not _same_decision(said.triage, kept.triage)
    )
    if not refused:
        return honoured
    notes = (*honoured.notes, unheld(refused))
    return replace(honoured, notes=notes, extra={**honoured.extra, UNHELD: refused})


def _claimed(saved: ReviewReport) -> Triage:
    """The writers' decisions the document says its findings carry."""
    return Triage(tuple(_decision(entry) for entry in saved.findings if entry.triage is not UNSET))


def _decision(entry: ReportFinding) -> Decision:
    said = entry.triage
    assert said is not UNSET  # only asked of a finding that names one
    what = (said.action, said.actor, said.acted_at, said.reason, said.via)
    return Decision(entry.fingerprint, *what)


def _same_decision(claimed: Decision, held: Decision | None) -> bool:
    """Whether the history holds the decision a plan claims (what, who and where from)."""
    if held is None:
        return False
    return (claimed.action, claimed.actor, claimed.via) == (held.action, held.actor, held.via)


def decode(document: object, source: str) -> ReviewReport:
    """`document` (parsed JSON) as the report's Structs, or `InputError` at the first place
    it is not one: the pointer, and what the report's types expect there."""
    try:
        return msgspec.convert(document, ReviewReport, strict=True)
    except msgspec.ValidationError as err:
        pointer, message = explained(str(err))
        raise InputError(source, pointer or "/", message) from None


_WHERE = re.compile(r"(?s)(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?")
_STEP = re.compile(r"\.([^.\[]+)|\[([^\]]*)\]")
_FIELD = re.compile(r"Object (missing required|contains unknown) field `([^`]*)`")


def explained(error: str) -> tuple[str, str]:
    """A msgspec validation error as a JSON pointer and a message in the report's terms."""
    found = _WHERE.fullmatch(error)
    assert found is not None  # the pattern matches every text
    what, path = found["what"], found["path"] or ""
    steps = [name or index for name, index in _STEP.findall(path)]
    pointer = "".join(f"/{step}" for step in steps)
    field = _FIELD.fullmatch(what)
    if field is not None:
        missing = field[1] == "missing required"
        return f"{pointer}/{field[2]}", "missing" if missing else "not part of a quorum plan"
    if what.startswith(("Expected `", "Invalid enum value")):
        return pointer, f"expected {describe(_type_at(steps))}"
    return pointer, what  # a value's own check (`CommentSource`), in its own words


def _type_at(steps: Sequence[str]) -> mi.Type:
    """The report's type at a path of field names and indices."""
    kind: mi.Type = mi.type_info(ReviewReport)
    for step in steps:
        kind = _inner(kind, step)
    return kind


def _inner(kind: mi.Type, step: str) -> mi.Type:
    if isinstance(kind, mi.Metadata):
        return _inner(kind.type, step)
    if isinstance(kind, mi.UnionType):
        nested = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        return _inner(nested[0], step)
    if isinstance(kind, mi.StructType):
        return next(field.type for field in kind.fields if field.encode_name == step)
    if isinstance(kind, mi.ListType | mi.VarTupleType):
        return kind.item_type
    if isinstance(kind, mi.DictType):
        return kind.value_type
    return kind


def describe(kind: mi.Type) -> str:
    """What a value of the report's type `kind` is, in a user's words."""
    if isinstance(kind, mi.Metadata):
        wanted = (kind.extra_json_schema or {}).get("description")
        return str(wanted) if wanted else describe(kind.type)
    if isinstance(kind, mi.UnionType):
        nullable = any(isinstance(t, mi.NoneType) for t in kind.types)
        kinds = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        return " or ".join([*map(describe, kinds), *(["null"] if nullable else [])])
    if isinstance(kind, mi.IntType):
        return "a whole number" + (f" >= {kind.ge}" if kind.ge is not None else "")
    if isinstance(kind, mi.FloatType):
        return "a number"
    if isinstance(kind, mi.BoolType):
        return "true or false"
    if isinstance(kind, mi.StrType):
        return "a string"
    if isinstance(kind, mi.EnumType):
        return "one of " + ", ".join(str(member.value) for member in kind.cls)
    if isinstance(kind, mi.LiteralType):
        return "one of " + ", ".join(map(str, kind.values))
    if isinstance(kind, mi.ListType | mi.VarTupleType):
        least = kind.min_length
        return "an array" + (f" of at least {least} item(s)" if least else "")
    return "a JSON object"  # a Struct or a dict


def _settings(saved: ReportSettings) -> Settings:
    gate = saved.gate_level
    return Settings(
        model=saved.model,
        bots_ran=saved.bots_ran,
        line_window=saved.line_window,
        title_overlap=saved.title_overlap,
        order=saved.order,
        filter_mode=saved.filter_mode,
        context_lines=saved.context_lines,
        post_threshold=saved.post_threshold,
        comment_cap=saved.comment_cap,
        inline_level=saved.inline_level,
        gate_level=None if gate == "none" else ConsensusLevel(gate),
        inline_mode=saved.inline_mode,
        gate_on=saved.gate_on,
    )


def _baseline(saved: ReviewReport, source: str, pull_page: str) -> Baseline | None:
    if saved.baseline is None:
        return None
    absent = tuple(
        _consensus(entry, f"/baseline/absent/{index}", source, pull_page)
        for index, entry in enumerate(saved.baseline.absent)
    )
    return Baseline(saved.baseline.sources, absent)


def _planned(
    saved: ReportFinding, finding: ConsensusFinding, link: CommentSource | None, settings: Settings
) -> PlannedFinding:
    verdict, in_diff, code = saved.verdict, saved.in_diff, saved.code
    disposition, reason = saved.disposition, saved.reason
    if saved.triage is not UNSET:
        # as planned before the writer's decision, which assembling applies again (a
        # dropped finding stays dropped, its reason unchanged)
        disposition = saved.triage.disposition
        reason = reason.removesuffix(triaged_by(_decision(saved)))
    return PlannedFinding(
        finding=finding,
        disposition=disposition,
        forced=saved.forced,
        reason=reason,
        fingerprint=fingerprint(finding, code),
        in_diff=in_diff,
        addressable=saved.addressable,
        confidence=confidence_of(finding, verdict, in_diff, settings),
        verdict=verdict,
        span_end=saved.span_end,
        link=link,
        code=code,
        baseline_state=saved.baseline_state,
    )


def _consensus(
    saved: ConsensusEntry, pointer: str, source: str, pull_page: str
) -> ConsensusFinding:
    members = tuple(
        _member(member, f"{pointer}/members/{index}", source, pull_page)
        for index, member in enumerate(saved.members)
    )
    finding = ConsensusFinding(
        file=saved.file,
        line=saved.line,
        category=saved.category,
        title=saved.title,
        severity=_SEVERITIES[saved.severity],
        detected_by=saved.detected_by,
        bots_ran=saved.bots_ran,
        agreement_ratio=saved.agreement_ratio,
        max_confidence=saved.max_confidence,
        consensus_score=saved.consensus_score,
        level=saved.level,
        members=members,
    )
    if saved.model is UNSET:
        return finding
    contributions = tuple(
        Contribution(
            item.source, item.family, item.reliability, item.origin, item.counted, item.log_odds
        )
        for item in (() if saved.contributions is UNSET else saved.contributions)
    )
    return msgspec.structs.replace(finding, model=saved.model, contributions=contributions)


def _member(saved: ReportMember, pointer: str, source: str, pull_page: str) -> NormalizedFinding:
    comment = saved.source
    url = "" if comment is None else comment.html_url
    if pull_page and url and not url.startswith(_comment_prefix(pull_page)):
        raise InputError(source, f"{pointer}/source/html_url", f"not a comment on {pull_page}")
    evidence = saved.evidence
    try:
        return NormalizedFinding.create(
            bot=saved.bot,
            finding_id=saved.finding_id,
            severity=_SEVERITIES[saved.severity],
            category=saved.category,
            title=saved.title,
            file=evidence.file,
            line=evidence.line,
            end_line=evidence.end_line,
            snippet=evidence.snippet,
            symbol=evidence.symbol,
            confidence=saved.confidence,
            rule_id=saved.rule_id,
            suggestion=saved.suggestion,
            related=tuple(Evidence(p.file, p.line, end_line=p.end_line) for p in saved.related),
            source=comment,
            use_only=saved.use_only is True,
            cwes=() if saved.cwes is UNSET else saved.cwes,
            priority=NO_PRIORITY if saved.priority is UNSET else saved.priority,
        )
    except FindingError as err:
        raise InputError(source, pointer, str(err)) from None


def _comment_prefix(pull_page: str) -> str:
    """What a comment's address starts with: the page and ``#``, or on an Azure DevOps
    pull request's page (``.../_git/REPO/pullrequest/N``) its ``?discussionId=`` query."""
    if _AZURE_PAGE.search(pull_page):
        return f"{pull_page}?discussionId="
    return f"{pull_page}#"


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
