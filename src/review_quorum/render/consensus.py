"""Markdown for consensus results (seed 001): the provenance tag and the grouped list.

`render_provenance` is the one tag every output uses to say who agreed on a finding, so a
sticky comment reads the same whichever path produced it. Percentages are exact: they are
computed from the counts, rounded half up, never from a float.
"""

from __future__ import annotations

from collections.abc import Sequence

from review_quorum.markup import escape
from review_quorum.model import ConsensusFinding, ConsensusLevel

LEVEL_HEADINGS = {
    ConsensusLevel.CONFIRMED: "Confirmed",
    ConsensusLevel.NEEDS_VERIFICATION: "Needs verification",
    ConsensusLevel.UNVERIFIED: "Unverified",
}


def agreement_percent(detected: int, bots_ran: int) -> int:
    """`min(detected / bots_ran, 1)` as a whole percentage, halves rounded up."""
    if bots_ran <= 0 or detected >= bots_ran:
        return 100
    return (200 * detected + bots_ran) // (2 * bots_ran)


def render_provenance(finding: ConsensusFinding) -> str:
    """The tag `[detected by 2/4 bots, agreement 50%]`."""
    count, ran = finding.detected_by_count, finding.bots_ran
    noun = "bot" if ran == 1 else "bots"
    return f"[detected by {count}/{ran} {noun}, agreement {agreement_percent(count, ran)}%]"


def location(file: str, line: int | None, end_line: int | None = None) -> str:
    """A finding's place as an inert code span: `path:12-14`, `path`, or *global*."""
    if not file:
        return "*global*"
    if line is None:
        return escape.code(file)
    span = f"{line}-{end_line}" if end_line is not None and end_line > line else str(line)
    return escape.code(f"{file}:{span}")


def render_line(finding: ConsensusFinding) -> str:
    """One finding as a markdown list item."""
    bots = ", ".join(escape.inline(bot) for bot in finding.detected_by)
    return (
        f"- **{finding.severity.label.upper()}** {escape.inline(finding.title)} — "
        f"{location(finding.file, finding.line)} {render_provenance(finding)} — {bots}"
    )


def render_consensus_markdown(consensus: Sequence[ConsensusFinding]) -> str:
    """Findings grouped by consensus level (empty groups omitted), one line each."""
    if not consensus:
        return "### Consensus\n\nNo findings.\n"
    bots_ran = consensus[0].bots_ran
    noun = "finding" if len(consensus) == 1 else "findings"
    bots = "bot" if bots_ran == 1 else "bots"
    parts = [f"### Consensus: {len(consensus)} {noun} from {bots_ran} {bots}\n"]
    for level, heading in LEVEL_HEADINGS.items():
        members = [finding for finding in consensus if finding.level is level]
        if members:
            parts.append(f"\n#### {heading} ({len(members)})\n\n")
            parts.extend(render_line(finding) + "\n" for finding in members)
    return "".join(parts)
