"""A busy pull request for the fake: a dozen review bots, two people and review-quorum itself.

Every body here is written for these tests (no bot's real text): each bot says one thing
about one line, in the markup its reader looks for, so a test can list exactly which
findings a review of the pull request must hold. People and our own earlier summary and
inline comment are there too, and must never become findings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from github.fake import FakeGitHub
from review_quorum.markup.markers import marker

OURS = "github-actions[bot]"
PEOPLE = ("alice", "bob")


@dataclass(frozen=True)
class BotNote:
    login: str
    path: str
    line: int
    body: str
    review_login: str = ""  # Copilot reviews as one login and comments as another


NOTES = (
    BotNote(
        "coderabbitai[bot]",
        "src/shop/cart.py",
        14,
        "_⚠️ Potential issue_ | _🟠 Major_\n\n**The discount is applied twice when a coupon "
        "and a sale overlap.** The second pass reads the price the first pass reduced.",
    ),
    BotNote(
        "Copilot",
        "src/shop/payment.py",
        40,
        "The retry counter is never reset, so after three failures every later payment "
        "gives up at once.\n\n```suggestion\n        attempts = 0\n```",
        review_login="copilot-pull-request-reviewer[bot]",
    ),
    BotNote(
        "sourcery-ai[bot]",
        "src/shop/refunds.py",
        22,
        "**issue (bug_risk):** The refund total ignores partial refunds issued earlier.",
    ),
    BotNote(
        "gemini-code-assist[bot]",
        "src/shop/tax.py",
        9,
        "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nThe rate "
        "lookup falls back to zero for unknown regions, so those orders are never taxed.",
    ),
    BotNote(
        "github-advanced-security[bot]",
        "src/shop/search.py",
        31,
        "## CodeQL / Database query built from user-controlled sources\n\nThis query "
        "depends on a [user-provided value](1).",
    ),
    BotNote(
        "cursor[bot]",
        "src/shop/orders.py",
        57,
        "### Stock is checked after the order is saved\n\n**Medium Severity**\n\nThe order "
        "row is written before stock is verified, so an order for missing stock stays.\n\n"
        "<!-- LOCATIONS START\nsrc/shop/orders.py#L57-L59\nsrc/shop/stock.py#L12-L14\n"
        "LOCATIONS END -->",
    ),
    BotNote(
        "greptile-apps[bot]",
        "src/shop/orders.py",
        88,
        "**logic:** The loop variable shadows the outer `order`, so every customer gets "
        "the last order back.",
    ),
    BotNote(
        "chatgpt-codex-connector[bot]",
        "src/shop/session.py",
        12,
        "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub> "
        "Keep the session key out of the log line**\n\nThe debug message prints the whole "
        "session key, and the logs are shipped to a shared store.",
    ),
    BotNote(
        "devin-ai-integration[bot]",
        "src/shop/cart.py",
        71,
        "**Expired carts are never deleted**\n\nThe cleanup job compares a timestamp in "
        "seconds with one in milliseconds, so nothing ever looks expired. The same "
        "comparison is in `src/shop/jobs.py:33`.",
    ),
    BotNote(
        "cubic-dev-ai[bot]",
        "src/shop/prices.py",
        19,
        "**Currency codes are compared case-sensitively**\n\nA price in `usd` fails "
        "validation although the code is valid.",
    ),
    BotNote(
        "augmentcode[bot]",
        "src/shop/webhooks.py",
        25,
        "**The webhook answers 200 before checking the signature**\n\nForged events are "
        "accepted and processed.",
    ),
    BotNote(
        "graphite-app[bot]",
        "src/shop/cart.py",
        90,
        "**Division by zero for an empty basket**\n\nThe average divides by the number of "
        "items without checking it.",
    ),
)


def add_bot_review(fake: FakeGitHub, note: BotNote, commit: str | None = None) -> dict[str, Any]:
    """`note` as its bot posts it: a review (body empty) holding one inline comment."""
    inline = {"path": note.path, "line": note.line, "side": "RIGHT", "body": note.body}
    review = fake.add_review(note.review_login or note.login, "", [inline], commit=commit)
    if note.review_login:
        # The review comes from the reviewer login, its inline comment from the other one.
        comment = fake.review_comments[-1]
        comment["user"] = fake._user(note.login)
    return review


def add_people_and_ourselves(fake: FakeGitHub) -> None:
    """Two people talking, a reply to a bot, and review-quorum's own earlier output."""
    first = fake.comments_by(NOTES[0].login)
    fake.add_issue_comment("alice", "Thanks! I will fix the cart totals today.")
    fake.add_review(
        "bob",
        "Looks fine apart from the rounding.",
        [{"path": "src/shop/tax.py", "line": 9, "body": "Please round half up here."}],
    )
    if first:
        fake.add_reply("alice", first[0], "Good catch, fixed in the next push.")
    summary = (
        f"{marker('summary')}\n## Review assessment: 🟡 NEEDS ATTENTION\n\n**1** posted inline"
    )
    fake.add_issue_comment(OURS, summary)
    fake.add_review(
        OURS,
        f"**Assessment: NEEDS ATTENTION**\n\n{marker('batch', 'abc123')}",
        [
            {
                "path": "src/shop/cart.py",
                "line": 14,
                "body": f"{marker('finding', 'f00d')}\n**Discount applied twice**\n\nDetail.",
            }
        ],
    )


def populate(fake: FakeGitHub, notes: tuple[BotNote, ...] = NOTES) -> None:
    fake.bot_users.add("Copilot")
    for note in notes:
        add_bot_review(fake, note)
    add_people_and_ourselves(fake)
