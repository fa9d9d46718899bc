"""What happened to a bot's comment: the signals read from GitHub and the rule that labels them.

Signals (stored per comment, and per finding for changed lines) are the evidence; the
outcome — addressed, dismissed or unknown — is decided by an `OutcomeRule`: an ordered list
of clauses, each a set of conditions that must all hold (``not NAME`` negates one) and the
outcome it gives; the first clause that matches decides, and a comment no clause matches
is unknown. `CONDITIONS` is the literal vocabulary, each with the SQL that tests it, so
statistics are counted by the database and `quorum history show` names the clause that
decided each comment. `DEFAULT_RULE` is documented in docs/history.md; the configuration
key ``outcome-rule`` replaces it.

The author's replies are read for words that decline (``won't fix``, ``false positive``)
or agree (``fixed``, ``good catch``); reactions count only people, not bots.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec


class Outcome(enum.Enum):
    ADDRESSED = "addressed"
    DISMISSED = "dismissed"
    UNKNOWN = "unknown"


class Condition(msgspec.Struct, frozen=True):
    """One fact about a comment: what it means, and its SQL over comments c, findings f, pulls p."""

    meaning: str
    sql: str


CONDITIONS: dict[str, Condition] = {
    "author_declined": Condition(
        "the pull request's author replied declining it", "c.author_reply = 'declined'"
    ),
    "author_agreed": Condition(
        "the pull request's author replied agreeing or saying it is fixed",
        "c.author_reply = 'agreed'",
    ),
    "author_replied": Condition("the pull request's author replied", "c.author_reply <> ''"),
    "thumbs_down": Condition("a person reacted with -1 or confused", "c.reactions_down > 0"),
    "thumbs_up": Condition(
        "a person reacted with +1, heart, hooray or rocket", "c.reactions_up > 0"
    ),
    "resolved": Condition("its review thread was resolved", "COALESCE(c.thread_resolved, 0) = 1"),
    "lines_changed": Condition(
        "a later commit of the pull request changed the lines it points at",
        "COALESCE(f.lines_changed, 0) = 1",
    ),
    "hidden_as_resolved": Condition(
        "someone (not quorum) hid it as resolved", "c.minimized_reason = 'resolved'"
    ),
    "hidden_as_outdated": Condition(
        "someone (not quorum) hid it as outdated", "c.minimized_reason = 'outdated'"
    ),
    "hidden_as_noise": Condition(
        "someone (not quorum) hid it as off-topic, spam, abuse or low quality",
        "c.minimized_reason IN ('off-topic', 'spam', 'abuse', 'low-quality')",
    ),
    "closed_as_declined": Condition(
        "its thread was closed as won't fix or by design (Azure DevOps)",
        "c.minimized_reason IN ('wont-fix', 'by-design')",
    ),
    "hidden_as_duplicate": Condition(
        "someone (not quorum) hid it as a duplicate", "c.minimized_reason = 'duplicate'"
    ),
    "merged": Condition("the pull request was merged", "p.state = 'merged'"),
    "closed": Condition("the pull request was closed without merging", "p.state = 'closed'"),
    "open": Condition("the pull request is still open", "p.state = 'open'"),
    "always": Condition("always", "1 = 1"),
}


class Clause(msgspec.Struct, frozen=True):
    when: tuple[str, ...]
    then: Outcome

    def describe(self) -> str:
        return f"{' and '.join(self.when)} -> {self.then.value}"

    def sql(self) -> str:
        parts = []
        for name in self.when:
            negated = name.startswith("not ")
            test = CONDITIONS[name.removeprefix("not ")].sql
            parts.append(f"NOT ({test})" if negated else f"({test})")
        return " AND ".join(parts)


class OutcomeRule(msgspec.Struct, frozen=True):
    """Ordered clauses; the first whose conditions all hold gives the outcome."""

    clauses: tuple[Clause, ...]

    @classmethod
    def parse(cls, value: object) -> OutcomeRule:
        """A rule from configuration data; `ValueError` saying what is wrong."""
        if not isinstance(value, list) or not value:
            raise ValueError("expected a non-empty list of {when = [...], then = ...} tables")
        return cls(tuple(_clause(item, index) for index, item in enumerate(value)))

    def clause_sql(self) -> str:
        """SQL giving the number (1-based) of the clause that decides a row; 0 for none."""
        cases = " ".join(
            f"WHEN {clause.sql()} THEN {number}"
            for number, clause in enumerate(self.clauses, start=1)
        )
        return f"CASE {cases} ELSE 0 END"

    def outcome_sql(self) -> str:
        """SQL giving the outcome's value for a row."""
        cases = " ".join(
            f"WHEN {clause.sql()} THEN '{clause.then.value}'" for clause in self.clauses
        )
        return f"CASE {cases} ELSE '{Outcome.UNKNOWN.value}' END"

    def decided_by(self, number: int) -> tuple[Outcome, str]:
        """The outcome of clause `number` (from `clause_sql`) and the reason to show."""
        if number == 0:
            return Outcome.UNKNOWN, "no clause of the rule matched"
        clause = self.clauses[number - 1]
        return clause.then, f"clause {number}: {clause.describe()}"

    def describe(self) -> list[str]:
        return [f"{number}. {clause.describe()}" for number, clause in enumerate(self.clauses, 1)]


def _clause(item: object, index: int) -> Clause:
    where = f"clause {index + 1}"
    if not isinstance(item, Mapping) or set(item) != {"when", "then"}:
        raise ValueError(f"{where}: expected a table with exactly 'when' and 'then'")
    when = item["when"]
    names = [when] if isinstance(when, str) else when
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{where}: 'when' must be a condition name or a list of them")
    for name in names:
        if name.removeprefix("not ") not in CONDITIONS:
            known = ", ".join(CONDITIONS)
            raise ValueError(f"{where}: unknown condition {name!r} (known: {known})")
    try:
        then = Outcome(item["then"])
    except ValueError:
        allowed = ", ".join(outcome.value for outcome in Outcome)
        raise ValueError(f"{where}: 'then' must be one of {allowed}") from None
    return Clause(tuple(names), then)


DEFAULT_RULE = OutcomeRule.parse(
    [
        {"when": ["author_declined"], "then": "dismissed"},
        {"when": ["thumbs_down", "not thumbs_up"], "then": "dismissed"},
        {"when": ["hidden_as_noise"], "then": "dismissed"},
        {"when": ["closed_as_declined"], "then": "dismissed"},
        {"when": ["lines_changed"], "then": "addressed"},
        {"when": ["resolved"], "then": "addressed"},
        {"when": ["hidden_as_resolved"], "then": "addressed"},
        {"when": ["author_agreed"], "then": "addressed"},
        {"when": ["thumbs_up"], "then": "addressed"},
        {"when": ["merged"], "then": "dismissed"},
    ]
)

_DECLINING = re.compile(
    r"\b(?:won'?t fix|will not fix|not an? (?:issue|bug|problem)|false positive|by design|"
    r"intended|intentional(?:ly)?|disagree|not applicable|not relevant|ignor(?:e|ing)|"
    r"no need|not needed|out of scope|nope)\b"
)
_AGREEING = re.compile(
    r"\b(?:fixed|done|good (?:catch|point|find)|nice catch|addressed|resolved|updated|"
    r"changed|will fix|fixing|agreed?|thanks?|thank you|makes sense)\b"
)
UP_REACTIONS = frozenset({"+1", "heart", "hooray", "rocket"})
DOWN_REACTIONS = frozenset({"-1", "confused"})


def classify_reply(body: str) -> str:
    """'declined', 'agreed' or 'replied', from the words of a reply (quotes left out)."""
    text = " ".join(line for line in body.lower().splitlines() if not line.lstrip().startswith(">"))
    text = text.replace("\u2019", "'")
    if _DECLINING.search(text):
        return "declined"
    if _AGREEING.search(text):
        return "agreed"
    return "replied"


def author_reply(replies: Iterable[str]) -> str:
    """The strongest reply signal among the author's replies: declined > agreed > replied."""
    kinds = {classify_reply(body) for body in replies}
    for kind in ("declined", "agreed", "replied"):
        if kind in kinds:
            return kind
    return ""


def count_reactions(reactions: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """(up, down) reactions by people; bots' reactions are not a reviewer's judgement."""
    up = down = 0
    for reaction in reactions:
        user = reaction.get("user")
        if not isinstance(user, Mapping) or is_bot(user):
            continue
        content = reaction.get("content")
        up += content in UP_REACTIONS
        down += content in DOWN_REACTIONS
    return up, down


def is_bot(user: Mapping[str, Any]) -> bool:
    login = user.get("login")
    return user.get("type") == "Bot" or (isinstance(login, str) and login.endswith("[bot]"))
