"""Who wrote a comment, and so which reader reads it under which bot name (or why none does).

The decision is written top to bottom; the first rule that applies wins:

1. A comment by review-quorum's own login (`github-actions[bot]`, and the configured
   ``bot-login``) whose body opens with one of its markers is ours: never read. A marker
   anywhere else, or in anyone else's comment, is inert text: a bot that quotes one
   (even in a code fence) is read as usual.
2. ``--bot NAME=FILE`` (`Attribution.bot`) attributes every comment of the file to NAME.
3. The configuration's ``bot-logins`` table names the login's bot (so ``qodo-merge-pro``
   and ``qodo-code-review`` can be one bot or two, and a person's account that a bot
   posts through, as Kodus does, is read as that bot).
4. A login that only looks like a known bot's (``copіlot`` with a Cyrillic i, a Greek
   omicron, a digit zero for an o) is an unknown author, never read, and the Skipped
   record says which bot it imitates: no look-alike counts as a bot or as a person.
5. A login GitHub marks as a person (``user.type == "User"``) is a person, whatever its
   name, so a person called ``claude`` is not taken for the Claude app.
6. A login with a dedicated reader (`PARSERS`) is that bot.
7. Any other bot (``user.type == "Bot"`` or a ``[bot]`` login) is read by the generic
   reader under its login.
8. Everyone else is a person: read by the generic reader under the login only when
   humans are included, else skipped (the reason mentions a Kodus signature, since a
   signature alone proves nothing: anyone can paste it).

Every login is compared normalised (`normalise_login`): NFKC, without zero-width, bidi
and other invisible characters, lower-cased, without the ``[bot]`` suffix; so
``Copilot\u200b`` is Copilot, and its findings carry the login as it displays.

Under rules 2 and 3 the reader is the one of the named bot if it has one, else the one
of the login, else the generic reader.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec

from review_quorum.ingest.bots.base import BotParser
from review_quorum.markup.markers import opens_with_marker

if TYPE_CHECKING:
    from review_quorum.ingest.bots.generic import GenericParser

HUMAN = "comment by a human/unknown author"
OWN = "review-quorum's own comment"
KODUS_HINT = (
    " (it carries the Kodus signature; map this login to kodus under bot-logins "
    "in the configuration to read it as Kodus)"
)
_KODUS_SIGNS = ("kody-codereview", "kody code-review")
# The login the Actions workflow token posts as (GET /user cannot say for that token).
ACTIONS_LOGIN = "github-actions[bot]"


class Attribution(msgspec.Struct, frozen=True):
    """What the user said about authors: a bot for every comment, logins to bot names,
    whether people's comments are read, and the login quorum posts as (when not the
    workflow token's)."""

    bot: str | None = None
    logins: Mapping[str, str] = msgspec.field(default_factory=dict)
    include_humans: bool = False
    own_login: str | None = None

    def is_own(self, login: str, body: str) -> bool:
        """Whether the comment is review-quorum's own: by its login, opening with a marker."""
        return is_own(login, body, self.own_login)


class Author(msgspec.Struct, frozen=True):
    """The bot name a comment's findings carry and its reader; no reader means not read."""

    bot: str
    parser: BotParser | None
    reason: str = ""


LOOK_ALIKE = "comment by an unknown author whose login {login!r} looks like {bot}'s but is not it"
# Letters that display as a Latin one (Cyrillic, Greek, Armenian, IPA) and digits read as
# letters: enough to tell an imitation of a bot's login, which is ASCII, from the login.
_SKELETON = str.maketrans(
    "аеорсухіјѕԁһӏԛԝɡαοριυνκτχεϲօսոց01|ı",
    "aeopcyxijsdhlqwgaopiuvktxecoungolli",
)


def normalise_login(login: str) -> str:
    """`login` as compared: NFKC, without invisible characters (zero-width, bidi, other
    format and control characters), lower-cased, without the ``[bot]`` suffix the REST
    API adds."""
    if not login.isascii():
        login = "".join(
            char
            for char in unicodedata.normalize("NFKC", login)
            if unicodedata.category(char) not in ("Cf", "Cc")
        )
    return login.strip().lower().removesuffix("[bot]")


def skeleton(login: str) -> str:
    """A normalised `login` with look-alike characters replaced by the letters they
    imitate, and accents dropped: two logins that display alike have one skeleton."""
    decomposed = unicodedata.normalize("NFKD", login)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return bare.translate(_SKELETON).replace("rn", "m")


def imitated(normal: str, known: Iterable[str]) -> str:
    """The known login that normalised `normal` imitates without being it, else ''."""
    if normal in known:
        return ""
    shape = skeleton(normal)
    return next((login for login in known if skeleton(login) == shape), "")


def is_own(login: str, body: str, own_login: str | None = None) -> bool:
    """Whether `login`'s comment `body` is review-quorum's own (rule 1 above)."""
    ours = {normalise_login(ACTIONS_LOGIN), normalise_login(own_login or ACTIONS_LOGIN)}
    return normalise_login(login) in ours and opens_with_marker(body)


def resolve(
    login: str,
    user_type: str,
    body: str,
    attribution: Attribution,
    parsers: Mapping[str, BotParser],
    named: Mapping[str, BotParser],
) -> Author:
    """Who wrote a comment, by the rules in the module docstring (readers by login in
    `parsers`, by bot name in `named`)."""
    normal = normalise_login(login)
    if attribution.is_own(login, body):
        return Author("", None, OWN)
    bot = attribution.bot or _configured(attribution.logins, normal)
    if bot:
        reader = named.get(bot) or parsers.get(normal) or generic(bot)
        return Author(bot, reader)
    lookalike = imitated(normal, parsers)
    if lookalike:
        return Author("", None, LOOK_ALIKE.format(login=normal, bot=parsers[lookalike].name))
    if user_type != "User" and normal in parsers:
        return Author(parsers[normal].name, parsers[normal])
    if user_type == "Bot" or login.strip().lower().endswith("[bot]"):
        return Author(normal, generic(normal))
    if attribution.include_humans:
        return Author(normal or "ghost", generic(normal or "ghost"))
    signed = any(sign in body for sign in _KODUS_SIGNS)
    return Author("", None, HUMAN + (KODUS_HINT if signed else ""))


def _configured(logins: Mapping[str, str], normal: str) -> str:
    return next((bot for login, bot in logins.items() if normalise_login(login) == normal), "")


@lru_cache(maxsize=256)
def generic(name: str) -> GenericParser:
    """The generic reader for bot `name` (one per name). Its module, and the free-text
    and section parsers it uses, load with the first: comments of bots with their own
    readers need none of them."""
    from review_quorum.ingest.bots.generic import GenericParser

    return GenericParser(name)
