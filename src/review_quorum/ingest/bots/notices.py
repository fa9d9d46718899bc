"""Bots whose comments on a pull request are status reports: SonarQube Cloud and Codemetrics.

SonarQube Cloud (`sonarqubecloud[bot]`) posts a Quality Gate comment: ``**Quality Gate
failed**`` (or passed) with the failed conditions (duplication, ratings on new code).
Those are metrics about the change, not code findings with a file and line, so the
comment is counted as a quality-gate report. Codemetrics (`codemetrics-ai[bot]`) posted
only a trial-expired notice in the samples. Anything else these bots post is read like any
bot's comment (`generic`), so a format we have not seen is still read, not lost.
"""

from __future__ import annotations

from review_quorum.ingest.bots import generic
from review_quorum.ingest.bots.base import Comment, CommentKind, Parsed, skip


class NoticeParser:
    """A bot whose known comments are notices: (phrase, reason) rows, first match wins."""

    def __init__(self, name: str, notices: tuple[tuple[str, str], ...]) -> None:
        self.name = name
        self.notices = notices

    def parse(self, comment: Comment) -> Parsed:
        head = comment.body[:4000]
        for phrase, reason in self.notices:
            if phrase in head:
                return skip(reason)
        if comment.kind is CommentKind.INLINE:
            return generic.read_inline(comment, self.name)
        return generic.read_body(comment, self.name)


SONARQUBE = NoticeParser(
    "sonarqube-cloud",
    (
        ("Quality Gate failed", "SonarQube Cloud quality-gate report (failed), not a finding"),
        ("Quality Gate passed", "SonarQube Cloud quality-gate report (passed), not a finding"),
        ("Quality Gate", "SonarQube Cloud quality-gate report, not a finding"),
    ),
)
CODEMETRICS = NoticeParser(
    "codemetrics",
    (
        ("free trial has expired", "Codemetrics subscription notice, not a finding"),
        ("Codemetrics", "Codemetrics status notice, not a finding"),
    ),
)
