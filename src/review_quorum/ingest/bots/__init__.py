"""Parsers for AI review bots' GitHub comments: one module per bot, a literal registry by login.

Logins differ by API: REST adds ``[bot]`` (``coderabbitai[bot]``), GraphQL leaves it off,
and Copilot's inline comments come from ``Copilot`` while its reviews come from
``copilot-pull-request-reviewer[bot]``. `normalise_login` folds those forms so that
`PARSERS` is keyed by exact, normalised logins; anything else is read by the generic
reader (`generic`) under its login. `BY_NAME` finds a reader by the bot name a user
gives (``--bot NAME=FILE``, the configuration's ``bot-logins``); Kodus, which posts
through a person's account, is only reachable that way.

Both registries are literal, and each bot's module is imported when its reader is first
looked up (a loader per module, a plain import, so mypy checks every entry): a review
whose comments come from three bots loads those three readers, not eighteen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping

from review_quorum.ingest.bots.authors import normalise_login
from review_quorum.ingest.bots.base import BotParser, Comment, CommentKind, Parsed, ParsedFinding


class _OnFirstUse(MutableMapping[str, BotParser]):
    """Readers by key, each loaded (its module imported) the first time it is looked up;
    the keys are known without loading any. A reader set by hand replaces the entry."""

    __slots__ = ("_loaded", "_loaders")

    def __init__(self, loaders: dict[str, Callable[[], BotParser]]) -> None:
        self._loaders = loaders
        self._loaded: dict[str, BotParser] = {}

    def __getitem__(self, key: str) -> BotParser:
        parser = self._loaded.get(key)
        if parser is None:
            parser = self._loaded[key] = self._loaders[key]()
        return parser

    def __setitem__(self, key: str, parser: BotParser) -> None:
        self._loaders[key] = lambda: parser
        self._loaded[key] = parser

    def __delitem__(self, key: str) -> None:
        del self._loaders[key]
        self._loaded.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


# One loader per reader: each imports its module when called.
def _coderabbit() -> BotParser:
    from review_quorum.ingest.bots import coderabbit

    return coderabbit.PARSER


def _copilot() -> BotParser:
    from review_quorum.ingest.bots import copilot

    return copilot.PARSER


def _sourcery() -> BotParser:
    from review_quorum.ingest.bots import sourcery

    return sourcery.PARSER


def _gemini() -> BotParser:
    from review_quorum.ingest.bots import gemini

    return gemini.PARSER


def _qodo() -> BotParser:
    from review_quorum.ingest.bots import qodo

    return qodo.PARSER


def _ghas() -> BotParser:
    from review_quorum.ingest.bots import ghas

    return ghas.PARSER


def _cursor() -> BotParser:
    from review_quorum.ingest.bots import cursor

    return cursor.PARSER


def _greptile() -> BotParser:
    from review_quorum.ingest.bots import greptile

    return greptile.PARSER


def _codex() -> BotParser:
    from review_quorum.ingest.bots import codex

    return codex.PARSER


def _claude() -> BotParser:
    from review_quorum.ingest.bots import claude

    return claude.PARSER


def _devin() -> BotParser:
    from review_quorum.ingest.bots import devin

    return devin.PARSER


def _augment() -> BotParser:
    from review_quorum.ingest.bots import augment

    return augment.PARSER


def _cubic() -> BotParser:
    from review_quorum.ingest.bots import cubic

    return cubic.PARSER


def _macroscope() -> BotParser:
    from review_quorum.ingest.bots import macroscope

    return macroscope.PARSER


def _codoki() -> BotParser:
    from review_quorum.ingest.bots import codoki

    return codoki.PARSER


def _codeant() -> BotParser:
    from review_quorum.ingest.bots import codeant

    return codeant.PARSER


def _sonarqube() -> BotParser:
    from review_quorum.ingest.bots import notices

    return notices.SONARQUBE


def _codemetrics() -> BotParser:
    from review_quorum.ingest.bots import notices

    return notices.CODEMETRICS


def _kodus() -> BotParser:
    from review_quorum.ingest.bots import kodus

    return kodus.PARSER


# Each reader's login(s) and its bot name (`BotParser.name`, which
# tests/ingest/test_bot_registry.py checks against the loaded reader).
_READERS: tuple[tuple[tuple[str, ...], str, Callable[[], BotParser]], ...] = (
    (("coderabbitai",), "coderabbit", _coderabbit),
    (("copilot", "copilot-pull-request-reviewer"), "copilot", _copilot),
    (("sourcery-ai",), "sourcery", _sourcery),
    (("gemini-code-assist",), "gemini", _gemini),
    (("qodo-code-review", "qodo-merge-pro", "codiumai-pr-agent-pro"), "qodo", _qodo),
    (("github-advanced-security",), "github-advanced-security", _ghas),
    (("cursor",), "cursor", _cursor),
    (("greptile-apps",), "greptile", _greptile),
    (("chatgpt-codex-connector",), "codex", _codex),
    (("claude",), "claude", _claude),
    (("devin-ai-integration",), "devin", _devin),
    (("augmentcode",), "augment", _augment),
    (("cubic-dev-ai",), "cubic", _cubic),
    (("macroscopeapp",), "macroscope", _macroscope),
    (("codoki-pr-intelligence",), "codoki", _codoki),
    (("codeant-ai",), "codeant", _codeant),
    (("sonarqubecloud",), "sonarqube-cloud", _sonarqube),
    (("codemetrics-ai",), "codemetrics", _codemetrics),
)
PARSERS: Mapping[str, BotParser] = _OnFirstUse(
    {login: load for logins, _, load in _READERS for login in logins}
)
# Bots that post through a person's account: read only when the configuration names the
# login for them (`authors`), so they have no login here.
NAMED_ONLY: Mapping[str, BotParser] = _OnFirstUse({"kodus": _kodus})

BY_NAME: Mapping[str, BotParser] = _OnFirstUse(
    {**{name: load for _, name, load in _READERS}, "kodus": _kodus}
)
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
