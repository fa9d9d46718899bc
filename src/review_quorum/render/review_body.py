"""Markdown for the one review we post (SPEC section 4): its body and its inline comments.

The view model (`BodyItem`, `ReviewBody`) is deliberately plain so that both paths can
fill it: verified findings carry a confidence band and score, unverified consensus
findings carry a provenance tag and a consensus level, and some carry both. Rendering is
pure and deterministic byte for byte. Everything a bot wrote goes through
`markup.escape`; only `provenance` and `notes` are trusted, pre-rendered text. Bodies stay
within GitHub's 65,536-character limit (counted in UTF-16 code units, which is never less
than however GitHub counts) and say so explicitly when they had to cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain

import msgspec

from review_quorum.markup import escape
from review_quorum.markup.markers import BY, CODE, FINDING, SUMMARY, bots_payload, marker
from review_quorum.model import ConsensusLevel
from review_quorum.render.consensus import LEVEL_HEADINGS, location
from review_quorum.scoring.confidence import Assessment, ScoredFinding, ScoreReport, assess

GITHUB_LIMIT = 65_536
TITLE_LIMIT = 200
DETAILS_LIMIT = 60_000
MINIMUM_LIMIT = 1_024
ASSESSMENT_ICONS = {
    Assessment.CRITICAL: "🔴",
    Assessment.NEEDS_ATTENTION: "🟡",
    Assessment.APPROVE: "🟢",
}


class BodyItem(msgspec.Struct, frozen=True):
    """One finding as the review shows it; bot text here is raw and escaped on rendering.

    `band`/`score` are set for verified findings, `provenance` (a trusted tag such as
    `[detected by 2/4 bots, agreement 50%]`) and `level` for consensus findings. A
    non-empty `fingerprint` puts a finding marker in the inline comment.
    """

    file: str
    line: int | None
    end_line: int | None
    severity: str
    category: str
    title: str
    details: str = ""
    band: str | None = None
    score: int | None = None
    provenance: str | None = None
    detected_by: tuple[str, ...] = ()
    level: ConsensusLevel | None = None
    reason: str = ""
    fingerprint: str = ""
    link: str = ""  # a checked https:// URL of the bot comment this finding links to
    link_bot: str = ""
    code: str = ""  # the flagged line's text, hashed (`identity.code_hash`): a `code` marker


class ReviewBody(msgspec.Struct, frozen=True):
    """What the review body says: the label, the three lists, counts and trusted notes."""

    assessment: Assessment
    inline: Sequence[BodyItem] = ()
    summary: Sequence[BodyItem] = ()
    audit: Sequence[BodyItem] = ()
    dropped_count: int = 0
    skipped_count: int = 0
    notes: tuple[str, ...] = ()
    linked: bool = False  # the "inline" findings are linked to bot comments, not posted


def utf16_size(text: str) -> int:
    """Length in UTF-16 code units: characters, plus one for each outside the BMP."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _plural(count: int, singular: str, plural: str = "") -> str:
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def _confidence(item: BodyItem) -> str:
    if item.band is None or item.score is None:
        return ""
    return f"confidence {escape.inline(item.band)}, {item.score}/100"


def _provenance(item: BodyItem) -> str:
    bots = ", ".join(escape.inline(bot) for bot in item.detected_by)
    return " ".join(part for part in (item.provenance or "", bots) if part)


def render_item_line(item: BodyItem, *, audit: bool = False) -> str:
    """One finding as a list item: severity, title, place, confidence and provenance."""
    parts = [
        f"- **{escape.inline(item.severity.upper())}** "
        f"{escape.inline(item.title, limit=TITLE_LIMIT)}",
        location(item.file, item.line, item.end_line),
    ]
    parts.append("dismissed by the verifier" if audit else _confidence(item))
    parts.append(_provenance(item))
    if item.link:
        parts.append(f"[comment by {escape.inline(item.link_bot or 'a bot')}]({item.link})")
    return " — ".join(part for part in parts if part)


def _counts(body: ReviewBody) -> str:
    counts = [
        (len(body.inline), "linked" if body.linked else "posted inline"),
        (len(body.summary), "lower-confidence"),
        (len(body.audit), "dismissed security"),
        (body.dropped_count, "dropped"),
    ]
    shown = [f"**{count}** {label}" for count, label in counts if count]
    if body.skipped_count:
        shown.append(f"**{body.skipped_count}** input {_noun(body.skipped_count)} skipped")
    return " · ".join(shown) if shown else "No findings."


def _noun(count: int) -> str:
    return "record" if count == 1 else "records"


def _summary_blocks(items: Sequence[BodyItem]) -> Iterator[tuple[str, bool]]:
    """The lower-confidence list, grouped by consensus level when items carry one."""
    unleveled = [item for item in items if item.level is None]
    yield from ((render_item_line(item), True) for item in unleveled)
    gap = "\n" if unleveled else ""  # the section heading already ends in a blank line
    for level, heading in LEVEL_HEADINGS.items():
        members = [item for item in items if item.level is level]
        if members:
            yield (f"{gap}#### {heading} ({len(members)})\n", False)
            yield from ((render_item_line(item), True) for item in members)
            gap = "\n"


def _sections(body: ReviewBody) -> Iterator[tuple[str, bool]]:
    """Every heading (False) and item line (True) of the lists, in reading order, each
    rendered only when asked for (a body holds what fits of a million findings)."""
    if body.inline:
        where = "linked, not posted inline" if body.linked else "posted inline"
        yield (f"\n### {_plural(len(body.inline), 'finding')} {where}\n", False)
        yield from ((render_item_line(item), True) for item in body.inline)
    if body.summary:
        heading = _plural(len(body.summary), "lower-confidence finding")
        yield (f"\n### {heading} (not posted inline)\n", False)
        yield from _summary_blocks(body.summary)
    if body.audit:
        heading = _plural(len(body.audit), "dismissed security finding")
        yield (f"\n### {heading} (review manually)\n", False)
        yield from ((render_item_line(item, audit=True), True) for item in body.audit)


def render_review_body(body: ReviewBody, *, limit: int = GITHUB_LIMIT) -> str:
    """The review body: marker, assessment, counts, notes, then the three lists."""
    if limit < MINIMUM_LIMIT:
        raise ValueError(f"limit must be at least {MINIMUM_LIMIT}, not {limit}")
    icon = ASSESSMENT_ICONS[body.assessment]
    head = [marker(SUMMARY), f"## Review assessment: {icon} {body.assessment.value}", ""]
    head.append(_counts(body))
    notes = [(note, False) for note in body.notes]
    if notes:
        notes.insert(0, ("", False))
    # The lines up to the first that overflows the limit: all a cut body can keep.
    blocks: list[tuple[str, bool]] = []
    size = utf16_size("\n".join(head)) + 1
    for block in chain(notes, _sections(body)):
        blocks.append(block)
        size += utf16_size(block[0]) + 1
        if size > limit:
            total = len(body.inline) + len(body.summary) + len(body.audit)
            return _cut(head, blocks, limit, total)
    return "\n".join(head + [text for text, _ in blocks]) + "\n"


def _cut(head: list[str], blocks: list[tuple[str, bool]], limit: int, total: int) -> str:
    """Keep whole lines in order while they fit, then say how many findings are missing."""
    note_room = utf16_size(_cut_note(total, total)) + 2
    kept = list(head)
    used = utf16_size("\n".join(kept)) + 1
    shown = 0
    for text, is_item in blocks:
        size = utf16_size(text) + 1
        if used + size + note_room > limit:
            break
        kept.append(text)
        used += size
        shown += is_item
    while kept[-1].lstrip("\n").startswith("#"):  # a heading whose items were all cut
        kept.pop()
    return "\n".join([*kept, "", _cut_note(total - shown, total)]) + "\n"


def _cut_note(missing: int, total: int) -> str:
    return (
        f"_Cut: {missing} of {_plural(total, 'finding')} not listed here, to stay within "
        f"GitHub's {GITHUB_LIMIT:,}-character limit for a review body._"
    )


def render_inline_comment(item: BodyItem) -> str:
    """One inline comment: title, details, provenance, then the confidence line."""
    lines = [marker(FINDING, item.fingerprint)] if item.fingerprint else []
    if item.fingerprint and item.detected_by:
        lines.append(marker(BY, bots_payload(item.detected_by)))
    if item.fingerprint and item.code:
        lines.append(marker(CODE, item.code))
    severity = escape.inline(item.severity.upper())
    category = escape.inline(item.category)
    lines.append(f"**{severity}** ({category}) {escape.inline(item.title, limit=TITLE_LIMIT)}")
    if item.details:
        lines += ["", *_details(item.details)]
    provenance = _provenance(item)
    if provenance:
        lines += ["", provenance]
    if item.band is not None and item.score is not None:
        lines += ["", f"Confidence: **{escape.inline(item.band)}** ({item.score}/100)"]
    return "\n".join(lines) + "\n"


def _details(details: str) -> list[str]:
    text = escape.block(details)
    if utf16_size(text) <= DETAILS_LIMIT:
        return [text]
    limit = DETAILS_LIMIT
    while utf16_size(text := escape.block(details, limit=limit)) > DETAILS_LIMIT:
        limit = limit * 9 // 10
    return [text, "", "_Details cut to stay within GitHub's comment size limit._"]


# --- building the view model from a score report -----------------------------------------


def item_from_scored(finding: ScoredFinding) -> BodyItem:
    """A verified finding as the review shows it (its title falls back to its category)."""
    item, result = finding.input, finding.result
    return BodyItem(
        file=item.file,
        line=item.line,
        end_line=None,
        severity=item.verifier_severity.value,
        category=item.category.value,
        title=item.issue or item.category.value.replace("_", " "),
        details=item.details,
        band=result.band.value,
        score=result.score,
        reason=result.reason,
    )


def body_from_report(
    report: ScoreReport, *, skipped_count: int = 0, notes: tuple[str, ...] = ()
) -> ReviewBody:
    """The review body for a score report, its assessment decided from the inline group."""
    assessment = assess(
        (finding.input.verifier_severity.value, finding.input.verdict) for finding in report.inline
    )
    return ReviewBody(
        assessment=assessment,
        inline=[item_from_scored(finding) for finding in report.inline],
        summary=[item_from_scored(finding) for finding in report.summary],
        audit=[item_from_scored(finding) for finding in report.audit],
        dropped_count=len(report.dropped),
        skipped_count=skipped_count,
        notes=notes,
    )
