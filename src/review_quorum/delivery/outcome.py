"""What one run of a thread platform's poster did, said in one line (GitLab, Azure DevOps,
Bitbucket): the counts every such run has, and the words each platform uses for them.

A platform's result is a `ThreadPostResult` whose class names its `words` (what its
threads, its summary and its status are called), so that the counts and the sentence
are written once.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec


class Words(msgspec.Struct, frozen=True):
    """How a platform's log line names what a run did."""

    created: str  # "new diff discussion(s)"
    resolved: str  # "resolved as fixed"
    kept: str  # why a fixed thread is left alone: "someone replied"
    sticky: str  # "summary note"
    status: str  # "commit status"


class ThreadPostResult(msgspec.Struct, frozen=True):
    """What one run did (or, in a dry run, would do)."""

    words: ClassVar[Words]

    target: str
    created: int
    skipped_existing: int
    moved_to_summary: int
    reanchored: int
    updated: int
    resolved: int
    kept_replied: int
    sticky: str
    status: str
    dry_run: bool
    warnings: tuple[str, ...] = ()
    unchecked: int = 0  # gone findings kept open (`delivery.fixing`): not shown fixed

    def describe(self) -> str:
        """One line for a person reading the job's log."""
        words = self.words
        verb = "would post" if self.dry_run else "posted"
        parts = [
            f"{self.created} {words.created}",
            f"{self.skipped_existing} already there",
            f"{self.moved_to_summary} listed in the summary (not on the diff)",
            f"{self.reanchored} re-anchored after a push",
            f"{self.updated} refreshed",
            f"{self.resolved} {words.resolved}",
        ]
        if self.kept_replied:
            parts.append(f"{self.kept_replied} fixed but left alone ({words.kept})")
        if self.unchecked:
            parts.append(f"{self.unchecked} kept open (not re-checked, or not shown changed)")
        return (
            f"{self.target}: {verb} {', '.join(parts)}; {words.sticky} {self.sticky}; "
            f"{words.status} {self.status}"
        )
