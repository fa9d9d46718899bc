"""The marks some bots leave in every comment body, which name the bot without its login.

On GitHub a comment's author decides its reader. Where the author says little (GitLab's
project and group access-token bots are all named ``project_<id>_bot_<hex>``), the hidden
marks these bots' own readers already rely on name the bot instead: `signed_by(body)`
answers the bot whose mark opens or fills the body, or "" when none (or more than one
bot's) does. A mark alone proves nothing, since anyone can paste one: callers use it only
for accounts already known to be bots.
"""

from __future__ import annotations

from functools import cache


@cache
def signatures() -> tuple[tuple[str, str], ...]:
    """(bot name, text its comments carry); each text is the one the bot's reader looks
    for. Their readers are imported on the first call, not when a run starts."""
    from review_quorum.ingest.bots import coderabbit, codoki, cubic, cursor, devin, kodus

    return (
        (codoki.PARSER.name, codoki.MARKER),
        (cubic.PARSER.name, '<!-- metadata:{"confidence":'),
        (cursor.PARSER.name, "<!-- BUGBOT_BUG_ID:"),
        (cursor.PARSER.name, cursor._DESCRIPTION[0]),
        (devin.PARSER.name, "<!-- devin-review-comment {"),
        *((kodus.PARSER.name, signature) for signature in kodus.SIGNATURES),
        (coderabbit.PARSER.name, coderabbit._REPLY_MARKER),
    )


def signed_by(body: str) -> str:
    """The one bot whose signature `body` carries, else ""."""
    bots = {bot for bot, signature in signatures() if signature in body}
    return bots.pop() if len(bots) == 1 else ""
