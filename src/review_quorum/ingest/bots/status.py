"""Status and summary comments: what a review bot posts besides findings, recognised by wording.

Bots announce that a review started or finished, that they hit a usage or rate limit or
a lapsed subscription, that they found nothing, or they summarise the pull request
(walkthroughs, overviews, sequence diagrams, quality-gate reports). None of that is a
finding; it is reported as a counted Skipped record whose reason says what it was. The
phrases are matched lower-cased in the first few thousand characters; the first row that
matches names the notice. Dedicated readers know their own bot's notices exactly; this
table serves bots without one, and readers whose bot posts something unexpected.
"""

from __future__ import annotations

import re

SCAN_LIMIT = 4000

NOTICES: tuple[tuple[str, str], ...] = (
    ("usage limit", "usage-limit notice"),
    ("rate limit", "rate-limit notice"),
    ("trial has expired", "subscription notice"),
    ("subscription has expired", "subscription notice"),
    ("quality gate", "quality-gate report"),
    ("is reviewing your", "review-started notice"),
    ("review in progress", "review-started notice"),
    ("started reviewing", "review-started notice"),
    ("review started", "review-started notice"),
    ("review completed", "review-finished notice"),
    ("review complete", "review-finished notice"),
    ("finished reviewing", "review-finished notice"),
    ("no issues found", "no-issues notice"),
    ("found no issues", "no-issues notice"),
    ("did not find any issues", "no-issues notice"),
    ("didn't find any issues", "no-issues notice"),
    ("no new issues", "no-issues notice"),
    ("looks good to me", "no-issues notice"),
    ("review skipped", "review-skipped notice"),
    ("skipped review", "review-skipped notice"),
    ("walkthrough", "walkthrough"),
    ("summary of changes", "pull-request summary"),
    ("sequence diagram", "pull-request summary"),
    ("files reviewed", "review summary"),
    ("overview", "pull-request summary"),
    ("summary", "pull-request summary"),
)
_LGTM = re.compile(r"\blgtm\b")


def notice(body: str) -> str | None:
    """What kind of status or summary comment `body` is, or None when it reads as neither."""
    head = body[:SCAN_LIMIT].lower()
    for phrase, kind in NOTICES:
        if phrase in head:
            return kind
    return "no-issues notice" if _LGTM.search(head) else None
