"""Parsers for AI review bots' GitHub comments: one module per bot, a literal registry by login.

Logins differ by API: REST adds ``[bot]`` (``coderabbitai[bot]``), GraphQL leaves it off,
and Copilot's inline comments come from ``Copilot`` while its reviews come from
``copilot-pull-request-reviewer[bot]``. `normalise_login` folds those forms so that
`PARSERS` is keyed by exact, normalised logins; anything else is not a known bot.
"""

from __future__ import annotations

from review_quorum.ingest.bots import coderabbit, copilot, gemini, ghas, qodo, sourcery
from review_quorum.ingest.bots.base import BotParser, Comment, CommentKind, Draft, Parsed

PARSERS: dict[str, BotParser] = {
    "coderabbitai": coderabbit.PARSER,
    "copilot": copilot.PARSER,
    "copilot-pull-request-reviewer": copilot.PARSER,
    "sourcery-ai": sourcery.PARSER,
    "gemini-code-assist": gemini.PARSER,
    "qodo-code-review": qodo.PARSER,
    "qodo-merge-pro": qodo.PARSER,
    "codiumai-pr-agent-pro": qodo.PARSER,
    "github-advanced-security": ghas.PARSER,
}

BOT_NAMES = ("coderabbit", "copilot", "sourcery", "gemini", "qodo", "github-advanced-security")


def normalise_login(login: str) -> str:
    """`login` lower-cased without the ``[bot]`` suffix the REST API adds."""
    return login.strip().lower().removesuffix("[bot]")


def parser_for(login: str) -> BotParser | None:
    """The parser for a known bot's login (any API's spelling), else None."""
    return PARSERS.get(normalise_login(login))


__all__ = [
    "BOT_NAMES",
    "PARSERS",
    "BotParser",
    "Comment",
    "CommentKind",
    "Draft",
    "Parsed",
    "normalise_login",
    "parser_for",
]
