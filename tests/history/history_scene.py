"""Five past pull requests whose bot comments met every fate history knows how to read.

Every body is written for these tests, in the markup each bot's reader looks for. What
happened to each comment, and the outcome the default rule gives it:

| PR | state  | bot        | what happened                                   | outcome   |
|----|--------|------------|-------------------------------------------------|-----------|
| 1  | merged | coderabbit | a later commit rewrote its lines                | addressed |
| 1  | merged | copilot    | same line as coderabbit (a duplicate), rewritten | addressed |
| 1  | merged | sourcery   | its thread was resolved                         | addressed |
| 1  | merged | gemini     | ignored (a bot's +1 does not count)             | dismissed |
| 2  | merged | coderabbit | the author replied "false positive"             | dismissed |
| 2  | merged | copilot    | the author reacted +1                           | addressed |
| 2  | merged | sourcery   | the author replied "good catch, fixed"          | addressed |
| 2  | merged | gemini     | the author reacted -1                           | dismissed |
| 3  | merged | coderabbit | ignored; lines moved by an unrelated commit     | dismissed |
| 3  | merged | copilot    | duplicate of coderabbit, hidden by quorum       | dismissed |
| 3  | merged | gemini     | hidden as off-topic by a person                 | dismissed |
| 4  | closed | coderabbit | ignored, pull request closed unmerged           | unknown   |
| 5  | open   | sourcery   | nothing yet                                     | unknown   |

So the addressed rates are sourcery 2/2, copilot 2/3, coderabbit 1/3 and gemini 0/3.
"""

from __future__ import annotations

from typing import Any

from github.github_support import TOKEN, _spec
from history.fake_repository import FakeRepository, Pull
from review_quorum.markup.markers import marker

CODERABBIT, COPILOT = "coderabbitai[bot]", "Copilot"
SOURCERY, GEMINI = "sourcery-ai[bot]", "gemini-code-assist[bot]"
QUORUM = "github-actions[bot]"
HIGH = "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\n"


def rabbit(text: str) -> str:
    return f"_⚠️ Potential issue_ | _🟠 Major_\n\n**{text}** It needs a look."


def build() -> FakeRepository:
    fake = FakeRepository(_spec())
    fake.tokens[TOKEN] = "history-reader"
    _first(fake.add_pull(1, "alice", "2026-01-05T09:00:00Z", updated_at="2026-01-06T09:00:00Z"))
    _second(fake.add_pull(2, "bob", "2026-02-10T09:00:00Z", updated_at="2026-02-11T09:00:00Z"))
    _third(fake.add_pull(3, "alice", "2026-02-20T09:00:00Z", updated_at="2026-02-21T09:00:00Z"))
    closed = fake.add_pull(4, "carol", "2026-03-01T09:00:00Z", merged=False)
    closed.commit("4" * 40, "2026-03-01T09:30:00Z", {"app/misc.py": None})
    closed.inline(CODERABBIT, "app/misc.py", 3, rabbit("The cache is never invalidated."), at=_t(4))
    still_open = fake.add_pull(5, "bob", "2026-03-05T09:00:00Z", state="open", merged=False)
    still_open.commit("5" * 40, "2026-03-05T09:30:00Z", {"app/misc.py": None})
    still_open.inline(
        SOURCERY, "app/misc.py", 8, "**issue (bug_risk):** The lock is released twice.", at=_t(5)
    )
    return fake


def _t(pr: int, hour: int = 11) -> str:
    month, day = {1: (1, 5), 2: (2, 10), 3: (2, 20), 4: (3, 1), 5: (3, 5)}[pr]
    return f"2026-{month:02d}-{day:02d}T{hour:02d}:00:00Z"


def _first(pull: Pull) -> None:
    pull.commit("1" * 40, "2026-01-05T10:00:00Z", {"app/cart.py": "@@ -0,0 +1,50 @@\n+..."})
    twice = "The coupon name is passed to a shell unquoted, a command injection."
    pull.inline(CODERABBIT, "app/cart.py", 14, rabbit(twice), at=_t(1))
    pull.inline(COPILOT, "app/cart.py", 15, twice, at=_t(1))
    sourcery = pull.inline(
        SOURCERY, "app/cart.py", 40, "**issue (bug_risk):** The total ignores refunds.", at=_t(1)
    )
    gemini = pull.inline(
        GEMINI, "app/tax.py", 9, HIGH + "Unknown regions fall back to a zero tax rate.", at=_t(1)
    )
    pull.resolve(sourcery, "alice")
    pull.react(gemini, "renovate[bot]", "+1")
    fix = "\n".join(
        ["@@ -13,4 +13,3 @@", " ctx", "-    cmd = 'zip '", "-    cmd += coupon.name"]
        + ["+    cmd = ['zip', coupon.name]", " ctx"]
    )
    pull.commit("2" * 40, "2026-01-05T12:00:00Z", {"app/cart.py": fix})


def _second(pull: Pull) -> None:
    pull.commit("3" * 40, "2026-02-10T10:00:00Z", {"app/pay.py": None})
    declined = pull.inline(
        CODERABBIT, "app/pay.py", 20, rabbit("The retry loop never ends."), at=_t(2)
    )
    liked = pull.inline(COPILOT, "app/pay.py", 70, "The refund amount is not rounded.", at=_t(2))
    agreed = pull.inline(
        SOURCERY, "app/pay.py", 90, "**issue (bug_risk):** The currency is not checked.", at=_t(2)
    )
    disliked = pull.inline(GEMINI, "app/pay.py", 50, HIGH + "The log line is too long.", at=_t(2))
    pull.reply(
        declined, "bob", "False positive: the retries are bounded by the caller.", at=_t(2, 12)
    )
    pull.reply(agreed, "bob", "> The currency is not checked.\n\nGood catch, fixed.", at=_t(2, 12))
    pull.reply(agreed, "dave", "I disagree, not needed.", at=_t(2, 13))  # not the author
    pull.react(liked, "bob", "+1")
    pull.react(disliked, "bob", "-1")


def _third(pull: Pull) -> None:
    pull.commit("6" * 40, "2026-02-20T10:00:00Z", {"app/db.py": None})
    injection = "The query is built by string concatenation, allowing SQL injection."
    first = pull.inline(CODERABBIT, "app/db.py", 30, rabbit(injection), at=_t(3))
    duplicate = pull.inline(COPILOT, "app/db.py", 31, injection, at=_t(3))
    noise = pull.inline(
        GEMINI, "app/db.py", 5, HIGH + "Consider a haiku in this comment.", at=_t(3)
    )
    pull.minimize(noise, "off-topic")
    pull.minimize(duplicate, "duplicate")
    summary = "\n".join(
        [
            marker("summary"),
            "## review-quorum",
            marker("hidden", f"review_comment:{duplicate['id']}"),
        ]
    )
    pull.conversation(QUORUM, summary, at=_t(3, 12))
    pull.commit(
        "7" * 40, "2026-02-20T13:00:00Z", {"app/db.py": "@@ -0,0 +1,2 @@\n+import a\n+import b"}
    )
    assert first["id"] < duplicate["id"]


EXPECTED_OUTCOMES: list[tuple[int, str, str, str]] = [
    (1, "coderabbit", "addressed", "clause 5: lines_changed -> addressed"),
    (1, "copilot", "addressed", "clause 5: lines_changed -> addressed"),
    (1, "sourcery", "addressed", "clause 6: resolved -> addressed"),
    (1, "gemini", "dismissed", "clause 10: merged -> dismissed"),
    (2, "coderabbit", "dismissed", "clause 1: author_declined -> dismissed"),
    (2, "copilot", "addressed", "clause 9: thumbs_up -> addressed"),
    (2, "sourcery", "addressed", "clause 8: author_agreed -> addressed"),
    (2, "gemini", "dismissed", "clause 2: thumbs_down and not thumbs_up -> dismissed"),
    (3, "coderabbit", "dismissed", "clause 10: merged -> dismissed"),
    (3, "copilot", "dismissed", "clause 10: merged -> dismissed"),
    (3, "gemini", "dismissed", "clause 3: hidden_as_noise -> dismissed"),
    (4, "coderabbit", "unknown", "no clause of the rule matched"),
    (5, "sourcery", "unknown", "no clause of the rule matched"),
]


def outcome_table(rows: list[Any]) -> list[tuple[int, str, str, str]]:
    return [(row.number, row.bot, row.outcome.value, row.reason) for row in rows]
