"""Reliability profiles (shared contract 2): how often each source is right, and why.

A profile is a JSON document (schema: `review_quorum/schemas/profile.schema.json`)::

    {"format": "review-quorum-profile", "version": 1, "origin": "...",
     "sources": [{"bot": "semgrep", "rule": "javascript.express.xss", "reliability": 0.9,
                  "true": 9, "false": 1, "origin": "..."}],
     "families": [{"name": "bandit-ruff", "members": ["bandit", "ruff"]}]}

`reliability` is the probability that a finding of the source (a bot, or one rule of a bot
when `rule` is set) is a real issue, strictly between 0 and 1; `true`/`false` are the
counts it rests on. A family names bots that are not independent witnesses. Loading
validates everything and raises `InputError` naming the file and the JSON pointer.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

import msgspec
import orjson

from review_quorum.errors import InputError, shown

if TYPE_CHECKING:
    from pathlib import Path

FORMAT = "review-quorum-profile"
VERSION = 1


class SourceReliability(msgspec.Struct, frozen=True):
    """How often one source (a bot, or a bot's rule) reports real issues."""

    bot: str
    rule: str | None
    reliability: float
    true: int = 0
    false: int = 0
    origin: str = ""

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.bot, self.rule)


class WitnessFamily(msgspec.Struct, frozen=True):
    """Bots whose findings are not independent evidence (ports, versions, duplicates)."""

    name: str
    members: tuple[str, ...]


class Profile(msgspec.Struct, frozen=True):
    """Per-source reliabilities and witness families, with where they came from."""

    origin: str = ""
    sources: tuple[SourceReliability, ...] = ()
    families: tuple[WitnessFamily, ...] = ()
    name: str = ""

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """Read and validate the profile at `path`."""
        name = str(path)
        try:
            data = _path(path).read_bytes()
        except OSError as err:
            raise InputError(name, "", f"cannot read profile: {err.strerror}") from err
        return cls.from_json(data, name)

    @classmethod
    def from_json(cls, data: bytes | str, name: str) -> Profile:
        """Parse and validate a profile document; `name` is used in error messages."""
        try:
            document = orjson.loads(data)
        except orjson.JSONDecodeError as err:
            raise InputError(name, f"line {err.lineno}", f"invalid JSON: {err.msg}") from None
        return _parse(document, name)

    @classmethod
    def default(cls) -> Profile:
        """The profile shipped with the package (see docs/reliability.md)."""
        return _default_profile()

    def to_json(self) -> bytes:
        document = {
            "format": FORMAT,
            "version": VERSION,
            "origin": self.origin,
            "sources": [
                {
                    "bot": source.bot,
                    "rule": source.rule,
                    "reliability": source.reliability,
                    "true": source.true,
                    "false": source.false,
                    "origin": source.origin,
                }
                for source in self.sources
            ],
            "families": [
                {"name": family.name, "members": list(family.members)} for family in self.families
            ],
        }
        return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"

    def lookup(self) -> dict[tuple[str, str | None], SourceReliability]:
        return {source.key: source for source in self.sources}


_DEFAULT: list[Profile] = []


def _path(path: str | Path) -> Path:
    """`path` as a `Path`: pathlib loads only when a profile file is given."""
    from pathlib import Path

    return Path(path)


def _default_profile() -> Profile:
    if not _DEFAULT:
        _DEFAULT.append(Profile.from_json(_shipped_bytes(), "review_quorum/profiles/default.json"))
    return _DEFAULT[0]


def _shipped_bytes() -> bytes:
    """The shipped profile's bytes: read beside this package where it is a directory (any
    pip install), through `importlib.resources` where it is not (a zip), which costs every
    run about 10 ms of imports."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    beside = os.path.join(package, "profiles", "default.json")
    if os.path.isfile(beside):
        with open(beside, "rb") as file:
            return file.read()
    from importlib import resources

    return (resources.files("review_quorum") / "profiles" / "default.json").read_bytes()


def _parse(document: object, name: str) -> Profile:
    top = _object(document, name, "")
    _check_keys(top, name, "", {"format", "version", "origin", "sources", "families"})
    if top.get("format") != FORMAT:
        raise InputError(name, "/format", f"expected {FORMAT!r}, not {shown(top.get('format'))}")
    if top.get("version") != VERSION:
        raise InputError(name, "/version", f"unsupported version {shown(top.get('version'))}")
    origin = _string(top.get("origin", ""), name, "/origin")
    sources = tuple(
        _source(item, name, f"/sources/{index}")
        for index, item in enumerate(_array(top.get("sources", []), name, "/sources"))
    )
    seen: dict[tuple[str, str | None], int] = {}
    for index, source in enumerate(sources):
        if source.key in seen:
            where = f"/sources/{index}"
            raise InputError(name, where, f"repeats /sources/{seen[source.key]}")
        seen[source.key] = index
    families = tuple(
        _family(item, name, f"/families/{index}")
        for index, item in enumerate(_array(top.get("families", []), name, "/families"))
    )
    return Profile(origin, sources, families, name)


def _source(item: object, name: str, where: str) -> SourceReliability:
    record = _object(item, name, where)
    _check_keys(record, name, where, {"bot", "rule", "reliability", "true", "false", "origin"})
    bot = _string(record.get("bot"), name, f"{where}/bot")
    if not bot:
        raise InputError(name, f"{where}/bot", "must be a non-empty string")
    rule = record.get("rule")
    if rule is not None:
        rule = _string(rule, name, f"{where}/rule")
    reliability = record.get("reliability")
    if (
        isinstance(reliability, bool)
        or not isinstance(reliability, int | float)
        or not math.isfinite(reliability)
        or not 0 < reliability < 1
    ):
        message = f"must be a number strictly between 0 and 1, not {shown(reliability)}"
        raise InputError(name, f"{where}/reliability", message)
    counts = [_count(record.get(key, 0), name, f"{where}/{key}") for key in ("true", "false")]
    origin = _string(record.get("origin", ""), name, f"{where}/origin")
    return SourceReliability(bot, rule, float(reliability), counts[0], counts[1], origin)


def _family(item: object, name: str, where: str) -> WitnessFamily:
    record = _object(item, name, where)
    _check_keys(record, name, where, {"name", "members"})
    family = _string(record.get("name"), name, f"{where}/name")
    members = _array(record.get("members"), name, f"{where}/members")
    if len(members) < 2:
        raise InputError(name, f"{where}/members", "a family needs at least two bots")
    bots = tuple(_string(bot, name, f"{where}/members/{i}") for i, bot in enumerate(members))
    return WitnessFamily(family, bots)


def _object(value: object, name: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(name, where or "/", f"expected an object, not {_kind(value)}")
    return value


def _array(value: object, name: str, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(name, where, f"expected an array, not {_kind(value)}")
    return value


def _string(value: object, name: str, where: str) -> str:
    if not isinstance(value, str):
        raise InputError(name, where, f"expected a string, not {_kind(value)}")
    return value


def _count(value: object, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(name, where, f"expected a whole number >= 0, not {shown(value)}")
    return value


def _check_keys(record: dict[str, Any], name: str, where: str, allowed: set[str]) -> None:
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise InputError(name, f"{where}/{unknown[0]}", "unknown key")


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )
