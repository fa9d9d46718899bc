"""The findings a plan reports, as the poster needs them: `DraftFinding`, `read_findings`.

A plan's ``findings[]`` gives each finding's ``fingerprint`` and ``disposition``, the GitHub
comment each member came from (``members[].source``, beside the member's ``bot``) and the
comment the summary links to in link mode (``link``). Hiding duplicates acts on these. A
plan made before comment sources existed names none and hides nothing. A structurally
broken entry raises `InputError` naming its JSON pointer: a plan is untrusted input (it may
come from a fork), so each member's every field is kept (`identities`, serialised as
`checked_plan.identity` does) and compared with the finding the poster reads from that
comment on GitHub before anything is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from review_quorum.comment_kinds import COMMENT_KINDS
from review_quorum.errors import FindingError, InputError
from review_quorum.model import CommentSource

REPORTED = ("inline", "summary")


@dataclass(frozen=True, slots=True)
class DraftFinding:
    """One finding of the plan: where it goes and the bot comments it was read from."""

    fingerprint: str
    disposition: str
    comments: tuple[tuple[str, CommentSource], ...] = ()  # (bot, comment) per member
    link: CommentSource | None = None
    identities: tuple[bytes, ...] = ()  # each of those members' fields, as serialised

    @property
    def reported(self) -> bool:
        """Listed by quorum, inline or in the summary (not dropped, not only audited)."""
        return self.disposition in REPORTED

    @property
    def bots(self) -> frozenset[str]:
        """The bots whose comments this finding was read from."""
        return frozenset(bot for bot, _ in self.comments)


def read_findings(value: object, source: str) -> tuple[DraftFinding, ...]:
    """Every entry of the plan's ``findings`` array (absent: none)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(source, "/findings", "expected an array")
    return tuple(_finding(item, source, f"/findings/{index}") for index, item in enumerate(value))


def read_source(value: object, source: str, pointer: str) -> CommentSource | None:
    """A comment source object (`render.serialize.source_data`), or None for null."""
    if value is None:
        return None
    data = _object(value, source, pointer)
    kind, rest_id = data.get("kind"), data.get("rest_id")
    if kind not in COMMENT_KINDS:
        raise InputError(source, f"{pointer}/kind", f"expected one of {', '.join(COMMENT_KINDS)}")
    if isinstance(rest_id, bool) or not isinstance(rest_id, int) or rest_id < 1:
        raise InputError(source, f"{pointer}/rest_id", "expected a comment id >= 1")
    try:
        return CommentSource(
            kind=kind,
            rest_id=rest_id,
            node_id=data.get("node_id", ""),
            html_url=data.get("html_url", ""),
            author=data.get("author", ""),
        )
    except FindingError as err:
        raise InputError(source, pointer, str(err)) from None


def _finding(item: object, source: str, pointer: str) -> DraftFinding:
    data = _object(item, source, pointer)
    fingerprint, disposition = data.get("fingerprint"), data.get("disposition")
    if not isinstance(fingerprint, str) or not isinstance(disposition, str):
        raise InputError(source, pointer, "expected a string fingerprint and disposition")
    members = data.get("members", [])
    if not isinstance(members, list):
        raise InputError(source, f"{pointer}/members", "expected an array")
    comments = []
    identities = []
    for index, member in enumerate(members):
        where = f"{pointer}/members/{index}"
        fields = _object(member, source, where)
        comment = read_source(fields.get("source"), source, f"{where}/source")
        if comment is not None:
            bot = fields.get("bot")
            if not isinstance(bot, str) or not bot:
                raise InputError(source, f"{where}/bot", "expected the bot's name")
            comments.append((bot, comment))
            identities.append(orjson.dumps(fields, option=orjson.OPT_SORT_KEYS))
    link = read_source(data.get("link"), source, f"{pointer}/link")
    return DraftFinding(fingerprint, disposition, tuple(comments), link, tuple(identities))


def _object(value: object, source: str, pointer: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, pointer, "expected a JSON object")
    return value
