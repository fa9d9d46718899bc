"""Parsers for AI review bots' GitHub comments: one module per bot, a literal registry by login.

Logins differ by API: REST adds ``[bot]`` (``coderabbitai[bot]``), GraphQL leaves it off,
and Copilot's inline comments come from ``Copilot`` while its reviews come from
``copilot-pull-request-reviewer[bot]``. `normalise_login` folds those forms so that
`PARSERS` is keyed by exact, normalised logins; anything else is read by the generic
reader (`generic`) under its login. `BY_NAME` finds a reader by the bot name a user
gives (``--bot NAME=FILE``, the configuration's ``bot-logins``); Kodus, which posts
through a person's account, is only reachable that way.
"""

from __future__ import annotations

from review_quorum.ingest.bots import (
    augment,
    claude,
    codeant,
    coderabbit,
    codex,
    codoki,
    copilot,
    cubic,
    cursor,
    devin,
    gemini,
    ghas,
    greptile,
    kodus,
    macroscope,
    notices,
    qodo,
    sourcery,
)
from review_quorum.ingest.bots.authors import normalise_login
from review_quorum.ingest.bots.base import BotParser, Comment, CommentKind, Parsed, ParsedFinding

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
    "cursor": cursor.PARSER,
    "greptile-apps": greptile.PARSER,
    "chatgpt-codex-connector": codex.PARSER,
    "claude": claude.PARSER,
    "devin-ai-integration": devin.PARSER,
    "augmentcode": augment.PARSER,
    "cubic-dev-ai": cubic.PARSER,
    "macroscopeapp": macroscope.PARSER,
    "codoki-pr-intelligence": codoki.PARSER,
    "codeant-ai": codeant.PARSER,
    "sonarqubecloud": notices.SONARQUBE,
    "codemetrics-ai": notices.CODEMETRICS,
}
# Bots that post through a person's account: read only when the configuration names the
# login for them (`authors`), so they have no login here.
NAMED_ONLY: dict[str, BotParser] = {"kodus": kodus.PARSER}

BY_NAME: dict[str, BotParser] = {
    parser.name: parser for parser in (*PARSERS.values(), *NAMED_ONLY.values())
}
BOT_NAMES = tuple(BY_NAME)


def parser_for(login: str) -> BotParser | None:
    """The parser for a known bot's login (any API's spelling), else None."""
    return PARSERS.get(normalise_login(login))


__all__ = [
    "BOT_NAMES",
    "BY_NAME",
    "NAMED_ONLY",
    "PARSERS",
    "BotParser",
    "Comment",
    "CommentKind",
    "Parsed",
    "ParsedFinding",
    "normalise_login",
    "parser_for",
]
