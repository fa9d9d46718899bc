"""The verifier stage from a planned review to a re-planned one (SPEC 12).

`verify` selects the clusters (`select`), builds one request each (`request`), answers
what the cache holds, asks the rest through the transport (`client` or `command`), and
checks each answer (`answer`). A verdict that would take a cluster two or more
independent families reported out of the review is not applied: the cluster keeps its
consensus placement and is listed "dismissed by the verifier (review by hand)". `apply`
re-plans with the verdicts (seed 000's scorer and posting policy decide), keeps the gate
on consensus unless `gate_on_verified`, and adds the figures and the notes.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

from review_quorum.errors import InputError, QuorumError
from review_quorum.markup.escape import code, inline
from review_quorum.plan import ReviewPlan, kept_gate
from review_quorum.scoring.confidence.attach import AttachedVerdict, AttachedVerdictInput
from review_quorum.verifier import select as selection
from review_quorum.verifier.answer import (
    AnswerItem,
    Enforced,
    NoVerdict,
    enforce,
    item_for,
    read_answer,
)
from review_quorum.verifier.cache import Store, VerdictCache
from review_quorum.verifier.client import (
    Breaker,
    ChatClient,
    Reply,
    TimeBudget,
    endpoint_kind,
    key_may_go_to,
    valid_url,
)
from review_quorum.verifier.command import run_command
from review_quorum.verifier.figures import Figures, Place
from review_quorum.verifier.options import CACHE_NAME as CACHE_NAME
from review_quorum.verifier.options import VerifyOptions as VerifyOptions
from review_quorum.verifier.request import (
    CHECKOUT_PROBLEMS,
    ClusterRequest,
    Unsendable,
    build_request,
    parse_patches,
)

if TYPE_CHECKING:
    import httpx

SOURCE = "verifier"
INJECTION = "injection suspected"


class ClusterOutcome(msgspec.Struct, frozen=True):
    """What happened to one cluster."""

    index: int
    status: str  # verified, cached, not verified, skipped, audit
    reason: str = ""
    verdict: str | None = None
    changed: tuple[str, ...] = ()


class Verification(msgspec.Struct, frozen=True):
    verdicts: tuple[AttachedVerdictInput, ...]
    placed: dict[int, AttachedVerdict]  # the same verdicts by the cluster's place in the plan
    outcomes: tuple[ClusterOutcome, ...]
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latencies: tuple[float, ...] = ()
    problems: tuple[str, ...] = ()


def verify(
    plan: ReviewPlan,
    diff_text: str | None,
    options: VerifyOptions,
    environ: Mapping[str, str] = os.environ,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
    store: Store | None = None,
) -> Verification:
    """Verdicts for the eligible clusters of `plan`, and what happened to every cluster.

    Answers are kept in `store` (the history database) when given, else in the cache file.
    """
    chosen = selection.select(plan.findings, options.max_clusters)
    outcomes = [ClusterOutcome(p.index, "skipped", p.reason) for p in chosen.passed]
    model = options.model or ("command" if options.command else "")
    kind = "command" if options.command else endpoint_kind(options.url or "")
    patches = parse_patches(diff_text)
    checkout = Path(options.checkout)
    cache = VerdictCache(_cache_path(options), store)
    problems = [cache.problem] if cache.problem else []
    pending: list[tuple[selection.Candidate, ClusterRequest]] = []
    answers: dict[int, tuple[AnswerItem, str]] = {}
    for candidate in chosen.chosen:
        item = plan.findings[candidate.index]
        cluster_id = f"f{item.fingerprint[:12]}"
        built = build_request(
            cluster_id, item.finding, checkout, patches, model=model, endpoint_kind=kind
        )
        if isinstance(built, Unsendable):
            outcomes.append(ClusterOutcome(candidate.index, "skipped", built.reason))
            continue
        cached = cache.get(built.key)
        if cached is not None:
            answers[candidate.index] = (cached, "cached")
        pending.append((candidate, built))
    asking = [(c, r) for c, r in pending if c.index not in answers]
    replies, failure = _ask(asking, plan, options, environ, transport, sleep)
    for (candidate, request), reply in zip(asking, replies, strict=True):
        if failure:
            outcomes.append(ClusterOutcome(candidate.index, "not verified", failure))
            continue
        got = _item(reply, request.id)
        if isinstance(got, NoVerdict):
            outcomes.append(ClusterOutcome(candidate.index, "not verified", got.reason))
            continue
        cache.put(request.key, got)
        answers[candidate.index] = (got, "verified")
    verdicts = []
    placed: dict[int, AttachedVerdict] = {}
    for candidate, request in pending:
        if candidate.index not in answers:
            continue
        got, status = answers[candidate.index]
        enforced = enforce(got, request.head, source=SOURCE, position=request.id)
        if enforced.drops and len(candidate.families) >= 2:
            reason = "dismissed by the verifier (review by hand)"
            audit = ClusterOutcome(candidate.index, "audit", reason, got.verdict, enforced.changed)
            outcomes.append(audit)
            continue
        verdicts.append(AttachedVerdictInput(request.file, request.line, enforced.verdict))
        placed[candidate.index] = enforced.verdict
        outcomes.append(_done(candidate.index, status, enforced))
    try:
        cache.save()
    except OSError as err:
        problems.append(f"verifier cache {cache.path} not written: {err.strerror or err}")
    except QuorumError as err:  # the history database refused the answers: asked again
        problems.append(f"verifier answers not kept in the history: {err}")
    real = [reply for reply in replies if isinstance(reply, Reply)]
    return Verification(
        verdicts=tuple(verdicts),
        placed=placed,
        outcomes=tuple(sorted(outcomes, key=lambda o: o.index)),
        requests=sum(reply.attempts for reply in real),
        tokens_in=sum(reply.tokens_in for reply in real),
        tokens_out=sum(reply.tokens_out for reply in real),
        latencies=tuple(reply.seconds for reply in real if reply.attempts),
        problems=tuple(problems),
    )


def _done(index: int, status: str, enforced: Enforced) -> ClusterOutcome:
    verdict = enforced.verdict.verdict.value
    return ClusterOutcome(index, status, "", verdict, enforced.changed)


def _cache_path(options: VerifyOptions) -> Path:
    return Path(options.cache) if options.cache else Path(CACHE_NAME)


def _item(reply: Reply | AnswerItem | NoVerdict, cluster_id: str) -> AnswerItem | NoVerdict:
    if not isinstance(reply, Reply):
        return reply
    if reply.content is None:
        return NoVerdict(reply.failure or "no answer")
    answer = read_answer(reply.content)
    return answer if isinstance(answer, NoVerdict) else item_for(answer, cluster_id)


Asked = Reply | AnswerItem | NoVerdict


def _ask(
    asking: Sequence[tuple[selection.Candidate, ClusterRequest]],
    plan: ReviewPlan,
    options: VerifyOptions,
    environ: Mapping[str, str],
    transport: httpx.BaseTransport | None,
    sleep: Callable[[float], None],
) -> tuple[list[Asked], str]:
    """One answer per request, or why none could be asked (and a placeholder for each)."""
    blank: list[Asked] = [Reply(failure="not sent") for _ in asking]
    if not asking:
        return [], ""
    budget = TimeBudget(options.budget_s)
    if options.command:
        pairs = [(request, plan.findings[c.index].finding) for c, request in asking]
        found = run_command(options.command, pairs, budget.remaining())
        if isinstance(found, str):
            return blank, found
        missing = NoVerdict("no verdict for this finding in the answer")
        return [found.get(request.id, missing) for _, request in asking], ""
    if not valid_url(options.url or ""):
        return blank, "--verify-url is not a valid URL"
    key = None
    if options.key_env:
        key = environ.get(options.key_env) or None
        if key is None:
            return blank, f"no API key: ${options.key_env} is not set"
        if not key_may_go_to(options.url or ""):
            return blank, "the API key is sent only over https (or to this machine)"
    if not options.model:
        return blank, "no model named (--verify-model)"
    client = ChatClient(
        options.url or "",
        options.model,
        key=key,
        timeout=options.timeout,
        budget=budget,
        breaker=Breaker(),
        sleep=sleep,
        transport=transport,
    )
    try:
        users = [request.user_message() for _, request in asking]
        with ThreadPoolExecutor(max_workers=max(options.concurrency, 1)) as pool:
            replies: list[Asked] = list(pool.map(client.ask, users))
    finally:
        client.close()
    return replies, ""


# --- applying and reporting -------------------------------------------------------------


def apply(
    plan: ReviewPlan,
    replan: Callable[[Mapping[int, AttachedVerdict]], ReviewPlan],
    verification: Verification,
    options: VerifyOptions,
) -> ReviewPlan:
    """`plan` re-planned with the verdicts, the gate kept on consensus, figures added."""
    after = replan(verification.placed) if verification.placed else plan
    if not options.gate_on_verified and after is not plan:
        after = kept_gate(plan, after)
    data = figures(verification, plan, after, options)
    return replace(
        after,
        notes=(*after.notes, *notes(data, after)),
        extra={**after.extra, "verification": msgspec.to_builtins(data)},
    )


def moved(before: ReviewPlan, after: ReviewPlan) -> int:
    """How many findings the verdicts placed otherwise (inline, summary, dropped)."""
    return sum(
        1
        for old, new in zip(before.findings, after.findings, strict=True)
        if old.disposition is not new.disposition
    )


def _percentile(values: Sequence[float], share: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 3)
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return round(cuts[int(share * 100) - 1], 3)


def figures(
    verification: Verification, before: ReviewPlan, after: ReviewPlan, options: VerifyOptions
) -> Figures:
    """The verification counted, for the summary and the JSON report."""
    by_status = Counter(o.status for o in verification.outcomes)
    skipped = Counter(o.reason for o in verification.outcomes if o.status == "skipped")
    failed = Counter(o.reason for o in verification.outcomes if o.status == "not verified")
    verdicts = Counter(
        o.verdict for o in verification.outcomes if o.verdict and o.status != "audit"
    )

    def places(chosen: Callable[[ClusterOutcome], bool]) -> list[Place]:
        found = [before.findings[o.index].finding for o in verification.outcomes if chosen(o)]
        return [Place(finding.file, finding.line) for finding in found]

    return Figures(
        model=options.model or None,
        endpoint="command" if options.command else endpoint_kind(options.url or ""),
        verified=by_status["verified"],
        cached=by_status["cached"],
        not_verified=dict(sorted(failed.items())),
        skipped=dict(sorted(skipped.items())),
        dismissed_for_review_by_hand=by_status["audit"],
        review_by_hand=places(lambda o: o.status == "audit"),
        injection_suspected=places(lambda o: o.reason == INJECTION),
        verdicts=dict(sorted(verdicts.items())),
        placements_changed=moved(before, after),
        requests=verification.requests,
        tokens_in=verification.tokens_in,
        tokens_out=verification.tokens_out,
        latency_p50_s=_percentile(verification.latencies, 0.5),
        latency_p95_s=_percentile(verification.latencies, 0.95),
        problems=list(verification.problems),
        gate="verified" if options.gate_on_verified else "consensus",
    )


def notes(data: Figures, plan: ReviewPlan) -> list[str]:
    """Summary lines (trusted markdown: everything from bots or the model is escaped).

    Made from the figures alone (and the titles of the plan's findings), so that a plan
    saved and read back (`quorum post`) says the same.
    """
    counted = ", ".join(f"{count} {inline(verdict)}" for verdict, count in data.verdicts.items())
    unverified = sum(data.not_verified.values())
    line = (
        f"Verifier: {data.verified} verified, {data.cached} from the cache"
        + (f" ({counted})" if counted else "")
        + f"; {data.placements_changed} placement(s) changed."
    )
    lines = [line]
    if unverified:
        why = ", ".join(f"{inline(r)}: {n}" for r, n in data.not_verified.items())
        lines.append(f"Not verified, placed by consensus: {unverified} ({why}).")
    budget = data.skipped.get(selection.BUDGET, 0)
    if budget:
        lines.append(f"Not verified: budget ({budget} more eligible than --verify-max).")
    unread = {r: data.skipped[r] for r in CHECKOUT_PROBLEMS if data.skipped.get(r)}
    if unread:
        why = ", ".join(f"{inline(r)}: {n}" for r, n in unread.items())
        lines.append(f"Not verified: code not read from the checkout ({why}).")
    lines.extend(
        f"Not verified: injection suspected in {_where(plan, place)}."
        for place in data.injection_suspected
    )
    if data.review_by_hand:
        lines.append("Dismissed by the verifier (review by hand):")
        lines.extend(f"- {_where(plan, place)}" for place in data.review_by_hand)
    lines.extend(f"Verifier: {inline(problem)}" for problem in data.problems)
    return lines


def read_figures(saved: object, source: str) -> Figures:
    """A file's `verification` member (a saved plan's, a verdicts file's), checked strictly."""
    try:
        return msgspec.convert(saved, Figures, strict=True)
    except msgspec.ValidationError as err:
        raise InputError(source, "/verification", f"not a verification summary: {err}") from err


def restore(plan: ReviewPlan, saved: object, source: str) -> ReviewPlan:
    """A saved plan's `verification` member back on the plan read (`saved_plan`), checked
    strictly, with the summary lines it gives; `plan` itself without one."""
    if saved is None:
        return plan
    data = read_figures(saved, source)
    return replace(
        plan,
        notes=(*plan.notes, *notes(data, plan)),
        extra={**plan.extra, "verification": msgspec.to_builtins(data)},
    )


def _where(plan: ReviewPlan, place: Place) -> str:
    title = next(
        (
            item.finding.title
            for item in plan.findings
            if (item.finding.file, item.finding.line) == (place.file, place.line)
        ),
        "",
    )
    where = code(f"{place.file}:{place.line}")
    return f"{where} {inline(title, limit=120)}" if title else where
